// SPDX-License-Identifier: BSD-3-Clause
// Scratch arrays that a pass writes before anything reads them: left uninitialized, and large ones backed by huge
// pages where the system offers them on request.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <type_traits>
#include <utility>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace detred {

/// n elements of T, uninitialized. From 2 MiB on, the block is aligned to 2 MiB and, on Linux, advised to transparent
/// huge pages (MADV_HUGEPAGE, which systems with THP set to "madvise" wait for): a fresh buffer costs one page fault
/// per page on first touch, and with 4 KiB pages those faults cost more than the pass that fills it (256 MiB: 670 ms
/// of faults against 23 ms with huge pages on the 2-core development VM, docs/benchmarks.md).
template <class T>
class scratch_array {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_default_constructible_v<T>);

 public:
  explicit scratch_array(std::uint64_t n) : size_(n) {
    if (n == 0) return;
    if (n > ~std::size_t{0} / sizeof(T)) throw std::bad_alloc();
    const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(T);
    constexpr std::size_t huge = std::size_t{2} << 20;
    if (bytes >= huge) {
      const std::size_t rounded = (bytes + huge - 1) / huge * huge;
      data_ = static_cast<T*>(std::aligned_alloc(huge, rounded));
#if defined(__linux__) && defined(MADV_HUGEPAGE)
      // Advice only: a system without transparent huge pages ignores it, and the array works the same.
      if (data_ != nullptr) madvise(data_, rounded, MADV_HUGEPAGE);
#endif
    } else {
      data_ = static_cast<T*>(std::malloc(bytes));
    }
    if (data_ == nullptr) throw std::bad_alloc();
  }
  scratch_array(const scratch_array&) = delete;
  scratch_array& operator=(const scratch_array&) = delete;
  scratch_array(scratch_array&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  scratch_array& operator=(scratch_array&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    return *this;
  }
  ~scratch_array() { std::free(data_); }

  T* data() { return data_; }
  const T* data() const { return data_; }
  std::uint64_t size() const { return size_; }

 private:
  T* data_ = nullptr;
  std::uint64_t size_ = 0;
};

}  // namespace detred
