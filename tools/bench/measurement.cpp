// SPDX-License-Identifier: BSD-3-Clause
#include "measurement.hpp"

#include <algorithm>

#include "targets.hpp"

namespace detred::bench {

double measurement::spread() const {
  if (gelem_per_round.empty() || gelem <= 0) return 0;
  const auto [lo, hi] = std::minmax_element(gelem_per_round.begin(), gelem_per_round.end());
  return (*hi - *lo) / gelem;
}

namespace {

/// The median Gelem/s of `op` at `threads` (any thread count when threads == 0); for the ceiling, the best mode.
std::optional<double> baseline(const std::vector<measurement>& group, const char* op, int threads) {
  std::optional<double> best;
  for (const measurement& m : group) {
    if (m.op != op || (threads != 0 && m.threads != threads)) continue;
    if (!best || m.gelem > *best) best = m.gelem;
  }
  return best;
}

/// (d): the fastest non-deterministic loop at these threads. The plain fast-math loops (c), and (b) at one thread,
/// are candidates too: on some machines their single 32-byte accumulator streams from DRAM faster than any unrolled
/// shape.
std::optional<double> ceiling(const std::vector<measurement>& group, int threads) {
  std::optional<double> best;
  for (const std::optional<double> candidate :
       {baseline(group, op::ceiling, threads), baseline(group, op::fastmath_omp, threads),
        threads == 1 ? baseline(group, op::fastmath_serial, 0) : std::nullopt}) {
    if (candidate && (!best || *candidate > *best)) best = candidate;
  }
  return best;
}

std::optional<double> divide(double value, std::optional<double> base) {
  if (!base || *base <= 0) return std::nullopt;
  return value / *base;
}

}  // namespace

std::vector<row> evaluate_group(const std::vector<measurement>& group) {
  std::vector<row> rows;
  for (const measurement& m : group) {
    row r{m, {}, {}};
    r.r.strict_serial = divide(m.gelem, baseline(group, op::strict_serial, 0));
    r.r.fastmath_serial = divide(m.gelem, baseline(group, op::fastmath_serial, 0));
    r.r.fastmath_omp = divide(m.gelem, baseline(group, op::fastmath_omp, m.threads));
    r.r.ceiling = divide(m.gelem, ceiling(group, m.threads));
    r.targets = targets_for(m, r.r);
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace detred::bench
