// SPDX-License-Identifier: BSD-3-Clause
// The lines of a batch as the kernels read them (batch.cu, exact_batch.cu): segments by their offsets, or lines of
// one length a stride apart (matrix rows, or columns of a column-major matrix).
#pragma once

#include <cstdint>

namespace detred::cuda::detail {

struct line_view {
  const std::uint64_t* offsets;  ///< offsets[k] .. offsets[k + 1] is line k; nullptr for lines of one length
  std::uint64_t stride;          ///< from one line's start to the next, when offsets is nullptr
  std::uint64_t length;          ///< every line's length, when offsets is nullptr
  __device__ std::uint64_t start(std::uint64_t k) const { return offsets != nullptr ? offsets[k] : k * stride; }
  __device__ std::uint64_t size(std::uint64_t k) const {
    return offsets != nullptr ? offsets[k + 1] - offsets[k] : length;
  }
  /// start(k) and size(k), reading offsets[k] once.
  __device__ void place(std::uint64_t k, std::uint64_t& first, std::uint64_t& n) const {
    first = start(k);
    n = offsets != nullptr ? offsets[k + 1] - first : length;
  }
};

}  // namespace detred::cuda::detail
