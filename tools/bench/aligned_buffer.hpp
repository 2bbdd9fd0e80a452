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

/// SplitMix64: a fixed, portable sequence, so that a table from one machine can be reproduced on another.
class splitmix64 {
 public:
  explicit splitmix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

 private:
  std::uint64_t state_;
};

/// Fills x with values uniform in [-1, 1): the top 53 (double) or 24 (float) bits of each draw, scaled exactly.
template <class T>
void fill_uniform(aligned_buffer<T>& x, std::uint64_t seed = 20240604) {
  constexpr int bits = sizeof(T) == 8 ? 53 : 24;
  constexpr T scale = T(1) / static_cast<T>(std::uint64_t{1} << (bits - 1));
  splitmix64 rng(seed);
  T* p = x.data();
  for (std::size_t i = 0; i < x.size(); ++i) {
    const auto k = static_cast<std::int64_t>(rng.next() >> (64 - bits)) - (std::int64_t{1} << (bits - 1));
    p[i] = static_cast<T>(k) * scale;
  }
}

}  // namespace detred::bench
