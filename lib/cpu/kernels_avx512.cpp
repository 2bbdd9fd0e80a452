// SPDX-License-Identifier: BSD-3-Clause
// The CPU engine compiled for avx512 (target flags set in lib/CMakeLists.txt).
#define DETRED_ORDER_ABI avx512
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
namespace avx512_lanes {

inline constexpr std::uint64_t vector_bytes = 64;
inline constexpr std::uint64_t accumulator_vectors = 16;
#include "lane_engine.inl"
#include "scan_engine.inl"

}  // namespace avx512_lanes

constinit const kernel_table avx512_kernels = avx512_lanes::make_table("avx512", cpu_ops{});
namespace scan_tables {
constinit const scan_table avx512_kernels = avx512_lanes::make_scan_table("avx512", scan_ops{});
}  // namespace scan_tables

}  // namespace detred::cpu
