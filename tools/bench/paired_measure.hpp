// SPDX-License-Identifier: BSD-3-Clause
// One detred call timed against its baseline on the same data, round after round: the comparison behind every row of
// the CPU operation benchmarks. Drift of the machine's speed then hits both sides alike.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "measure.hpp"

namespace detred::bench {

/// The median over rounds of time(baseline) / time(ours), and the medians of each side's GB/s.
struct paired_result {
  double ratio;
  double ours_gbs;
  double baseline_gbs;
};

/// Each round runs both sides, in alternating order, so neither always runs first (on a warm or a cold cache, or
/// right after the other woke the second thread). bytes: what one call reads, the same for both sides.
template <class Ours, class Baseline>
paired_result measure_paired(const Ours& ours, const Baseline& baseline, std::uint64_t bytes, int rounds,
                             const timing_policy& p) {
  std::vector<double> ratios, ours_gbs, base_gbs;
  for (int r = 0; r < rounds; ++r) {
    double t_ours = 0, t_base = 0;
    if (r % 2 == 0) {
      t_ours = seconds_per_call(ours, p);
      t_base = seconds_per_call(baseline, p);
    } else {
      t_base = seconds_per_call(baseline, p);
      t_ours = seconds_per_call(ours, p);
    }
    ratios.push_back(t_base / t_ours);
    ours_gbs.push_back(static_cast<double>(bytes) / t_ours / 1e9);
    base_gbs.push_back(static_cast<double>(bytes) / t_base / 1e9);
  }
  return {median(ratios), median(ours_gbs), median(base_gbs)};
}

/// The target and verdict columns: a target of 0 means the row is measured only.
inline std::string target_text(double target) { return target == 0 ? "" : fmt::format(">= {:.2f}", target); }
inline std::string verdict_text(double ratio, double target) {
  return target == 0 ? "(measured)" : (ratio >= target ? "PASS" : "MISS");
}

}  // namespace detred::bench
