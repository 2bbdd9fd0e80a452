// SPDX-License-Identifier: BSD-3-Clause
// A benchmark input buffer: allocated once per size, aligned, and filled with a fixed pseudo-random sequence so that
// every variant of a run reads the very same bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <span>

#include <sys/mman.h>

#include "datasets.hpp"

namespace detred::bench {

/// Large buffers are aligned to 2 MiB and marked for transparent huge pages, so TLB misses do not add noise to the
/// out-of-cache rows; every variant reads the same buffer, so this favours none of them. Small ones get 64 bytes
/// (one cache line, one AVX-512 register).
template <class T>
class aligned_buffer {
 public:
  explicit aligned_buffer(std::size_t n) : n_(n) {
    constexpr std::size_t huge_page = std::size_t{2} << 20;
    const std::size_t bytes = n * sizeof(T);
    const std::size_t alignment = bytes >= huge_page ? huge_page : 64;
    const std::size_t rounded = (bytes + alignment - 1) / alignment * alignment;
    void* p = std::aligned_alloc(alignment, rounded == 0 ? alignment : rounded);
    if (p == nullptr) throw std::bad_alloc();
    if (alignment == huge_page) madvise(p, rounded, MADV_HUGEPAGE);  // a hint: failure only costs speed
    data_.reset(static_cast<T*>(p));
  }

  T* data() { return data_.get(); }
  std::span<const T> span() const { return {data_.get(), n_}; }
  std::size_t size() const { return n_; }

 private:
  struct free_deleter {
    void operator()(T* p) const { std::free(p); }
  };
  std::unique_ptr<T, free_deleter> data_;
  std::size_t n_;
};

/// Fills x with values uniform in [-1, 1): the `detred gen --dist uniform` dataset of the shared generators
/// (lib/generators), so a table from one machine can be reproduced on another.
template <class T>
void fill_uniform(aligned_buffer<T>& x, std::uint64_t seed = 20240604) {
  for (std::uint64_t index = 0, done = 0; done < x.size(); ++index) {
    const std::uint64_t count = x.size() - done < generators::chunk_size ? x.size() - done : generators::chunk_size;
    generators::generate_chunk(generators::distribution::uniform, seed, index, std::span<T>(x.data() + done, count));
    done += count;
  }
}

}  // namespace detred::bench
