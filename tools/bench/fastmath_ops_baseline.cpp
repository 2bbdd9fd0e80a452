// SPDX-License-Identifier: BSD-3-Clause
// The baselines of ops_baselines.hpp, built with -O3 -march=native -ffast-math (set on this file only, in
// CMakeLists.txt): fast-math lets the compiler reassociate and vectorize every reduction.
#include <cmath>
#include <cstdint>

#include "ops_baselines.hpp"

namespace detred::bench {

template <class T>
T fastmath_omp_dot(const T* x, const T* y, std::size_t n, int threads) {
  T s = 0;
#pragma omp parallel for reduction(+ : s) num_threads(threads) schedule(static)
  for (std::size_t i = 0; i < n; ++i) s += x[i] * y[i];
  return s;
}

template <class T>
T fastmath_omp_asum(const T* x, std::size_t n, int threads) {
  T s = 0;
#pragma omp parallel for reduction(+ : s) num_threads(threads) schedule(static)
  for (std::size_t i = 0; i < n; ++i) s += std::fabs(x[i]);
  return s;
}

template <class T>
T fastmath_omp_nrm2(const T* x, std::size_t n, int threads) {
  T s = 0;
#pragma omp parallel for reduction(+ : s) num_threads(threads) schedule(static)
  for (std::size_t i = 0; i < n; ++i) s += x[i] * x[i];
  return std::sqrt(s);
}

template <class T>
T fastmath_omp_min(const T* x, std::size_t n, int threads) {
  T m = x[0];
#pragma omp parallel for reduction(min : m) num_threads(threads) schedule(static)
  for (std::size_t i = 0; i < n; ++i) m = x[i] < m ? x[i] : m;
  return m;
}

template <class T>
T fastmath_omp_max(const T* x, std::size_t n, int threads) {
  T m = x[0];
#pragma omp parallel for reduction(max : m) num_threads(threads) schedule(static)
  for (std::size_t i = 0; i < n; ++i) m = x[i] > m ? x[i] : m;
  return m;
}

template <class I>
std::int64_t omp_integer_sum(const I* x, std::size_t n, int threads) {
  std::int64_t s = 0;
#pragma omp parallel for reduction(+ : s) num_threads(threads) schedule(static)
  for (std::size_t i = 0; i < n; ++i) s += static_cast<std::int64_t>(x[i]);
  return s;
}

#define DETRED_FLOAT_BASELINES(T)                                       \
  template T fastmath_omp_dot<T>(const T*, const T*, std::size_t, int); \
  template T fastmath_omp_asum<T>(const T*, std::size_t, int);          \
  template T fastmath_omp_nrm2<T>(const T*, std::size_t, int);          \
  template T fastmath_omp_min<T>(const T*, std::size_t, int);           \
  template T fastmath_omp_max<T>(const T*, std::size_t, int);
DETRED_FLOAT_BASELINES(double)
DETRED_FLOAT_BASELINES(float)
#undef DETRED_FLOAT_BASELINES
template std::int64_t omp_integer_sum<std::int32_t>(const std::int32_t*, std::size_t, int);
template std::int64_t omp_integer_sum<std::int64_t>(const std::int64_t*, std::size_t, int);

}  // namespace detred::bench
