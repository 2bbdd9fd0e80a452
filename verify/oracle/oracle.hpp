// SPDX-License-Identifier: BSD-3-Clause
// The oracle: exact sums in MPFR, the correctly rounded result, and the check of a result against the documented
// error bound of its operation and mode (detred/bounds.hpp). Linear in n: the data streams once through
// exact_accumulator (sums) or product_accumulator (exact_products.hpp: dot, sums of squares). The other operations'
// oracles: norm_check.hpp (nrm2), moments.hpp (mean, variances), selection.hpp (min, max, argmin, argmax),
// integer_sums.hpp (exact integer sums).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "detred/bounds.hpp"
#include "detred/number_types.hpp"
#include "detred/options.hpp"
#include "mpfr_number.hpp"

namespace detred::verify {

/// What the exact IEEE sum of the inputs is, before rounding: a finite number, or forced by non-finite inputs.
enum class exact_kind {
  finite,             ///< no Inf, no NaN among the inputs
  positive_infinity,  ///< +Inf among the inputs, no -Inf, no NaN
  negative_infinity,  ///< -Inf among the inputs, no +Inf, no NaN
  nan,                ///< a NaN among the inputs, or both infinities
};

/// Exact results for one dataset. sum and abs_sum cover the finite elements (or products) and carry no rounding.
/// For a dot product they are sum x_i y_i and sum |x_i y_i|; for asum and sums of squares both hold the same value.
struct exact_sums {
  exact_kind kind = exact_kind::finite;
  mpfr_number sum{2};
  mpfr_number abs_sum{2};
  std::uint64_t n = 0;
  bool negative_zero = false;  ///< every element is -0.0 (or n = 0): the IEEE sum of zeros is then -0.0
};

/// Called now and then with the number of elements processed so far.
using progress_callback = std::function<void(std::uint64_t done)>;

exact_sums exact_sum(std::span<const double> x, const progress_callback& progress = {});
exact_sums exact_sum(std::span<const float> x, const progress_callback& progress = {});
/// 16-bit elements, widened exactly to float.
exact_sums exact_sum(std::span<const float16> x, const progress_callback& progress = {});
exact_sums exact_sum(std::span<const bfloat16> x, const progress_callback& progress = {});

/// sum |x_i| exactly, as the sum of its own terms: sum and abs_sum both hold it; kind NaN for a NaN, else +Inf for
/// an infinite element; the IEEE zero is -0.0 only for n = 0 (the sum's identity), since |x| is never -0.0.
exact_sums exact_asum(std::span<const double> x, const progress_callback& progress = {});
exact_sums exact_asum(std::span<const float> x, const progress_callback& progress = {});

class exact_accumulator;
/// The totals of an accumulator fed chunk by chunk: exact_sum's and exact_asum's result over all its elements.
exact_sums sum_totals(const exact_accumulator& acc);
exact_sums asum_totals(const exact_accumulator& acc);

/// The exact sum rounded once, to nearest even, to the type (with IEEE's Inf on overflow and its sign of zero).
double correctly_rounded_f64(const exact_sums& s);
float correctly_rounded_f32(const exact_sums& s);
template <class T>
T correctly_rounded(const exact_sums& s);
template <>
inline double correctly_rounded<double>(const exact_sums& s) {
  return correctly_rounded_f64(s);
}
template <>
inline float correctly_rounded<float>(const exact_sums& s) {
  return correctly_rounded_f32(s);
}

/// How a result compares with the exact sum and the bound.
enum class verdict {
  within_bound,      ///< finite result, |S - result| <= bound: proven for this input
  bound_violated,    ///< finite result, |S - result| > bound
  overflow,          ///< the exact sum is finite (or +-Inf) but the result overflowed; bounds.hpp excludes this case
  special_match,     ///< non-finite inputs and the result IEEE arithmetic requires (NaN, or the Inf of their sign)
  special_mismatch,  ///< non-finite inputs and a result IEEE arithmetic cannot give
  measured,          ///< no documented bound (the variances): the error is reported, never judged
};

/// True for the verdicts that make `detred verify` fail with a bound violation.
bool is_failure(verdict v);
const char* to_string(verdict v);

struct assessment {
  verdict status = verdict::within_bound;
  error_bound factors{};        ///< from detred::bound<T>(n, mode)
  mpfr_number error{2};         ///< |S - result|, exact (finite cases only; 0 otherwise)
  mpfr_number bound{2};         ///< result_factor * |S| + abs_sum_factor * sum|x_i|, rounded upward
  bool bound_exact = true;      ///< the bound needed no rounding at all (it normally does not)
  double error_ulps = 0;        ///< error in units in the last place of the result, rounded to nearest
  double bound_upper = 0;       ///< the bound rounded upward to double: still a bound, and printable
  double error_over_bound = 0;  ///< rounded to nearest; 0 when both are 0
  double relative_error = 0;    ///< error / |exact result| (0 when both are 0), rounded to nearest
};

/// The sum's check: assess(bounded_op::sum, ...).
assessment assess(const exact_sums& s, double result, mode m);
assessment assess(const exact_sums& s, float result, mode m);

/// Checks a result of a linear operation against bound<T>(op, n, m): op is sum (s from exact_sum), dot (from
/// exact_dot) or asum (from exact_asum). nrm2 and mean have their own checks (norm_check.hpp, moments.hpp).
assessment assess(bounded_op op, const exact_sums& s, double result, mode m);
assessment assess(bounded_op op, const exact_sums& s, float result, mode m);

/// The exact value in decimal, to `digits` significant digits (for reports; the value itself stays exact).
std::string to_decimal(const mpfr_number& x, int digits = 17);

}  // namespace detred::verify
