// SPDX-License-Identifier: BSD-3-Clause
// Exact mode's kernel compiled for baseline (target flags in lib/exact/CMakeLists.txt).
#define DETRED_ORDER_ABI baseline
#include <cstdint>
#include <cstring>

#include "detred/exact/superaccumulator.hpp"
#include "detred/order/lane_values.hpp"
#include "exact_kernels.hpp"

namespace detred::exact_cpu {
namespace baseline_lanes {

using namespace detred::exact;
inline constexpr std::uint64_t vector_bytes = 16;
#include "block_kernel.inl"

}  // namespace baseline_lanes

constinit const exact_kernels baseline_kernels = baseline_lanes::make_exact_kernels("baseline");

}  // namespace detred::exact_cpu
