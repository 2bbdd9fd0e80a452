// SPDX-License-Identifier: BSD-3-Clause
// The entry points of exact mode's kernel, one table per instruction set (block_kernel.inl compiled by
// kernels_<isa>.cpp). Each adds the exact sum of its range to a superaccumulator; the driver splits the input.
#pragma once

#include <cstdint>

#include "detred/exact/superaccumulator.hpp"
#include "detred/options.hpp"

namespace detred::exact_cpu {

using exact::superaccumulator;

struct exact_kernels {
  const char* name;
  void (*sum_f64)(superaccumulator&, const double*, std::uint64_t);
  void (*sum_f32)(superaccumulator&, const float*, std::uint64_t);
  void (*asum_f64)(superaccumulator&, const double*, std::uint64_t);
  void (*asum_f32)(superaccumulator&, const float*, std::uint64_t);
  void (*dot_f64)(superaccumulator&, const double*, const double*, std::uint64_t);
  void (*dot_f32)(superaccumulator&, const float*, const float*, std::uint64_t);
};

extern const exact_kernels baseline_kernels;
extern const exact_kernels avx2_kernels;
extern const exact_kernels avx512_kernels;
extern const exact_kernels neon_kernels;

/// The table of a resolved instruction set (cpu::resolve).
const exact_kernels& kernels_for(isa resolved);

/// A table's entry for element type T (double or float): the sum (|x| sum with `absolute`) and the dot product.
template <class T>
auto sum_kernel(const exact_kernels& k, bool absolute) {
  if constexpr (sizeof(T) == sizeof(double))
    return absolute ? k.asum_f64 : k.sum_f64;
  else
    return absolute ? k.asum_f32 : k.sum_f32;
}

template <class T>
auto dot_kernel(const exact_kernels& k) {
  if constexpr (sizeof(T) == sizeof(double))
    return k.dot_f64;
  else
    return k.dot_f32;
}

}  // namespace detred::exact_cpu
