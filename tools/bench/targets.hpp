// SPDX-License-Identifier: BSD-3-Clause
// The CPU performance targets (docs/performance.md), as rules on a row and its ratios.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "measurement.hpp"

namespace detred::bench {

/// The targets that apply to this row (none for baseline rows), each with PASS or MISS filled in.
///   n = 2^27, 2 threads:  tree >= 0.95 x (d), compensated >= 0.90 x (d), both types
///   n = 2^16, 1 thread:   tree >= 0.90 x (d), compensated >= 0.40 x (d)
///   n <= 2^12:            tree >= 0.70 x (b)
///   exact mode, double:   n = 2^27, 2 threads: >= 0.50 x (c); n = 2^16, 1 thread: >= 0.25 x (b)
std::vector<target_check> targets_for(const measurement& m, const ratios& r);

/// The row's ratio to a target's baseline (op::ceiling, op::fastmath_omp or op::fastmath_serial).
std::optional<double> ratio_to(const ratios& r, const std::string& baseline);

}  // namespace detred::bench
