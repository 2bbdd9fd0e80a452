// The CPU backend's sum: OpenMP threads over aligned subtrees of leaves, the top folded in canonical order.
#pragma once

#include <cstdint>
#include <span>

#include "detred/options.hpp"

namespace detred::cpu {

/// Below these many bytes one thread is faster than waking a second one (measured with detred-threshold-sweep;
/// docs/performance.md has the table). Compensated mode does seven times the arithmetic per element, so a second
/// thread pays from a smaller size.
inline constexpr std::uint64_t tree_parallel_threshold_bytes = std::uint64_t{512} << 10;
inline constexpr std::uint64_t compensated_parallel_threshold_bytes = std::uint64_t{256} << 10;

/// Selects the threshold above for the mode.
inline constexpr std::uint64_t default_threshold = ~std::uint64_t{0};

/// threads >= 1 and isa resolved (see detred::resolved_isa); mode valid. Tests and the threshold sweep pass an
/// explicit parallel_threshold_bytes (0 splits every input among the threads).
double sum(std::span<const double> x, mode m, int threads, isa resolved,
           std::uint64_t parallel_threshold_bytes = default_threshold);
float sum(std::span<const float> x, mode m, int threads, isa resolved,
          std::uint64_t parallel_threshold_bytes = default_threshold);

}  // namespace detred::cpu
