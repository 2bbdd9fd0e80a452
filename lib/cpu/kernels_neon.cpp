// SPDX-License-Identifier: BSD-3-Clause
// The CPU engine compiled for neon: AArch64 Advanced SIMD, 16-byte vectors (built only on aarch64, where NEON is part
// of the base architecture, so no target flags are needed; lib/cpu/CMakeLists.txt). The register budget follows the
// 32 vector registers of AArch64: 8 accumulators cover 4 add pipes x 2 cycles of latency (Neoverse V1/V2) in tree
// mode, and 8 (sum, correction) pairs plus TwoSum's temporaries fit in compensated mode. Not measured on Arm
// hardware yet; the result bits never depend on these numbers.
#define DETRED_ORDER_ABI neon
#include <cstdint>
#include <cstring>
#include <new>
#include <utility>

#include "cpu/prefetch.hpp"
#include "detred/order.hpp"
#include "kernel_table.hpp"
#include "scan_kernels.hpp"

namespace detred::cpu {
namespace neon_lanes {

inline constexpr std::uint64_t vector_bytes = 16;
inline constexpr std::uint64_t accumulator_vectors = 16;
#include "lane_engine.inl"
#include "scan_engine.inl"

}  // namespace neon_lanes

constinit const kernel_table neon_kernels = neon_lanes::make_table("neon", cpu_ops{});
namespace scan_tables {
constinit const scan_table neon_kernels = neon_lanes::make_scan_table("neon", scan_ops{});
}  // namespace scan_tables

}  // namespace detred::cpu
