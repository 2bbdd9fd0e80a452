// SPDX-License-Identifier: BSD-3-Clause
// A whole file mapped read-only into memory: large inputs are read in place, never copied.
#pragma once

#include <cstddef>
#include <span>
#include <string>

namespace detred::verify {

class mapped_file {
 public:
  /// Maps path. Throws input_error for a missing or unreadable file, a directory, or an empty file.
  explicit mapped_file(const std::string& path);
  ~mapped_file();
  mapped_file(mapped_file&& other) noexcept;
  mapped_file& operator=(mapped_file&& other) noexcept;
  mapped_file(const mapped_file&) = delete;
  mapped_file& operator=(const mapped_file&) = delete;

  std::span<const std::byte> bytes() const { return {data_, size_}; }
  const std::string& path() const { return path_; }

 private:
  void release();

  std::string path_;
  const std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace detred::verify
