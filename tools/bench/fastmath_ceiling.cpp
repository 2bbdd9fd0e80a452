// SPDX-License-Identifier: BSD-3-Clause
// Baseline (d), the bandwidth ceiling: the fastest sum we know how to write, with no concern for its result bits.
// Built with the fastmath_baseline flags (CMakeLists.txt). Out of cache it measures what the memory system
// delivers; in cache it measures the core's add throughput (two 64-byte vector adds per cycle need at least
// latency x 2 independent accumulators, hence 8 or more; more of them also lets the loads run further ahead).
// Several shapes are compiled because none wins everywhere: 64-byte vectors are fastest in cache, while on the
// machine these were written on 32-byte loads streamed faster from DRAM (docs/benchmarks.md).
#include <algorithm>
#include <cstdint>
#include <cstring>

#include <omp.h>

#include "baselines.hpp"

namespace detred::bench {
namespace {

// A dependent type cannot carry vector_size directly, hence one typedef per element type and width.
template <class T, std::size_t Bytes>
struct vector_of;
template <std::size_t Bytes>
struct vector_of<double, Bytes> {
  typedef double type __attribute__((vector_size(Bytes)));
};
template <std::size_t Bytes>
struct vector_of<float, Bytes> {
  typedef float type __attribute__((vector_size(Bytes)));
};

/// A contiguous chunk with A independent accumulators of B bytes each, fully unrolled; a scalar loop takes the
/// tail.
template <class T, std::size_t B, int A>
T chunk_sum(const T* x, std::size_t n) {
  using vec = typename vector_of<T, B>::type;
  constexpr std::size_t VL = B / sizeof(T);
  constexpr std::size_t step = A * VL;
  vec acc[A];
#pragma GCC unroll 32
  for (int a = 0; a < A; ++a) acc[a] = vec{} + T(0);
  std::size_t i = 0;
  for (; i + step <= n; i += step) {
#pragma GCC unroll 32
    for (int a = 0; a < A; ++a) {
      vec v;
      std::memcpy(&v, x + i + static_cast<std::size_t>(a) * VL, sizeof v);
      acc[a] += v;
    }
  }
  for (; i + VL <= n; i += VL) {
    vec v;
    std::memcpy(&v, x + i, sizeof v);
    acc[0] += v;
  }
#pragma GCC unroll 32
  for (int a = 1; a < A; ++a) acc[0] += acc[a];
  T s = 0;
  for (; i < n; ++i) s += x[i];
  for (std::size_t j = 0; j < VL; ++j) s += acc[0][j];
  return s;
}

template <class T>
using chunk_fn = T (*)(const T*, std::size_t);

template <class T>
chunk_fn<T> chunk_for(ceiling_shape shape) {
  if (shape.vector_bytes == 32) return chunk_sum<T, 32, 16>;
  switch (shape.accumulators) {
    case 8:
      return chunk_sum<T, 64, 8>;
    case 32:
      return chunk_sum<T, 64, 32>;
    default:
      return chunk_sum<T, 64, 16>;
  }
}

template <class T>
T ceiling(const T* x, std::size_t n, int threads, ceiling_shape shape) {
  const chunk_fn<T> chunk = chunk_for<T>(shape);
  if (threads <= 1) return chunk(x, n);
  T total = 0;
#pragma omp parallel num_threads(threads) reduction(+ : total)
  {
    // Chunk boundaries on whole cache lines, so no line is fetched by two threads.
    constexpr std::size_t line = 64 / sizeof(T);
    const auto id = static_cast<std::size_t>(omp_get_thread_num());
    const auto size = static_cast<std::size_t>(omp_get_num_threads());
    const std::size_t lines = (n + line - 1) / line;
    const std::size_t begin = std::min(n, lines * id / size * line);
    const std::size_t end = std::min(n, lines * (id + 1) / size * line);
    total += chunk(x + begin, end - begin);
  }
  return total;
}

}  // namespace

double ceiling_sum(const double* x, std::size_t n, int threads, ceiling_shape shape) {
  return ceiling(x, n, threads, shape);
}
float ceiling_sum(const float* x, std::size_t n, int threads, ceiling_shape shape) {
  return ceiling(x, n, threads, shape);
}

}  // namespace detred::bench
