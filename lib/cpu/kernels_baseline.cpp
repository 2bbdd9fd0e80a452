// SPDX-License-Identifier: BSD-3-Clause
// The CPU engine compiled for baseline (target flags set in lib/CMakeLists.txt).
#define DETRED_ORDER_ABI baseline
#include <cstdint>
#include <cstring>
#include <new>
#include <utility>

#include "cpu/prefetch.hpp"
#include "detred/order.hpp"
#include "kernel_table.hpp"
#include "scan_kernels.hpp"

namespace detred::cpu {
namespace baseline_lanes {

inline constexpr std::uint64_t vector_bytes = 16;
inline constexpr std::uint64_t accumulator_vectors = 8;
#include "lane_engine.inl"
#include "scan_engine.inl"

}  // namespace baseline_lanes

constinit const kernel_table baseline_kernels = baseline_lanes::make_table("baseline", cpu_ops{});
namespace scan_tables {
constinit const scan_table baseline_kernels = baseline_lanes::make_scan_table("baseline", scan_ops{});
}  // namespace scan_tables

}  // namespace detred::cpu
