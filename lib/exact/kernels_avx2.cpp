// SPDX-License-Identifier: BSD-3-Clause
// Exact mode's kernel compiled for avx2 (target flags in lib/exact/CMakeLists.txt).
#define DETRED_ORDER_ABI avx2
#include <cstdint>
#include <cstring>

#include "detred/exact/superaccumulator.hpp"
#include "detred/order/lane_values.hpp"
#include "exact_kernels.hpp"

namespace detred::exact_cpu {
namespace avx2_lanes {

using namespace detred::exact;
inline constexpr std::uint64_t vector_bytes = 32;
#include "block_kernel.inl"

}  // namespace avx2_lanes

constinit const exact_kernels avx2_kernels = avx2_lanes::make_exact_kernels("avx2");

}  // namespace detred::exact_cpu
