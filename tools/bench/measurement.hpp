// SPDX-License-Identifier: BSD-3-Clause
// One measured variant at one (type, n, threads), and its ratios to the baselines measured in the same run.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace detred::bench {

/// Names of the op field. detred rows have op "sum" and mode "tree" or "compensated"; the baselines have their
/// own op, and the ceiling's mode names its shape ("zmm16": 16 accumulators of 64 bytes).
namespace op {
inline constexpr const char* detred_sum = "sum";
inline constexpr const char* strict_serial = "strict_serial";      // (a)
inline constexpr const char* fastmath_serial = "fastmath_serial";  // (b)
inline constexpr const char* fastmath_omp = "fastmath_omp";        // (c)
inline constexpr const char* ceiling = "ceiling";                  // (d)
}  // namespace op

/// A CPU performance target (docs/performance.md) that a row is checked against.
struct target_check {
  std::string rule;      ///< e.g. "tree >= 0.95 x (d)"
  std::string baseline;  ///< the op of the baseline: op::ceiling or op::fastmath_serial
  double min_ratio;
  bool pass;
};

struct measurement {
  std::string type;  ///< "double" or "float"
  std::uint64_t element_bytes = 0;
  std::uint64_t n = 0;
  std::string op;
  std::string mode;
  std::string isa;  ///< detred rows: the instruction set that ran (resolved); empty for baselines
  int threads = 1;
  std::vector<double> gelem_per_round;  ///< Gelem/s of each round, in round order
  double gelem = 0;                     ///< median over rounds
  std::uint64_t bit_mismatches = 0;     ///< detred rows: calls whose bits differed from the one-thread result

  double gbytes() const { return gelem * static_cast<double>(element_bytes); }
  /// (max - min) / median over the rounds: how much this VM drifted while the variant was measured.
  double spread() const;
  bool is_detred() const { return op == op::detred_sum; }
};

/// Ratios of a row to each baseline of its (type, n, threads); (a) and (b) are serial, so every thread count is
/// compared with their one-thread figure. (d) is the fastest of the ceiling's shapes and
/// (c) at the row's threads. Absent when that
/// baseline was not measured.
struct ratios {
  std::optional<double> strict_serial;
  std::optional<double> fastmath_serial;
  std::optional<double> fastmath_omp;
  std::optional<double> ceiling;
};

struct row {
  measurement m;
  ratios r;
  std::vector<target_check> targets;
};

/// Attaches ratios and target checks to every measurement of one (type, n) group.
std::vector<row> evaluate_group(const std::vector<measurement>& group);

}  // namespace detred::bench
