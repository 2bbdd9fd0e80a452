// SPDX-License-Identifier: BSD-3-Clause
// Measures every variant on one buffer, interleaved: round after round, each variant runs once per round.
#pragma once

#include <span>
#include <vector>

#include "bench_options.hpp"
#include "measurement.hpp"

namespace detred::bench {

/// detred tree and compensated, (c) and each ceiling accumulator count at every thread count of o, and (a) and (b)
/// once (they are serial). Returns one measurement per variant with the per-round figures and their median.
/// Prints progress to stderr, and an error for every detred call whose bits differ from the first one-thread call.
template <class T>
std::vector<measurement> measure_group(std::span<const T> x, const bench_options& o);

}  // namespace detred::bench
