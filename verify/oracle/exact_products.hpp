// SPDX-License-Identifier: BSD-3-Clause
// The oracle's exact sums of products: sum x_i y_i and sum |x_i y_i| for dot, sum x_i^2 for nrm2 and the variance.
//
// Why it is exact. A product of two floats is exact in double (24 + 24 bits, exponents inside double's normal range)
// and is added to a fixed-point sum like any double. A product of two doubles needs up to 106 bits and ranges from
// 2^-2148 to 2^2048. Most lie where TwoProduct is exact: p = fl(x y) finite and |p| >= 2^-967, where
// t = fma(x, y, -p) is exactly x y - p (docs/error-bounds.md, "When TwoProduct is exact"), so x y = p + t with two
// doubles, each added exactly to the fixed-point sum (and |x y| = |p| + sign(p) t, since |t| < |p|). The rest (a
// product that overflows double or falls below 2^-967) is formed exactly in MPFR at 106 bits and added to an MPFR sum
// whose precision covers 2^-2148 to 2^2113, with every ternary value checked.
#pragma once

#include <cstdint>
#include <span>

#include "detred/number_types.hpp"
#include "exact_accumulator.hpp"
#include "mpfr_number.hpp"
#include "oracle.hpp"

namespace detred::verify {

/// Exact sum x_i y_i and sum |x_i y_i| of a stream of pairs, with IEEE's rules for the non-finite products.
class product_accumulator {
 public:
  product_accumulator();

  void add(std::span<const double> x, std::span<const double> y);
  void add(std::span<const float> x, std::span<const float> y);

  /// The exact totals (kind, sum, abs_sum, n, negative_zero) in the form exact_sum returns them.
  exact_sums totals() const;

 private:
  void add_pair(double x, double y);
  void add_exact_double(double v, double magnitude_term);
  void add_slow(double x, double y);
  void count(std::uint64_t added);

  fixed_point_sum sum_;
  fixed_point_sum abs_sum_;
  mpfr_number slow_sum_;
  mpfr_number slow_abs_sum_;
  std::uint64_t n_ = 0;
  std::uint64_t since_carry_ = 0;
  std::uint64_t nans_ = 0;  // a NaN operand, or Inf times 0
  std::uint64_t positive_infinities_ = 0;
  std::uint64_t negative_infinities_ = 0;
  bool all_negative_zero_ = true;  // every product is -0 (or there are none): the IEEE sum is then -0
};

/// sum x_i y_i exactly; x and y have the same length. 16-bit inputs are widened exactly to float first.
exact_sums exact_dot(std::span<const double> x, std::span<const double> y);
exact_sums exact_dot(std::span<const float> x, std::span<const float> y);
exact_sums exact_dot(std::span<const float16> x, std::span<const float16> y);
exact_sums exact_dot(std::span<const bfloat16> x, std::span<const bfloat16> y);

/// sum x_i^2 exactly (sum and abs_sum are equal; kind: NaN for a NaN, +Inf for an infinite element).
exact_sums exact_sum_of_squares(std::span<const double> x);
exact_sums exact_sum_of_squares(std::span<const float> x);

}  // namespace detred::verify
