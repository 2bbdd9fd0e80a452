// SPDX-License-Identifier: BSD-3-Clause
// The scan baselines of scan_baselines.hpp, built with -O3 -march=native -ffast-math (set on this file only, in
// CMakeLists.txt): the compiler may reassociate and vectorize whatever it can.
#include <omp.h>

#include <vector>

#include "scan_baselines.hpp"

namespace detred::bench {

template <class T>
void fastmath_serial_scan(const T* x, T* y, std::size_t n) {
  T s = 0;
  for (std::size_t i = 0; i < n; ++i) {
    s += x[i];
    y[i] = s;
  }
}

template <class T>
void fastmath_omp_scan(const T* x, T* y, std::size_t n, int threads) {
  std::vector<T> totals(static_cast<std::size_t>(threads) + 1, T(0));
#pragma omp parallel num_threads(threads)
  {
    const auto id = static_cast<std::size_t>(omp_get_thread_num());
    const auto size = static_cast<std::size_t>(omp_get_num_threads());
    const std::size_t first = n * id / size;
    const std::size_t end = n * (id + 1) / size;
    T s = 0;
#pragma omp simd reduction(+ : s)
    for (std::size_t i = first; i < end; ++i) s += x[i];
    totals[id + 1] = s;
#pragma omp barrier
    T offset = 0;
    for (std::size_t k = 0; k <= id; ++k) offset += totals[k];
    T r = offset;
    for (std::size_t i = first; i < end; ++i) {
      r += x[i];
      y[i] = r;
    }
  }
}

template void fastmath_serial_scan<double>(const double*, double*, std::size_t);
template void fastmath_serial_scan<float>(const float*, float*, std::size_t);
template void fastmath_omp_scan<double>(const double*, double*, std::size_t, int);
template void fastmath_omp_scan<float>(const float*, float*, std::size_t, int);

}  // namespace detred::bench
