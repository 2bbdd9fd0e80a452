// SPDX-License-Identifier: BSD-3-Clause
// The oracles of dot, nrm2, asum, mean, the variances, the selections and the integer sums, against hand-derived
// exact values and a slow MPFR loop that is exact by construction.
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include <gtest/gtest.h>
#include <mpfr.h>

#include "../test_data.hpp"
#include "detred/detred.hpp"
#include "exact_products.hpp"
#include "integer_sums.hpp"
#include "moments.hpp"
#include "norm_check.hpp"
#include "oracle.hpp"
#include "selection.hpp"

namespace detred::verify {
namespace {

using detred::testing::bits;

constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double nan = std::numeric_limits<double>::quiet_NaN();
constexpr double dbl_max = std::numeric_limits<double>::max();
constexpr double dbl_tiny = std::numeric_limits<double>::denorm_min();

template <class T>
exact_sums dot(std::vector<T> x, std::vector<T> y) {
  return exact_dot(std::span<const T>(x), std::span<const T>(y));
}

template <class T>
exact_sums squares(std::vector<T> x) {
  return exact_sum_of_squares(std::span<const T>(x));
}

// True if x equals m * 2^e exactly.
bool equals(const mpfr_number& x, long m, long e) {
  mpfr_number expected(64);
  mpfr_set_si_2exp(expected.get(), m, e, MPFR_RNDN);
  return mpfr_equal_p(x.get(), expected.get()) != 0;
}

TEST(OracleDot, TwoProductErrorsAreKept) {
  // (1 + 2^-30)^2 = 1 + 2^-29 + 2^-60 needs 61 bits: its double rounds to 1 + 2^-29, and only the exact product error
  // 2^-60 survives the cancellation.
  const double a = 1 + 0x1p-30;
  const exact_sums s = dot<double>({a, -1.0}, {a, 1 + 0x1p-29});
  EXPECT_TRUE(equals(s.sum, 1, -60)) << to_decimal(s.sum);
  EXPECT_EQ(bits(correctly_rounded<double>(s)), bits(0x1p-60));
  EXPECT_EQ(a * a - (1 + 0x1p-29), 0.0) << "the rounded products must cancel, or this test shows nothing";
  // sum |x y| = (1 + 2^-30)^2 + 1 + 2^-29, exactly.
  mpfr_number expected(200);
  mpfr_set_d(expected.get(), a, MPFR_RNDN);
  mpfr_sqr(expected.get(), expected.get(), MPFR_RNDN);
  mpfr_add_d(expected.get(), expected.get(), 1 + 0x1p-29, MPFR_RNDN);
  EXPECT_TRUE(mpfr_equal_p(s.abs_sum.get(), expected.get()));
}

TEST(OracleDot, ProductsBelowAndAboveTheDoubleRangeAreExact) {
  // 2^-600 * 2^-600 = 2^-1200 underflows in double; the oracle keeps it (the sum 4 * 2^-1200 rounds to +0).
  const exact_sums tiny = dot<double>({0x1p-600, 3 * 0x1p-600}, {0x1p-600, 0x1p-600});
  EXPECT_TRUE(equals(tiny.sum, 1, -1198));
  EXPECT_EQ(bits(correctly_rounded<double>(tiny)), bits(0.0));
  // A product of subnormals: 2^-1074 * 2^-1074 = 2^-2148, the smallest a product can be.
  EXPECT_TRUE(equals(dot<double>({dbl_tiny}, {dbl_tiny}).sum, 1, -2148));
  // 1e300 * 1e300 overflows double but is finite: the exact kind is finite and rounds to +Inf.
  const exact_sums big = dot<double>({1e300, 1e300}, {1e300, -1e300});
  EXPECT_EQ(big.kind, exact_kind::finite);
  EXPECT_TRUE(mpfr_zero_p(big.sum.get()));
  const exact_sums huge = dot<double>({dbl_max, 2.0}, {dbl_max, 1.0});
  EXPECT_EQ(bits(correctly_rounded<double>(huge)), bits(inf));
  // The largest and smallest products side by side: DBL_MAX^2 - DBL_MAX^2 + 2^-2148.
  const exact_sums wide = dot<double>({dbl_max, dbl_max, dbl_tiny}, {dbl_max, -dbl_max, dbl_tiny});
  EXPECT_TRUE(equals(wide.sum, 1, -2148));
  // float products are exact in double and never overflow or underflow it.
  const exact_sums f = dot<float>({0x1p100f, -0x1p100f, 0x1p-149f}, {0x1p100f, 0x1p100f, 0x1p-149f});
  EXPECT_TRUE(equals(f.sum, 1, -298));
}

TEST(OracleDot, NonFiniteProductsFollowIeee) {
  EXPECT_EQ(dot<double>({inf, 1.0}, {0.0, 1.0}).kind, exact_kind::nan);  // Inf * 0
  EXPECT_EQ(dot<double>({inf, -inf}, {1.0, 1.0}).kind, exact_kind::nan);
  EXPECT_EQ(dot<double>({inf, -inf}, {1.0, -1.0}).kind, exact_kind::positive_infinity);
  EXPECT_EQ(dot<double>({inf}, {-2.0}).kind, exact_kind::negative_infinity);
  EXPECT_EQ(dot<double>({1.0, nan}, {1.0, 0.0}).kind, exact_kind::nan);
  // 1e300 * 1e300 is not an infinity: only an infinite operand makes an infinite product.
  EXPECT_EQ(dot<double>({1e300}, {1e300}).kind, exact_kind::finite);
}

TEST(OracleDot, TheSignOfAZeroDotProduct) {
  EXPECT_EQ(bits(correctly_rounded<double>(dot<double>({}, {}))), bits(-0.0));
  EXPECT_EQ(bits(correctly_rounded<double>(dot<double>({-0.0, 0.0}, {1.0, -1.0}))), bits(-0.0));
  EXPECT_EQ(bits(correctly_rounded<double>(dot<double>({-0.0, 0.0}, {1.0, 1.0}))), bits(0.0));
  EXPECT_EQ(bits(correctly_rounded<double>(dot<double>({2.0, 2.0}, {1.0, -1.0}))), bits(0.0));
  EXPECT_EQ(bits(correctly_rounded<float>(dot<float>({-1.0f}, {0.0f}))), bits(-0.0f));
}

// A slow loop that is exact by construction: each product at 106 bits, each sum at 4600 bits (products of doubles
// are multiples of 2^-2148 below 2^2048, so no sum of these can round), every ternary value checked.
template <class T>
void expect_dot_matches_slow_loop(const std::vector<T>& x, const std::vector<T>& y) {
  mpfr_number sum(4600), abs_sum(4600), product(106);
  mpfr_set_zero(sum.get(), 1);
  mpfr_set_zero(abs_sum.get(), 1);
  for (std::size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(mpfr_set_d(product.get(), static_cast<double>(x[i]), MPFR_RNDN), 0);
    ASSERT_EQ(mpfr_mul_d(product.get(), product.get(), static_cast<double>(y[i]), MPFR_RNDN), 0);
    ASSERT_EQ(mpfr_add(sum.get(), sum.get(), product.get(), MPFR_RNDN), 0);
    mpfr_abs(product.get(), product.get(), MPFR_RNDN);
    ASSERT_EQ(mpfr_add(abs_sum.get(), abs_sum.get(), product.get(), MPFR_RNDN), 0);
  }
  const exact_sums s = exact_dot(std::span<const T>(x), std::span<const T>(y));
  EXPECT_TRUE(mpfr_equal_p(s.sum.get(), sum.get())) << to_decimal(s.sum, 40) << " vs " << to_decimal(sum, 40);
  EXPECT_TRUE(mpfr_equal_p(s.abs_sum.get(), abs_sum.get()));
}

TEST(OracleDot, MatchesASlowExactLoopOnEveryFiniteValueClass) {
  using detred::testing::values;
  for (values v : {values::uniform, values::dynamic_range, values::ill_conditioned, values::subnormal,
                   values::signed_zeros, values::overflowing}) {
    for (std::uint64_t n : {1ULL, 7ULL, 1000ULL, 20001ULL}) {
      SCOPED_TRACE(detred::testing::name(v) + " n=" + std::to_string(n));
      // dynamic_range times dynamic_range covers products from far below to far above the double range.
      expect_dot_matches_slow_loop(detred::testing::generate<double>(v, n, 42 + n),
                                   detred::testing::generate<double>(values::dynamic_range, n, 77 + n));
      expect_dot_matches_slow_loop(detred::testing::generate<float>(v, n, 43 + n),
                                   detred::testing::generate<float>(values::dynamic_range, n, 78 + n));
    }
  }
}

TEST(OracleDot, SixteenBitInputsAreTheirFloatValues) {
  const std::vector<float16> h = {float16{0x3c00}, float16{0xc000}, float16{0x0001},
                                  float16{0x7bff}};  // 1 -2 2^-24 65504
  const std::vector<bfloat16> b = {bfloat16{0x3f80}, bfloat16{0x4040}, bfloat16{0x0001}, bfloat16{0x7f7f}};
  std::vector<float> hf, bf;
  for (auto v : h) hf.push_back(detred::to_float(v));
  for (auto v : b) bf.push_back(detred::to_float(v));
  const exact_sums hh = exact_dot(std::span<const float16>(h), std::span<const float16>(h));
  EXPECT_TRUE(mpfr_equal_p(hh.sum.get(), dot(hf, hf).sum.get()));
  const exact_sums bb = exact_dot(std::span<const bfloat16>(b), std::span<const bfloat16>(b));
  EXPECT_TRUE(mpfr_equal_p(bb.sum.get(), dot(bf, bf).sum.get()));
  // 2^-24 squared is 2^-48, kept exactly.
  EXPECT_TRUE(equals(dot<float>({hf[2]}, {hf[2]}).sum, 1, -48));
}

TEST(OracleNrm2, ExactNormsNearOverflowAndUnderflow) {
  // 3-4-5 triangles at both ends of the range: the squares leave double's range, the norms do not.
  for (double scale : {0x1p600, 0x1p-600, 0x1p-1074, 1.0}) {
    const exact_sums s = squares<double>({3 * scale, -4 * scale});
    EXPECT_EQ(bits(correctly_rounded_nrm2_f64(s)), bits(5 * scale)) << scale;
    EXPECT_EQ(assess_nrm2(s, 5 * scale, mode::tree).status, verdict::within_bound) << scale;
    EXPECT_EQ(assess_nrm2(s, 5 * scale, mode::compensated).status, verdict::within_bound) << scale;
    EXPECT_TRUE(mpfr_zero_p(assess_nrm2(s, 5 * scale, mode::tree).error.get())) << "an exact result has no error";
  }
  // float: 3e38 and 1e-38 scales.
  const exact_sums f = squares<float>({3 * 0x1p100f, 4 * 0x1p100f});
  EXPECT_EQ(bits(correctly_rounded_nrm2_f32(f)), bits(5 * 0x1p100f));
  const exact_sums g = squares<float>({3 * 0x1p-149f, 4 * 0x1p-149f});
  EXPECT_EQ(bits(correctly_rounded_nrm2_f32(g)), bits(5 * 0x1p-149f));
  // [1e200, 1e200]: sqrt(2) 1e200, correctly rounded (the double nearest to it, from 200 bits).
  mpfr_number root(200);
  mpfr_set_d(root.get(), 1e200, MPFR_RNDN);
  mpfr_mul_d(root.get(), root.get(), 1e200, MPFR_RNDN);
  mpfr_mul_ui(root.get(), root.get(), 2, MPFR_RNDN);
  mpfr_sqrt(root.get(), root.get(), MPFR_RNDN);
  EXPECT_EQ(bits(correctly_rounded_nrm2_f64(squares<double>({1e200, 1e200}))), bits(mpfr_get_d(root.get(), MPFR_RNDN)));
}

TEST(OracleNrm2, TheBoundCatchesAFewUlpsAndTheSpecialCases) {
  const exact_sums s = squares<double>({3.0, 4.0});
  double off = 5.0;
  EXPECT_EQ(assess_nrm2(s, off, mode::compensated).status, verdict::within_bound);
  // 8 ulps of 5 are 64 u, twice compensated mode's bound of about 6.5 u * 5.
  for (int k = 0; k < 8; ++k) off = std::nextafter(off, 10.0);
  EXPECT_EQ(assess_nrm2(s, off, mode::compensated).status, verdict::bound_violated);
  EXPECT_EQ(assess_nrm2(squares<double>({1.0, nan}), nan, mode::tree).status, verdict::special_match);
  EXPECT_EQ(assess_nrm2(squares<double>({1.0, -inf}), inf, mode::tree).status, verdict::special_match);
  EXPECT_EQ(assess_nrm2(squares<double>({1.0, -inf}), 1.0, mode::tree).status, verdict::special_mismatch);
  EXPECT_EQ(assess_nrm2(squares<double>({1.0}), inf, mode::tree).status, verdict::overflow);
  // The empty norm is +0 and exact.
  EXPECT_EQ(bits(correctly_rounded_nrm2_f64(squares<double>({}))), bits(0.0));
  EXPECT_EQ(assess_nrm2(squares<double>({}), 0.0, mode::tree).status, verdict::within_bound);
}

TEST(OracleAsum, IsTheSumOfMagnitudesWithItsOwnSpecialValues) {
  const std::vector<double> x = {1.5, -2.5, -0.0};
  const exact_sums a = exact_asum(std::span<const double>(x));
  EXPECT_TRUE(equals(a.sum, 4, 0));
  EXPECT_TRUE(mpfr_equal_p(a.sum.get(), a.abs_sum.get()));
  const std::vector<double> zeros = {-0.0, -0.0};
  EXPECT_EQ(bits(correctly_rounded<double>(exact_asum(std::span<const double>(zeros)))), bits(0.0));
  EXPECT_EQ(bits(correctly_rounded<double>(exact_asum(std::span<const double>()))), bits(-0.0));
  const std::vector<double> infs = {inf, -inf};
  EXPECT_EQ(exact_asum(std::span<const double>(infs)).kind, exact_kind::positive_infinity);
  const std::vector<double> nans = {-inf, nan};
  EXPECT_EQ(exact_asum(std::span<const double>(nans)).kind, exact_kind::nan);
  // The bound is relative: gamma_6 * 4 (D(3) = 6) lets one ulp of 4 (2^-50) pass, not 2^-40.
  EXPECT_EQ(assess(bounded_op::asum, a, 4.0, mode::tree).status, verdict::within_bound);
  EXPECT_EQ(assess(bounded_op::asum, a, 4.0 + 0x1p-50, mode::tree).status, verdict::within_bound);
  EXPECT_EQ(assess(bounded_op::asum, a, 4.0 + 0x1p-40, mode::tree).status, verdict::bound_violated);
}

TEST(OracleMean, ExactMeansAndTheBound) {
  const std::vector<double> x = {1.0, 2.0, 3.0, 4.0};
  const exact_sums s = exact_sum(std::span<const double>(x));
  EXPECT_EQ(bits(correctly_rounded_mean_f64(s)), bits(2.5));
  EXPECT_EQ(assess_mean(s, 2.5, mode::tree).status, verdict::within_bound);
  EXPECT_TRUE(mpfr_zero_p(assess_mean(s, 2.5, mode::tree).error.get()));
  EXPECT_EQ(assess_mean(s, 2.5 + 0x1p-30, mode::tree).status, verdict::bound_violated);
  // 0.1 + 0.2 + 0.3 over 3: the correctly rounded mean of the exact sum of the three doubles.
  const std::vector<double> tenths = {0.1, 0.2, 0.3};
  const exact_sums t = exact_sum(std::span<const double>(tenths));
  mpfr_number mean(300);
  mpfr_div_ui(mean.get(), t.sum.get(), 3, MPFR_RNDN);
  EXPECT_EQ(bits(correctly_rounded_mean_f64(t)), bits(mpfr_get_d(mean.get(), MPFR_RNDN)));
  // Specials: no elements, NaN, infinity, and the sign of a zero mean.
  const exact_sums empty = exact_sum(std::span<const double>());
  EXPECT_TRUE(std::isnan(correctly_rounded_mean_f64(empty)));
  EXPECT_EQ(assess_mean(empty, nan, mode::tree).status, verdict::special_match);
  EXPECT_EQ(assess_mean(empty, 0.0, mode::tree).status, verdict::special_mismatch);
  const std::vector<double> with_inf = {1.0, -inf};
  EXPECT_EQ(assess_mean(exact_sum(std::span<const double>(with_inf)), -inf, mode::tree).status, verdict::special_match);
  const std::vector<double> negative_zeros = {-0.0, -0.0};
  EXPECT_EQ(bits(correctly_rounded_mean_f64(exact_sum(std::span<const double>(negative_zeros)))), bits(-0.0));
}

TEST(OracleMean, FloatCountsAbove2To24RoundAndTheBoundSaysSo) {
  // n = 2^24 + 1 is not a float; the factor grows by about one u.
  const error_bound exact_n = detred::bound<float>(bounded_op::mean, std::uint64_t{1} << 24, mode::tree);
  const error_bound rounded_n = detred::bound<float>(bounded_op::mean, (std::uint64_t{1} << 24) + 1, mode::tree);
  const double u = static_cast<double>(std::numeric_limits<float>::epsilon()) / 2;
  EXPECT_GE(exact_n.result_factor, u);
  EXPECT_LT(exact_n.result_factor, 1.01 * u);
  EXPECT_GT(rounded_n.result_factor, 1.9 * exact_n.result_factor);
  // Counts with few significant bits are exact in float whatever their size.
  EXPECT_EQ(detred::bound<float>(bounded_op::mean, std::uint64_t{1} << 40, mode::tree).result_factor,
            exact_n.result_factor);
}

TEST(OracleMoments, VariancesAndStandardDeviationsAreCheckedAgainstTheirBound) {
  const std::vector<double> x = {1.0, 2.0, 3.0, 4.0};
  const exact_moments m = exact_moments_of(std::span<const double>(x));
  EXPECT_EQ(bits(correctly_rounded_moment_f64(moment::variance, m)), bits(1.25));
  EXPECT_EQ(bits(correctly_rounded_moment_f64(moment::sample_variance, m)), bits(5.0 / 3.0));
  EXPECT_EQ(bits(correctly_rounded_moment_f64(moment::stddev, m)), bits(std::sqrt(1.25)));
  EXPECT_EQ(bits(correctly_rounded_moment_f64(moment::sample_stddev, m)), bits(std::sqrt(5.0 / 3.0)));
  const assessment a = assess_moment(moment::variance, m, 1.25);
  EXPECT_EQ(a.status, verdict::within_bound);
  EXPECT_EQ(a.error_ulps, 0.0);
  const assessment off = assess_moment(moment::variance, m, std::nextafter(1.25, 2.0));
  EXPECT_EQ(off.error_ulps, 1.0);
  EXPECT_EQ(off.status, verdict::within_bound);
  // The bound is gamma_K n R^2 (K = variance_error_terms(4) = 122 for double) scaled: far off fails it.
  EXPECT_EQ(assess_moment(moment::variance, m, 1.25 * (1 + 1e-10)).status, verdict::bound_violated);
  EXPECT_EQ(assess_moment(moment::stddev, m, std::sqrt(1.25) * (1 + 1e-6)).status, verdict::bound_violated);
  EXPECT_EQ(assess_moment(moment::sample_variance, m, 5.0 / 3.0 * (1 + 1e-14)).status, verdict::within_bound);
  // Without min and max the variance is only measured.
  exact_moments unknown = exact_moments_of(std::span<const double>(x));
  unknown.min = unknown.max = nan;
  EXPECT_EQ(assess_moment(moment::variance, unknown, 1.25 * (1 + 1e-10)).status, verdict::measured);
  // Large common offsets: the exact variance of 1e9 + {1, 2, 3} is 2/3.
  const std::vector<double> shifted = {1e9 + 1, 1e9 + 2, 1e9 + 3};
  EXPECT_EQ(bits(correctly_rounded_moment_f64(moment::variance, exact_moments_of(std::span<const double>(shifted)))),
            bits(2.0 / 3.0));
  // NaN where the rules require it.
  const std::vector<double> one = {7.0};
  const exact_moments single = exact_moments_of(std::span<const double>(one));
  EXPECT_EQ(bits(correctly_rounded_moment_f64(moment::variance, single)), bits(0.0));
  EXPECT_TRUE(std::isnan(correctly_rounded_moment_f64(moment::sample_variance, single)));
  EXPECT_EQ(assess_moment(moment::sample_stddev, single, nan).status, verdict::special_match);
  EXPECT_EQ(assess_moment(moment::sample_stddev, single, 0.0).status, verdict::special_mismatch);
  const std::vector<double> with_inf = {1.0, inf};
  EXPECT_EQ(assess_moment(moment::variance, exact_moments_of(std::span<const double>(with_inf)), nan).status,
            verdict::special_match);
}

TEST(OracleSelection, NanSignedZerosAndTies) {
  const double payload = std::bit_cast<double>(std::uint64_t{0xfff0000000000123});  // a negative NaN with a payload
  const std::vector<double> x = {3.0, -0.0, 0.0, -1.0, -1.0, 5.0, 5.0};
  const std::span<const double> s(x);
  EXPECT_EQ(oracle_argmin(s), 3U);
  EXPECT_EQ(oracle_argmax(s), 5U);
  EXPECT_EQ(bits(oracle_min(s)), bits(-1.0));
  const std::vector<double> zeros = {0.0, -0.0, 0.0, -0.0};
  EXPECT_EQ(oracle_argmin(std::span<const double>(zeros)), 1U);
  EXPECT_EQ(oracle_argmax(std::span<const double>(zeros)), 0U);
  EXPECT_EQ(bits(oracle_min(std::span<const double>(zeros))), bits(-0.0));
  EXPECT_EQ(bits(oracle_max(std::span<const double>(zeros))), bits(0.0));
  const std::vector<double> nans = {1.0, payload, -inf, nan};
  EXPECT_EQ(oracle_argmin(std::span<const double>(nans)), 1U);
  EXPECT_EQ(oracle_argmax(std::span<const double>(nans)), 1U);
  EXPECT_EQ(bits(oracle_min(std::span<const double>(nans))), std::uint64_t{0x7ff8000000000000});
  const std::vector<std::int32_t> ints = {5, 2, 9, 2, 9};
  EXPECT_EQ(oracle_argmin(std::span<const std::int32_t>(ints)), 1U);
  EXPECT_EQ(oracle_argmax(std::span<const std::int32_t>(ints)), 2U);
  const std::vector<float> floats = {-0.0f, std::numeric_limits<float>::denorm_min(), -0.0f};
  EXPECT_EQ(oracle_argmax(std::span<const float>(floats)), 1U);
}

TEST(OracleIntegers, ExactSumsAndWhetherTheyFit) {
  constexpr std::int64_t max64 = std::numeric_limits<std::int64_t>::max();
  const std::vector<std::int64_t> over = {max64, 1};
  EXPECT_EQ(exact_integer(std::span<const std::int64_t>(over)).decimal, "9223372036854775808");
  EXPECT_FALSE(exact_integer(std::span<const std::int64_t>(over)).fits);
  const std::vector<std::int64_t> back = {max64, 1, max64, -max64, -1};
  const exact_integer_sum b = exact_integer(std::span<const std::int64_t>(back));
  EXPECT_TRUE(b.fits);
  EXPECT_EQ(b.bits, static_cast<std::uint64_t>(max64));
  const std::vector<std::int32_t> negative = {-5, 3};
  EXPECT_EQ(exact_integer(std::span<const std::int32_t>(negative)).bits, static_cast<std::uint64_t>(-2LL));
  const std::vector<std::uint64_t> wrap = {std::numeric_limits<std::uint64_t>::max(), 1};
  EXPECT_EQ(exact_integer(std::span<const std::uint64_t>(wrap)).decimal, "18446744073709551616");
  EXPECT_FALSE(exact_integer(std::span<const std::uint64_t>(wrap)).fits);
  const std::vector<std::int64_t> lowest = {std::numeric_limits<std::int64_t>::min()};
  EXPECT_TRUE(exact_integer(std::span<const std::int64_t>(lowest)).fits);
  EXPECT_EQ(exact_integer(std::span<const std::int64_t>(lowest)).decimal, "-9223372036854775808");
  const std::vector<std::uint32_t> many(100000, 0xffffffffU);
  EXPECT_EQ(exact_integer(std::span<const std::uint32_t>(many)).bits, 100000ULL * 0xffffffffULL);
}

}  // namespace
}  // namespace detred::verify
