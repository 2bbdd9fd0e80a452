// SPDX-License-Identifier: BSD-3-Clause
// detred::stats: count, sum, mean, variances, standard deviations, min and max from one pass over memory.
#pragma once

#include <span>

#include "detred/options.hpp"
#include "detred/statistics.hpp"

// Exported from a shared libdetred, whose other symbols are hidden (cmake/DetredShared.cmake).
#pragma GCC visibility push(default)

namespace detred {

/// The summary statistics of x (detred/statistics.hpp gives each member's rule), from one read of x: each leaf of the
/// canonical order keeps its sum, its squared deviations about a shift, min and max; Chan's pairwise update joins
/// them in the canonical trees. Bits depend only on n and the values. Only tree mode exists: mode::compensated
/// throws detred::error.
statistics<double> stats(std::span<const double> x, const options& opt = {});
statistics<float> stats(std::span<const float> x, const options& opt = {});

}  // namespace detred

#pragma GCC visibility pop
