// SPDX-License-Identifier: BSD-3-Clause
// The baselines of detred-scan-bench: the prefix sums a user would write, compiled with -O3 -march=native
// -ffast-math in fastmath_scan_baseline.cpp (never the library's flags).
#pragma once

#include <cstddef>

namespace detred::bench {

/// y[i] = x[0] + ... + x[i]: one running sum, the serial loop.
template <class T>
void fastmath_serial_scan(const T* x, T* y, std::size_t n);

/// The usual OpenMP two-pass scan: each thread sums its contiguous chunk (read), the chunk offsets are scanned, then
/// each thread runs the serial loop over its chunk from its offset (read, write).
template <class T>
void fastmath_omp_scan(const T* x, T* y, std::size_t n, int threads);

}  // namespace detred::bench
