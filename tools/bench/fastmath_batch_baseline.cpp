// SPDX-License-Identifier: BSD-3-Clause
// The baselines of batch_baselines.hpp, built with -O3 -march=native -ffast-math (set on this file only, in
// CMakeLists.txt): fast-math lets the compiler reassociate and vectorize each segment's and row's sum. The scatter
// gains nothing from it; it lives here with the other batch baselines.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include <omp.h>

#include "batch_baselines.hpp"

namespace detred::bench {

void fastmath_omp_segment_sums(const float* x, const std::uint64_t* offsets, std::size_t segments, float* results,
                               int threads) {
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::size_t k = 0; k < segments; ++k) {
    float s = 0;
    for (std::uint64_t i = offsets[k]; i < offsets[k + 1]; ++i) s += x[i];
    results[k] = s;
  }
}

void fastmath_omp_column_sums(const float* a, std::size_t rows, std::size_t cols, std::size_t ld, float* results,
                              int threads) {
#pragma omp parallel num_threads(threads)
  {
    // Chunks of whole cache lines of results (16 floats), so no two threads write the same line.
    const auto t = static_cast<std::size_t>(omp_get_thread_num());
    const auto count = static_cast<std::size_t>(omp_get_num_threads());
    const std::size_t chunk = ((cols + count - 1) / count + 15) / 16 * 16;
    const std::size_t begin = std::min(cols, t * chunk);
    const std::size_t end = std::min(cols, begin + chunk);
    float* __restrict out = results;
    for (std::size_t j = begin; j < end; ++j) out[j] = 0;
    for (std::size_t i = 0; i < rows; ++i) {
      const float* __restrict row = a + i * ld;
      for (std::size_t j = begin; j < end; ++j) out[j] += row[j];
    }
  }
}

void fastmath_omp_row_sums(const float* a, std::size_t rows, std::size_t cols, std::size_t ld, float* results,
                           int threads) {
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::size_t i = 0; i < rows; ++i) {
    const float* row = a + i * ld;
    float s = 0;
    for (std::size_t j = 0; j < cols; ++j) s += row[j];
    results[i] = s;
  }
}

void omp_scatter_add(const float* values, const std::uint32_t* keys, std::size_t n, float* bins, std::size_t bin_count,
                     int threads) {
  std::fill(bins, bins + bin_count, 0.0f);
  if (threads == 1) {  // no parallel region, and no private copy of the bins to add at the end
    for (std::size_t i = 0; i < n; ++i) bins[keys[i]] += values[i];
    return;
  }
#pragma omp parallel for reduction(+ : bins[:bin_count]) num_threads(threads) schedule(static)
  for (std::size_t i = 0; i < n; ++i) bins[keys[i]] += values[i];
}

}  // namespace detred::bench
