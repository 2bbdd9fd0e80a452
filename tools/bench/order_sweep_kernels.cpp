// SPDX-License-Identifier: BSD-3-Clause
// The library's CPU engine (lib/cpu/lane_engine.inl), compiled here as in lib/cpu/kernels_avx512.cpp (-mavx512f,
// the library's strict floating-point flags, the same register budget) and instantiated with other leaf shapes
// (W, L). No loop is re-written here, so a shape's speed here is its speed in the library. Only full leaves are
// handled: the sweep's sizes are multiples of every L.
#define DETRED_ORDER_ABI order_sweep_avx512
#include "order_sweep_kernels.hpp"

#include <cstdint>
#include <cstring>
#include <new>
#include <utility>

#include <immintrin.h>

#include "core/operators.hpp"
#include "cpu/kernel_table.hpp"
#include "cpu/prefetch.hpp"
#include "detred/order.hpp"

namespace detred::bench {
namespace order_sweep_lanes {

using cpu::kernel_entry;
using cpu::kernel_table_of;
using cpu::line_set;
inline constexpr std::uint64_t vector_bytes = 64;
inline constexpr std::uint64_t accumulator_vectors = 16;  // as lib/cpu/kernels_avx512.cpp
#include "cpu/lane_engine.inl"

}  // namespace order_sweep_lanes

namespace {

/// Leaves pushed one at a time onto the left-perfect leaf tree, as a single thread of the library does.
template <class Op, order::leaf_shape shape>
typename Op::result sweep_sum(const typename Op::input* x, std::uint64_t n) {
  order::subtree_stack<Op> tree;
  for (std::uint64_t start = 0; start + shape.leaf_size <= n; start += shape.leaf_size) {
    tree.push(order_sweep_lanes::leaf<Op, shape>(order::operands<Op>{{x + start}, start}, shape.leaf_size), 1);
  }
  return Op::finalize(tree.root());
}

template <class T, std::uint64_t W, std::uint64_t... PerLane>
void add_lane_count(std::vector<sweep_kernel<T>>& out, std::integer_sequence<std::uint64_t, PerLane...>) {
  (out.push_back({W, W * PerLane, false, sweep_sum<order::sum_tree<T>, order::leaf_shape{W, W * PerLane}>}), ...);
  (out.push_back({W, W * PerLane, true, sweep_sum<order::sum_compensated<T>, order::leaf_shape{W, W * PerLane}>}), ...);
}

using per_lane = std::integer_sequence<std::uint64_t, 8, 16, 32, 64>;

}  // namespace

std::vector<sweep_kernel<double>> sweep_kernels_f64() {
  std::vector<sweep_kernel<double>> k;
  add_lane_count<double, 32>(k, per_lane{});
  add_lane_count<double, 64>(k, per_lane{});
  add_lane_count<double, 128>(k, per_lane{});
  add_lane_count<double, 256>(k, per_lane{});
  return k;
}

std::vector<sweep_kernel<float>> sweep_kernels_f32() {
  std::vector<sweep_kernel<float>> k;
  add_lane_count<float, 64>(k, per_lane{});
  add_lane_count<float, 128>(k, per_lane{});
  add_lane_count<float, 256>(k, per_lane{});
  return k;
}

}  // namespace detred::bench
