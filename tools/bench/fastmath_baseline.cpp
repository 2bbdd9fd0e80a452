// SPDX-License-Identifier: BSD-3-Clause
// Baselines (b) and (c): the obvious loops, built with -O3 -march=native -ffast-math (set on this file only, in
// CMakeLists.txt). Fast-math lets the compiler reassociate, so it vectorizes the sum; the result then depends on
// the compiler, the flags and (for the OpenMP loop) the thread count. The library is never built this way.
#include "baselines.hpp"

namespace detred::bench {
namespace {

template <class T>
T serial(const T* x, std::size_t n) {
  T s = 0;
  for (std::size_t i = 0; i < n; ++i) s += x[i];
  return s;
}

template <class T>
T omp_reduction(const T* x, std::size_t n, int threads) {
  T s = 0;
#pragma omp parallel for reduction(+ : s) num_threads(threads) schedule(static)
  for (std::size_t i = 0; i < n; ++i) s += x[i];
  return s;
}

}  // namespace

double fastmath_serial_sum(const double* x, std::size_t n) { return serial(x, n); }
float fastmath_serial_sum(const float* x, std::size_t n) { return serial(x, n); }

double fastmath_omp_sum(const double* x, std::size_t n, int threads) { return omp_reduction(x, n, threads); }
float fastmath_omp_sum(const float* x, std::size_t n, int threads) { return omp_reduction(x, n, threads); }

}  // namespace detred::bench
