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

/// The exact state of sum x[i] (or |x[i]| with `absolute`) for T = double or float.
template <class T>
exact::superaccumulator sum_state(const T* x, std::uint64_t n, bool absolute, const cpu::run_options& how);

/// The exact state of sum x[i] * y[i].
template <class T>
exact::superaccumulator dot_state(const T* x, const T* y, std::uint64_t n, const cpu::run_options& how);

/// The correctly rounded results.
template <class T>
T sum(const T* x, std::uint64_t n, const cpu::run_options& how) {
  return exact::round_to<T>(sum_state(x, n, false, how));
}
template <class T>
T asum(const T* x, std::uint64_t n, const cpu::run_options& how) {
  return exact::round_to<T>(sum_state(x, n, true, how));
}
template <class T>
T dot(const T* x, const T* y, std::uint64_t n, const cpu::run_options& how) {
  return exact::round_to<T>(dot_state(x, y, n, how));
}

}  // namespace detred::exact_cpu
