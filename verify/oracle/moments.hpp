// SPDX-License-Identifier: BSD-3-Clause
// The oracle of detred::stats' mean, variances and standard deviations, from the exact sum x_i and sum x_i^2.
#pragma once

#include <span>

#include "detred/options.hpp"
#include "oracle.hpp"

namespace detred::verify {

/// The exact sum x_i (with sum |x_i|, the kind and the sign of zero, as exact_sum) and sum x_i^2.
struct exact_moments {
  exact_sums sums;
  exact_sums squares;
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

/// Measures a variance or standard deviation against its exact value (n sum x^2 - (sum x)^2) / n^2 (or
/// / (n (n - 1)), and the square roots), computed at 9400 bits, where only the final quotient and square root round.
/// status is `measured` for a finite result (never a failure); NaN is required for no elements, for the sample
/// moments of one element, and for data holding a NaN or an infinity (special_match or special_mismatch); a NaN or
/// Inf for finite data is reported as overflow (the sum of finite values overflowed).
assessment measure(moment which, const exact_moments& m, double result);
assessment measure(moment which, const exact_moments& m, float result);
/// The exact moment rounded to nearest (NaN where the rules above require it).
double correctly_rounded_moment_f64(moment which, const exact_moments& m);
float correctly_rounded_moment_f32(moment which, const exact_moments& m);

}  // namespace detred::verify
