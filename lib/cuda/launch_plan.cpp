// SPDX-License-Identifier: BSD-3-Clause
// Launch plans; see launch_plan.hpp.
#include "launch_plan.hpp"

#include <string>

#include "detred/options.hpp"

namespace detred::cuda::detail {
namespace {

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return a / b + (a % b != 0 ? 1 : 0); }

bool is_power_of_two(std::uint64_t x) { return x != 0 && (x & (x - 1)) == 0; }

}  // namespace

launch_plan default_plan(std::uint64_t leaves, std::uint32_t leaves_per_warp_wanted) {
  launch_plan p;
  p.leaves = leaves;
  if (leaves <= max_warps_per_block) {
    // One block, a warp per leaf: one launch, the lowest latency for small n.
    p.warps_per_block = static_cast<std::uint32_t>(leaves == 0 ? 1 : leaves);
    p.blocks = 1;
    return p;
  }
  // Enough blocks to reach every multiprocessor (narrower blocks while there are few leaves), then blocks of 8
  // warps, each warp taking the fewest leaves that keep the block count at or under target_blocks.
  p.warps_per_block = default_warps_per_block;
  while (p.warps_per_block > 1 && ceil_div(leaves, p.warps_per_block) < min_blocks) p.warps_per_block /= 2;
  // Longer runs per warp, as far as the operator wants them and the blocks stay at least min_blocks.
  while (p.leaves_per_warp < leaves_per_warp_wanted && p.leaves_per_warp < max_leaves_per_warp &&
         ceil_div(leaves, 2 * std::uint64_t{p.leaves_per_warp} * p.warps_per_block) >= min_blocks) {
    p.leaves_per_warp *= 2;
  }
  while (p.leaves_per_warp < max_leaves_per_warp &&
         ceil_div(leaves, std::uint64_t{p.leaves_per_warp} * p.warps_per_block) > target_blocks) {
    p.leaves_per_warp *= 2;
  }
  p.blocks = ceil_div(leaves, std::uint64_t{p.leaves_per_warp} * p.warps_per_block);
  return p;
}

launch_plan forced_plan(std::uint64_t leaves, std::uint32_t leaves_per_warp, std::uint32_t warps_per_block) {
  if (!is_power_of_two(leaves_per_warp) || leaves_per_warp > max_leaves_per_warp || !is_power_of_two(warps_per_block) ||
      warps_per_block > max_warps_per_block) {
    throw error("CUDA plan: leaves per warp (" + std::to_string(leaves_per_warp) + ") and warps per block (" +
                std::to_string(warps_per_block) + ") must be powers of two <= 32");
  }
  launch_plan p;
  p.leaves = leaves;
  p.leaves_per_warp = leaves_per_warp;
  p.warps_per_block = warps_per_block;
  const std::uint64_t blocks = ceil_div(leaves, std::uint64_t{leaves_per_warp} * warps_per_block);
  p.blocks = blocks == 0 ? 1 : blocks;
  return p;
}

std::uint64_t partial_values(const launch_plan& plan) {
  if (plan.blocks <= 1) return 0;
  // Region A holds the leaf pass's values; folding passes alternate between region B and region A, each output at
  // most 1/8192 of its input, so A and B sized for the first two levels hold every later one.
  return plan.blocks + ceil_div(plan.blocks, fold_block_values);
}

}  // namespace detred::cuda::detail
