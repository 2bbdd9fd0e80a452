// SPDX-License-Identifier: BSD-3-Clause
// The problem sizes of the batched-reductions benchmarks, shared by detred-batch-bench (CPU) and
// detred-cuda-batch-bench (GPU) so that both measure the same shapes, and the batch members whose bits they check.
// Sizes are log2; `shrink` divides every data size by 2^shrink for a quick run.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace detred::bench::batch {

struct segment_shape {
  int log_count;   ///< segments
  int log_length;  ///< elements per segment
};

/// 2^20 segments of 64 elements, 2^12 of 2^16 and 16 of 2^24: many short, a few thousand medium, a few long.
/// Shrinking takes the count down first, to no fewer than 16 segments, then the length.
inline std::vector<segment_shape> segment_shapes(int shrink) {
  std::vector<segment_shape> shapes;
  for (segment_shape s : {segment_shape{20, 6}, segment_shape{12, 16}, segment_shape{4, 24}}) {
    const int from_count = std::min(shrink, std::max(0, s.log_count - 4));
    shapes.push_back({s.log_count - from_count, s.log_length - (shrink - from_count)});
  }
  return shapes;
}

/// The offsets of 2^20 segments (2^(20 - shrink), at least 16) of pseudo-random lengths 0..127 (mean 63.5; three in
/// four start off a 16-byte boundary): what a ragged array looks like. Lengths from SplitMix64's finalizer of the
/// index, so both harnesses and every run see the same segments.
inline std::vector<std::uint64_t> ragged_offsets(int shrink) {
  const std::uint64_t count = std::uint64_t{1} << std::max(4, 20 - shrink);
  std::vector<std::uint64_t> offsets(count + 1, 0);
  for (std::uint64_t k = 0; k < count; ++k) {
    std::uint64_t z = k + 0x2545f4914f6cdd1dULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    offsets[k + 1] = offsets[k] + (z ^ (z >> 31)) % 128;
  }
  return offsets;
}

struct matrix_shape {
  int log_rows;
  int log_cols;
};

/// A 2^14 x 2^14 row-major matrix; shrinking halves the rows and the columns in turn.
inline matrix_shape matrix_shape_for(int shrink) { return {14 - (shrink + 1) / 2, 14 - shrink / 2}; }

struct key_shape {
  int log_n;     ///< values (and keys)
  int log_bins;  ///< results
};

/// 2^26 values into 2^16 bins; shrinking takes fewer values into the same bins.
inline key_shape key_shape_for(int shrink) { return {26 - shrink, 16}; }

/// The members of a batch whose results are checked against the single-array call: all of them up to 64, else 64
/// spread evenly, the first and the last among them (the edges are where a batched kernel splits its work
/// differently).
inline std::vector<std::uint64_t> sample(std::uint64_t count) {
  std::vector<std::uint64_t> k;
  const std::uint64_t m = std::min<std::uint64_t>(count, 64);
  for (std::uint64_t i = 0; i < m; ++i) k.push_back(m == 1 ? 0 : i * (count - 1) / (m - 1));
  return k;
}

inline std::string pow2(int k) { return "2^" + std::to_string(k); }

}  // namespace detred::bench::batch
