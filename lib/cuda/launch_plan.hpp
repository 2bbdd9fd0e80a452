// SPDX-License-Identifier: BSD-3-Clause
// How a sum is spread over the GPU: leaves per warp, warps per block, blocks per pass. Plain C++, so tests and the
// benchmark can name a plan. Any plan gives the same bits: each warp, block and pass owns an aligned power-of-two
// run of the level below (the last one ragged), and those runs are subtrees of the canonical leaf tree.
#pragma once

#include <cstdint>

namespace detred::cuda::detail {

/// Leaf-pass blocks are capped at this many (so the folding pass reads little); up to it, each warp takes as few
/// leaves as possible, which keeps blocks short and the GPU's block scheduler balancing the load.
inline constexpr std::uint64_t target_blocks = 8192;
/// Mid-size trees use narrower blocks to have at least this many: about two per multiprocessor of an H100/H200.
inline constexpr std::uint64_t min_blocks = 256;
/// Values one block of the folding pass reduces: 1024 threads, 8 registers each.
inline constexpr std::uint64_t fold_block_values = 8192;
inline constexpr std::uint32_t max_leaves_per_warp = 32;
inline constexpr std::uint32_t max_warps_per_block = 32;
/// Warps per block when the tree spans several blocks: a power of two, so each block owns an aligned subtree.
inline constexpr std::uint32_t default_warps_per_block = 8;

struct launch_plan {
  std::uint64_t leaves = 0;           ///< m = ceil(n / L)
  std::uint32_t leaves_per_warp = 1;  ///< R: a power of two <= 32
  std::uint32_t warps_per_block = 1;  ///< a power of two <= 32, or any count <= 32 when blocks == 1
  std::uint64_t blocks = 1;           ///< leaf-pass blocks; 1 means the leaf pass also finalizes
};

/// The plan detred uses for m leaves. Up to 32 leaves: one block, a warp per leaf (one launch). Above: at least
/// min_blocks blocks of up to 8 warps, each warp taking the fewest leaves that keep the block count at or under
/// target_blocks, and at least leaves_per_warp_wanted (rounded up to a power of two) where min_blocks blocks remain:
/// operators whose threads carry something across a warp's run of leaves ask for longer runs (stats, api.cpp).
launch_plan default_plan(std::uint64_t leaves, std::uint32_t leaves_per_warp_wanted = 1);

/// A plan with R leaves per warp and B warps per block (both powers of two, R <= 32, B <= 32), for tests that check
/// that every plan gives the same bits and for tuning.
launch_plan forced_plan(std::uint64_t leaves, std::uint32_t leaves_per_warp, std::uint32_t warps_per_block);

/// Number of accumulator values the partial buffer must hold for this plan: the leaf pass's block values, then one
/// region per folding pass, reused in turn.
std::uint64_t partial_values(const launch_plan& plan);

}  // namespace detred::cuda::detail
