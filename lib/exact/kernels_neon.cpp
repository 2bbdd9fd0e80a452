// SPDX-License-Identifier: BSD-3-Clause
// Exact mode's kernel compiled for neon (target flags in lib/exact/CMakeLists.txt).
#define DETRED_ORDER_ABI neon
#include <cstdint>
#include <cstring>

#include "detred/exact/superaccumulator.hpp"
#include "detred/order/lane_values.hpp"
#include "exact_kernels.hpp"

namespace detred::exact_cpu {
namespace neon_lanes {

using namespace detred::exact;
inline constexpr std::uint64_t vector_bytes = 16;
#include "block_kernel.inl"

}  // namespace neon_lanes

constinit const exact_kernels neon_kernels = neon_lanes::make_exact_kernels("neon");

}  // namespace detred::exact_cpu
