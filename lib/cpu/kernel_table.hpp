// The per-instruction-set kernels of the CPU backend. Each table is compiled in its own translation unit with its
// own target flags (kernels_*.cpp); the driver (cpu_sum.cpp) picks one at run time.
#pragma once

#include <cstdint>

#include "detred/order.hpp"

namespace detred::cpu {

/// Each function returns the root of the left-perfect leaf tree over x[0..n): the canonical value of the subtree
/// whose leaves hold x[0..n). x must start on a leaf boundary of the whole array; n may end mid-leaf.
struct kernel_table {
  const char* name;
  double (*tree_f64)(const double* x, std::uint64_t n);
  order::pair<double> (*compensated_f64)(const double* x, std::uint64_t n);
  float (*tree_f32)(const float* x, std::uint64_t n);
  order::pair<float> (*compensated_f32)(const float* x, std::uint64_t n);
};

extern const kernel_table baseline_kernels;
#if DETRED_HAVE_X86_KERNELS
extern const kernel_table avx2_kernels;
extern const kernel_table avx512_kernels;
#endif
#if DETRED_HAVE_NEON_KERNELS
extern const kernel_table neon_kernels;
#endif

}  // namespace detred::cpu
