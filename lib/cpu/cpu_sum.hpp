// The CPU backend's sum: OpenMP threads over aligned subtrees of leaves, the top folded in canonical order.
#pragma once

#include <cstdint>
#include <span>

#include "detred/options.hpp"

namespace detred::cpu {

/// Below this many bytes one thread is faster than waking the team (docs/performance.md has the measurement).
inline constexpr std::uint64_t default_parallel_threshold_bytes = std::uint64_t{1} << 19;

/// threads >= 1 and isa resolved (see detred::resolved_isa); mode valid. Tests lower the threshold to run the
/// threaded path on small inputs.
double sum(std::span<const double> x, mode m, int threads, isa resolved,
           std::uint64_t parallel_threshold_bytes = default_parallel_threshold_bytes);
float sum(std::span<const float> x, mode m, int threads, isa resolved,
          std::uint64_t parallel_threshold_bytes = default_parallel_threshold_bytes);

}  // namespace detred::cpu
