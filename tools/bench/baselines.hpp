// SPDX-License-Identifier: BSD-3-Clause
// The loops detred is compared with. Each lives in its own translation unit with its own flags (CMakeLists.txt):
//   (a) strict_serial_baseline.cpp  the obvious loop with detred's strict floating-point flags
//   (b) fastmath_baseline.cpp       the obvious loop with -O3 -march=native -ffast-math
//   (c) fastmath_baseline.cpp       an OpenMP reduction(+:s) loop with the same flags
//   (d) fastmath_ceiling.cpp        the bandwidth ceiling: the fastest non-deterministic loop we can write
// None of them is deterministic across thread counts or builds except (a); that is the point of the comparison.
#pragma once

#include <cstddef>

namespace detred::bench {

double strict_serial_sum(const double* x, std::size_t n);
float strict_serial_sum(const float* x, std::size_t n);

double fastmath_serial_sum(const double* x, std::size_t n);
float fastmath_serial_sum(const float* x, std::size_t n);

double fastmath_omp_sum(const double* x, std::size_t n, int threads);
float fastmath_omp_sum(const float* x, std::size_t n, int threads);

/// One compiled shape of the ceiling: accumulators of vector_bytes each. The harness measures every shape in
/// ceiling_shapes and takes the fastest (or (c), if that is faster still) as (d).
struct ceiling_shape {
  const char* name;
  int vector_bytes;
  int accumulators;
};
inline constexpr ceiling_shape ceiling_shapes[] = {
    {"zmm8", 64, 8},
    {"zmm16", 64, 16},
    {"zmm32", 64, 32},
    {"ymm16", 32, 16},
};

/// Each thread sums a contiguous chunk with independent vector accumulators of the given shape (one of
/// ceiling_shapes); the partial sums are added in whatever order the threads finish. threads == 1 runs without a
/// parallel region, as detred does.
double ceiling_sum(const double* x, std::size_t n, int threads, ceiling_shape shape);
float ceiling_sum(const float* x, std::size_t n, int threads, ceiling_shape shape);

}  // namespace detred::bench
