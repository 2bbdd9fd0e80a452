// SPDX-License-Identifier: BSD-3-Clause
// Exact mode on the CPU: the correctly rounded sum, |x| sum and dot product of host arrays. Threads each fill a
// superaccumulator over a contiguous range and the states merge exactly, so neither the thread count nor the
// instruction set can change a bit (docs/exact.md).
#pragma once

#include <cstdint>

#include "cpu/cpu_backend.hpp"
#include "detred/exact/superaccumulator.hpp"

namespace detred::exact_cpu {

/// Below this many bytes of input one thread is faster than waking a second one.
inline constexpr std::uint64_t parallel_threshold_bytes = std::uint64_t{128} << 10;

/// The threshold a call uses: the caller's (run_options, for tests that force threads), or the default above.
inline std::uint64_t threshold_bytes(const cpu::run_options& how) {
  return how.parallel_threshold_bytes == ~std::uint64_t{0} ? parallel_threshold_bytes : how.parallel_threshold_bytes;
}

/// The exact state of sum x[i] (or |x[i]| with `absolute`) for T = double, float, float16 or bfloat16.
template <class T>
exact::superaccumulator sum_state(const T* x, std::uint64_t n, bool absolute, const cpu::run_options& how);

/// The exact state of sum x[i] * y[i] (the same types).
template <class T>
exact::superaccumulator dot_state(const T* x, const T* y, std::uint64_t n, const cpu::run_options& how);

}  // namespace detred::exact_cpu
