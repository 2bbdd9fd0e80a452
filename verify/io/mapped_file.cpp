// SPDX-License-Identifier: BSD-3-Clause
// POSIX mmap of a whole file. MAP_PRIVATE + PROT_READ: the tool can never write to a user's data.
#include "mapped_file.hpp"

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input_error.hpp"

namespace detred::verify {

mapped_file::mapped_file(const std::string& path) : path_(path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw input_error(path, std::string("cannot open: ") + std::strerror(errno));
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    const int err = errno;
    ::close(fd);
    throw input_error(path, std::string("cannot read its size: ") + std::strerror(err));
  }
  if (S_ISDIR(info.st_mode)) {
    ::close(fd);
    throw input_error(path, "is a directory, not a data file");
  }
  if (info.st_size == 0) {
    ::close(fd);
    throw input_error(path, "empty file (0 bytes)");
  }
  size_ = static_cast<std::size_t>(info.st_size);
  void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
  const int err = errno;
  ::close(fd);  // the mapping keeps the file open
  if (p == MAP_FAILED) throw input_error(path, std::string("cannot map into memory: ") + std::strerror(err));
  // The reductions and the oracle read front to back: let the kernel read ahead.
  ::madvise(p, size_, MADV_SEQUENTIAL);
  data_ = static_cast<const std::byte*>(p);
}

mapped_file::~mapped_file() { release(); }

mapped_file::mapped_file(mapped_file&& other) noexcept
    : path_(std::move(other.path_)), data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

mapped_file& mapped_file::operator=(mapped_file&& other) noexcept {
  if (this != &other) {
    release();
    path_ = std::move(other.path_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

void mapped_file::release() {
  if (data_ != nullptr) ::munmap(const_cast<std::byte*>(data_), size_);
  data_ = nullptr;
  size_ = 0;
}

}  // namespace detred::verify
