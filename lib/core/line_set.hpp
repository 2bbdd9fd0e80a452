// SPDX-License-Identifier: BSD-3-Clause
// The lines of a batch that lie in one piece of memory: what the front door hands every backend's batched entry
// point (the CPU driver, lib/exact's batch driver, the CUDA backend).
#pragma once

#include <cstdint>

namespace detred {

/// Line k is x[offsets[k] .. offsets[k+1]) when there are offsets (segments), x[k * stride .. k * stride + length)
/// otherwise (rows of a row-major matrix).
struct line_set {
  const std::uint64_t* offsets = nullptr;
  std::uint64_t stride = 0;
  std::uint64_t length = 0;

  std::uint64_t start(std::uint64_t k) const { return offsets != nullptr ? offsets[k] : k * stride; }
  std::uint64_t size(std::uint64_t k) const { return offsets != nullptr ? offsets[k + 1] - offsets[k] : length; }
};

}  // namespace detred
