// SPDX-License-Identifier: BSD-3-Clause
// The oracle of detred::stats' mean, variances and standard deviations, from the exact sum x_i and sum x_i^2 (and
// the data's min and max, which the variances' bound is stated in).
#pragma once

#include <limits>
#include <span>

#include "detred/options.hpp"
#include "oracle.hpp"

namespace detred::verify {

/// The exact sum x_i (with sum |x_i|, the kind and the sign of zero, as exact_sum) and sum x_i^2; the smallest and
/// largest element (exact in a double for both element types; NaN where unknown, which leaves the variances
/// measured without a bound).
struct exact_moments {
  exact_sums sums;
  exact_sums squares;
  double min = std::numeric_limits<double>::quiet_NaN();
  double max = std::numeric_limits<double>::quiet_NaN();
};
exact_moments exact_moments_of(std::span<const double> x);
exact_moments exact_moments_of(std::span<const float> x);

/// Checks a mean, fl(sum / n), against bound<T>(bounded_op::mean, n, m). The check multiplies through by n, so it
/// compares exact numbers: |S - n result| <= result_factor |S| + abs_sum_factor sum|x_i| + n absolute. The mean of
/// no elements is NaN; of data holding a NaN (or both infinities) NaN; of data holding an infinity that infinity.
assessment assess_mean(const exact_sums& sums, double result, mode m);
assessment assess_mean(const exact_sums& sums, float result, mode m);
/// S / n rounded once to nearest; NaN for n = 0; a zero sum keeps its IEEE sign (-0.0 / n = -0.0).
double correctly_rounded_mean_f64(const exact_sums& sums);
float correctly_rounded_mean_f32(const exact_sums& sums);

/// The measured outputs of detred::stats.
enum class moment { variance, sample_variance, stddev, sample_stddev };

/// Checks a variance or standard deviation against its exact value (n sum x^2 - (sum x)^2) / n^2 (or
/// / (n (n - 1)), and the square roots), computed at 9400 bits, where only the final quotient and square root round,
/// and against the bound of docs/error-bounds.md (order/variance_bound.hpp), evaluated upward in MPFR:
///   E_M2 = gamma_K n R^2 + K n nu,  R = max - min,  phi = (1 + u) / (1 - u)^2,
///   variance:         (phi - 1) V + phi E_M2 / n + nu         (sample: n - 1 for n)
///   standard deviation: u sigma + (1 + u) min(sqrt(E_V), E_V / sigma) + nu   (E_V the variance's bound).
/// status is within_bound or bound_violated for a finite result, `measured` (never a failure) when min and max are
/// unknown; NaN is required for no elements, for the sample moments of one element, and for data holding a NaN or
/// an infinity (special_match or special_mismatch); a NaN or Inf for finite data is reported as overflow (the sum
/// of finite values overflowed).
assessment assess_moment(moment which, const exact_moments& m, double result);
assessment assess_moment(moment which, const exact_moments& m, float result);
/// The exact moment rounded to nearest (NaN where the rules above require it).
double correctly_rounded_moment_f64(moment which, const exact_moments& m);
float correctly_rounded_moment_f32(moment which, const exact_moments& m);

}  // namespace detred::verify
