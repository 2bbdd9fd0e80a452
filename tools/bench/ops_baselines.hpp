// SPDX-License-Identifier: BSD-3-Clause
// The natural non-deterministic baselines of the operations other than the sum: the obvious OpenMP loops, built
// with -O3 -march=native -ffast-math (fastmath_ops_baseline.cpp only; never the library). Their results depend on
// the thread count and the compiler; the point is their speed.
#pragma once

#include <cstddef>
#include <cstdint>

namespace detred::bench {

template <class T>
T fastmath_omp_dot(const T* x, const T* y, std::size_t n, int threads);
template <class T>
T fastmath_omp_asum(const T* x, std::size_t n, int threads);
/// sqrt(sum x^2) with no scaling: overflows for |x| > sqrt(max), which is what the scaled nrm2 is measured against.
template <class T>
T fastmath_omp_nrm2(const T* x, std::size_t n, int threads);
template <class T>
T fastmath_omp_min(const T* x, std::size_t n, int threads);
template <class T>
T fastmath_omp_max(const T* x, std::size_t n, int threads);
/// The integer sum in the element type itself (wraps around on overflow).
template <class I>
std::int64_t omp_integer_sum(const I* x, std::size_t n, int threads);

}  // namespace detred::bench
