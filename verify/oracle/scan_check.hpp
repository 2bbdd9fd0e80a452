// SPDX-License-Identifier: BSD-3-Clause
// The oracle of the scans (detred/scan.hpp): every output of a cumsum against its exact prefix sum. Floating-point
// outputs are judged against the documented per-output bound (docs/scan.md: tree |y_i - S_i| <= γ_D A_i,
// compensated u |S_i| + (1 + u) γ_D γ_D' A_i, with D = D_s(i + 1) and D' = D'_s(i + 1) from detred::cumsum_bound),
// integer outputs for equality with the exact prefix sum. One pass over the data, linear in n.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "detred/number_types.hpp"
#include "detred/options.hpp"
#include "oracle.hpp"

namespace detred::verify {

/// What the check of every output of one floating-point scan found, and the worst output.
struct scan_assessment {
  std::uint64_t outputs = 0;    ///< outputs checked (n)
  std::uint64_t failures = 0;   ///< outputs above their bound, or non-finite where IEEE requires otherwise
  std::uint64_t overflows = 0;  ///< outputs that overflowed a finite exact prefix sum (no bound applies)
  std::uint64_t specials = 0;   ///< non-finite outputs as IEEE requires (a NaN or Inf among the prefix's elements)
  /// The worst output: a failure if there is one, else the largest error/bound among the bound-checked outputs,
  /// else the first output. Absent for n = 0.
  std::optional<std::uint64_t> worst;
  assessment at_worst;           ///< its verdict, error, bound (factors: the documented formula, rounded upward)
  int depth = 0;                 ///< D_s(i + 1) of the worst output (of the inclusive output it equals)
  int correction_depth = 0;      ///< D'_s(i + 1) in compensated mode
  double correctly_rounded = 0;  ///< the exact prefix sum at the worst output, rounded once to the output type
};

/// Checks y, the inclusive (or exclusive) scan of x in mode m (tree or compensated), output by output. y.size()
/// must equal x.size(). 16-bit inputs are widened exactly to float, as the library scans them.
scan_assessment check_scan(std::span<const double> x, std::span<const double> y, mode m, bool exclusive,
                           const progress_callback& progress = {});
scan_assessment check_scan(std::span<const float> x, std::span<const float> y, mode m, bool exclusive,
                           const progress_callback& progress = {});
scan_assessment check_scan(std::span<const float16> x, std::span<const float> y, mode m, bool exclusive,
                           const progress_callback& progress = {});
scan_assessment check_scan(std::span<const bfloat16> x, std::span<const float> y, mode m, bool exclusive,
                           const progress_callback& progress = {});

/// What the check of an integer scan found: the first output that differs from the exact prefix sum, and the first
/// exact prefix sum that does not fit the output type (int64 for signed inputs, uint64 for unsigned ones).
struct integer_scan_assessment {
  std::uint64_t outputs = 0;
  std::optional<std::uint64_t> first_difference;  ///< the first output whose value is not the exact prefix sum
  std::optional<std::uint64_t> first_unfit;       ///< the first output whose exact value does not fit the type
};

/// y (when given: nullopt for a scan the library refused) against the exact prefix sums of x, in 128-bit integers
/// (exact: |x| < 2^64 and n < 2^63).
integer_scan_assessment check_integer_scan(std::span<const std::int32_t> x,
                                           std::optional<std::span<const std::int64_t>> y, bool exclusive);
integer_scan_assessment check_integer_scan(std::span<const std::int64_t> x,
                                           std::optional<std::span<const std::int64_t>> y, bool exclusive);
integer_scan_assessment check_integer_scan(std::span<const std::uint32_t> x,
                                           std::optional<std::span<const std::uint64_t>> y, bool exclusive);
integer_scan_assessment check_integer_scan(std::span<const std::uint64_t> x,
                                           std::optional<std::span<const std::uint64_t>> y, bool exclusive);

}  // namespace detred::verify
