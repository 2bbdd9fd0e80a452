// SPDX-License-Identifier: BSD-3-Clause
// The CPU engine compiled for avx2 (target flags set in lib/CMakeLists.txt).
#define DETRED_ORDER_ABI avx2
#include <cstdint>
#include <cstring>
#include <new>
#include <utility>

#include <immintrin.h>

#include "cpu/prefetch.hpp"
#include "detred/order.hpp"
#include "kernel_table.hpp"
#include "scan_kernels.hpp"

namespace detred::cpu {
namespace avx2_lanes {

inline constexpr std::uint64_t vector_bytes = 32;
inline constexpr std::uint64_t accumulator_vectors = 8;
#include "lane_engine.inl"
#include "scan_engine.inl"

}  // namespace avx2_lanes

constinit const kernel_table avx2_kernels = avx2_lanes::make_table("avx2", cpu_ops{});
namespace scan_tables {
constinit const scan_table avx2_kernels = avx2_lanes::make_scan_table("avx2", scan_ops{});
}  // namespace scan_tables

}  // namespace detred::cpu
