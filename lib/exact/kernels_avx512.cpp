// SPDX-License-Identifier: BSD-3-Clause
// Exact mode's kernel compiled for avx512 (target flags in lib/exact/CMakeLists.txt).
#define DETRED_ORDER_ABI avx512
#include <cstdint>
#include <cstring>

#include "detred/exact/superaccumulator.hpp"
#include "detred/order/lane_values.hpp"
#include "exact_kernels.hpp"

namespace detred::exact_cpu {
namespace avx512_lanes {

using namespace detred::exact;
inline constexpr std::uint64_t vector_bytes = 64;
#include "block_kernel.inl"

}  // namespace avx512_lanes

constinit const exact_kernels avx512_kernels = avx512_lanes::make_exact_kernels("avx512");

}  // namespace detred::exact_cpu
