// SPDX-License-Identifier: BSD-3-Clause
// The oracle against hand-derived exact sums, and against a slow, obviously exact MPFR loop.
#include <bit>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include <gtest/gtest.h>
#include <mpfr.h>

#include "../test_data.hpp"
#include "detred/detred.hpp"
#include "exact_accumulator.hpp"
#include "oracle.hpp"

namespace detred::verify {
namespace {

using detred::testing::bits;

constexpr double dbl_max = std::numeric_limits<double>::max();
constexpr double dbl_tiny = std::numeric_limits<double>::denorm_min();  // 2^-1074
constexpr float flt_tiny = std::numeric_limits<float>::denorm_min();    // 2^-149

template <class T>
exact_sums exact(std::vector<T> x) {
  return exact_sum(std::span<const T>(x));
}

// True if x equals m * 2^e exactly (m a signed 64-bit integer).
bool equals(const mpfr_number& x, long m, long e) {
  mpfr_number expected(64);
  mpfr_set_si_2exp(expected.get(), m, e, MPFR_RNDN);
  return mpfr_equal_p(x.get(), expected.get()) != 0;
}

TEST(Oracle, CancellationOfLargeTermsLeavesTheSmallOne) {
  // 1e16 = 2^16 * 152587890625 is a double; 1e16 + 1 is not, so any double sum in this order loses the 1.
  const exact_sums s = exact<double>({1e16, 1.0, -1e16});
  EXPECT_TRUE(equals(s.sum, 1, 0));
  EXPECT_EQ(mpfr_cmp_ui(s.abs_sum.get(), 20000000000000001UL), 0);
  EXPECT_EQ(bits(correctly_rounded<double>(s)), bits(1.0));
  EXPECT_EQ((1e16 + 1.0) - 1e16, 0.0) << "the naive sum must lose the 1, or this test shows nothing";
}

TEST(Oracle, FloatCancellation) {
  const exact_sums s = exact<float>({1e8f, 1.0f, -1e8f, 0.5f});  // 1e8 = 2^8 * 390625 is a float
  EXPECT_TRUE(equals(s.sum, 3, -1));
  EXPECT_EQ(bits(correctly_rounded<float>(s)), bits(1.5f));
}

TEST(Oracle, RoundsTiesToEvenAndBreaksTiesWithTinyTerms) {
  const double two53 = 9007199254740992.0;  // 2^53
  const exact_sums tie = exact<double>({two53, 1.0});
  EXPECT_TRUE(equals(tie.sum, (1L << 53) + 1, 0));
  EXPECT_EQ(bits(correctly_rounded<double>(tie)), bits(two53));  // halfway: to even
  const exact_sums above = exact<double>({two53, 1.0, dbl_tiny});
  EXPECT_EQ(bits(correctly_rounded<double>(above)), bits(two53 + 2.0));  // just above halfway: up
  const exact_sums below = exact<double>({two53, 1.0, -dbl_tiny});
  EXPECT_EQ(bits(correctly_rounded<double>(below)), bits(two53));
}

TEST(Oracle, SumsOfSubnormalsAreExact) {
  const exact_sums three = exact<double>({dbl_tiny, dbl_tiny, dbl_tiny});
  EXPECT_TRUE(equals(three.sum, 3, -1074));
  EXPECT_EQ(bits(correctly_rounded<double>(three)), std::uint64_t{3});

  // The largest float subnormal plus the smallest: exactly the smallest normal float, 2^-126.
  const float max_subnormal = std::bit_cast<float>(std::uint32_t{0x007fffff});
  const exact_sums to_normal = exact<float>({max_subnormal, flt_tiny});
  EXPECT_TRUE(equals(to_normal.sum, 1, -126));
  EXPECT_EQ(bits(correctly_rounded<float>(to_normal)), std::uint32_t{0x00800000});

  // Half of the smallest float subnormal is a tie between 0 and 2^-149: to even, i.e. 0. Three halves: 2 * 2^-149.
  EXPECT_EQ(bits(correctly_rounded<float>(exact<float>({flt_tiny, -flt_tiny, flt_tiny}))), std::uint32_t{1});
  mpfr_number half_tiny(64);
  mpfr_set_si_2exp(half_tiny.get(), 1, -150, MPFR_RNDN);
  exact_sums manual;
  manual.sum = half_tiny;
  EXPECT_EQ(bits(correctly_rounded<float>(manual)), std::uint32_t{0});
  mpfr_set_si_2exp(half_tiny.get(), 3, -150, MPFR_RNDN);
  manual.sum = half_tiny;
  EXPECT_EQ(bits(correctly_rounded<float>(manual)), std::uint32_t{2});
}

TEST(Oracle, CancellationToExactlyZeroAndTheSignOfZero) {
  const exact_sums zero = exact<double>({0.1, 0.2, -0.1, -0.2});
  EXPECT_TRUE(mpfr_zero_p(zero.sum.get()));
  EXPECT_EQ(bits(correctly_rounded<double>(zero)), bits(0.0));
  EXPECT_EQ(bits(correctly_rounded<double>(exact<double>({-0.0, -0.0}))), bits(-0.0));
  EXPECT_EQ(bits(correctly_rounded<double>(exact<double>({}))), bits(-0.0));
  EXPECT_EQ(bits(correctly_rounded<float>(exact<float>({-0.0f, 0.0f}))), bits(0.0f));
  EXPECT_EQ(bits(correctly_rounded<double>(exact<double>({-1.0, 1.0}))), bits(0.0));
}

TEST(Oracle, OverflowingPartialSumsThatCancelBack) {
  // Any left-to-right double sum of this overflows to +Inf; the exact sum is 1.
  const exact_sums s = exact<double>({dbl_max, dbl_max, -dbl_max, -dbl_max, 1.0});
  EXPECT_TRUE(equals(s.sum, 1, 0));
  EXPECT_EQ(bits(correctly_rounded<double>(s)), bits(1.0));
  // 2 * DBL_MAX is exact in the oracle and rounds to +Inf.
  const exact_sums over = exact<double>({dbl_max, dbl_max});
  mpfr_number twice(64);
  mpfr_set_d(twice.get(), dbl_max, MPFR_RNDN);
  mpfr_mul_2ui(twice.get(), twice.get(), 1, MPFR_RNDN);
  EXPECT_TRUE(mpfr_equal_p(over.sum.get(), twice.get()));
  EXPECT_EQ(bits(correctly_rounded<double>(over)), bits(std::numeric_limits<double>::infinity()));
  // The full range at once: the largest and the smallest magnitudes survive side by side.
  const exact_sums wide = exact<double>({dbl_max, dbl_tiny, -dbl_max});
  EXPECT_TRUE(equals(wide.sum, 1, -1074));
}

TEST(Oracle, NonFiniteInputsFollowIeee) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(exact<double>({1.0, inf}).kind, exact_kind::positive_infinity);
  EXPECT_EQ(exact<double>({-inf, 1.0}).kind, exact_kind::negative_infinity);
  EXPECT_EQ(exact<double>({inf, -inf}).kind, exact_kind::nan);
  EXPECT_EQ(exact<double>({1.0, std::numeric_limits<double>::quiet_NaN()}).kind, exact_kind::nan);
  // Finite elements still sum exactly next to them.
  EXPECT_TRUE(equals(exact<double>({2.0, inf, 3.0}).sum, 5, 0));
}

TEST(Oracle, ErrorInUlpsAndTheBoundOfASmallInput) {
  const std::vector<double> x = {1.0, 0x1p-52, 0x1p-53};  // exact sum 1 + 3 * 2^-53
  const exact_sums s = exact_sum(std::span<const double>(x));
  const assessment a = assess(s, 1.0 + 0x1p-52, mode::tree);  // 2^-53 away: half an ulp of 1
  EXPECT_EQ(a.error_ulps, 0.5);
  EXPECT_EQ(a.status, verdict::within_bound);
  // The bound is abs_sum_factor * sum|x| exactly: here no rounding is needed.
  const error_bound f = detred::bound<double>(3, mode::tree);
  mpfr_number expected(200);
  mpfr_mul_d(expected.get(), s.abs_sum.get(), f.abs_sum_factor, MPFR_RNDU);
  EXPECT_TRUE(mpfr_equal_p(a.bound.get(), expected.get()));
  EXPECT_TRUE(a.bound_exact);
  EXPECT_GE(a.bound_upper, mpfr_get_d(a.bound.get(), MPFR_RNDD));
  // A result far outside the bound must be reported as a violation.
  EXPECT_EQ(assess(s, 1.5, mode::tree).status, verdict::bound_violated);
  EXPECT_TRUE(is_failure(assess(s, 1.5, mode::compensated).status));
}

TEST(Oracle, OverflowAndNonFiniteVerdicts) {
  const double inf = std::numeric_limits<double>::infinity();
  const exact_sums over = exact<double>({dbl_max, dbl_max, -dbl_max});
  EXPECT_EQ(assess(over, inf, mode::tree).status, verdict::overflow);
  const exact_sums with_inf = exact<double>({1.0, inf});
  EXPECT_EQ(assess(with_inf, inf, mode::tree).status, verdict::special_match);
  EXPECT_EQ(assess(with_inf, -inf, mode::tree).status, verdict::special_mismatch);
  EXPECT_EQ(assess(with_inf, 1.0, mode::tree).status, verdict::special_mismatch);
  const exact_sums nan = exact<double>({inf, -inf});
  EXPECT_EQ(assess(nan, std::numeric_limits<double>::quiet_NaN(), mode::tree).status, verdict::special_match);
  EXPECT_EQ(assess(nan, 0.0, mode::tree).status, verdict::special_mismatch);
}

// A slow loop that is exact by construction: every partial sum is a multiple of 2^-1074 below 2^1100, and 2400
// bits hold every such number, so no mpfr_add can round (each ternary value is checked too).
template <class T>
void expect_matches_slow_exact_loop(const std::vector<T>& x) {
  mpfr_number sum(2400), abs_sum(2400);
  mpfr_set_zero(sum.get(), 1);
  mpfr_set_zero(abs_sum.get(), 1);
  for (T v : x) {
    ASSERT_EQ(mpfr_add_d(sum.get(), sum.get(), static_cast<double>(v), MPFR_RNDN), 0);
    ASSERT_EQ(
        mpfr_add_d(abs_sum.get(), abs_sum.get(), v < 0 ? -static_cast<double>(v) : static_cast<double>(v), MPFR_RNDN),
        0);
  }
  const exact_sums s = exact_sum(std::span<const T>(x));
  EXPECT_TRUE(mpfr_equal_p(s.sum.get(), sum.get())) << to_decimal(s.sum, 40) << " vs " << to_decimal(sum, 40);
  EXPECT_TRUE(mpfr_equal_p(s.abs_sum.get(), abs_sum.get()));
}

TEST(Oracle, MatchesASlowExactLoopOnEveryFiniteValueClass) {
  using detred::testing::values;
  for (values v : {values::uniform, values::same_sign, values::dynamic_range, values::ill_conditioned,
                   values::subnormal, values::signed_zeros, values::overflowing}) {
    for (std::uint64_t n : {1ULL, 7ULL, 1000ULL, 30001ULL}) {
      SCOPED_TRACE(detred::testing::name(v) + " n=" + std::to_string(n));
      expect_matches_slow_exact_loop(detred::testing::generate<double>(v, n, 42 + n));
      expect_matches_slow_exact_loop(detred::testing::generate<float>(v, n, 43 + n));
    }
  }
}

// The integer a fixed-point sum holds, as MPFR (exact: 2400 bits hold any such sum).
mpfr_number value_of(const fixed_point_sum& sum) {
  fixed_point_sum copy = sum;
  mpz_t z;
  mpz_init(z);
  copy.to_mpz(z);
  mpfr_number out(2400);
  EXPECT_EQ(mpfr_set_z_2exp(out.get(), z, fixed_point_sum::unit_exponent, MPFR_RNDN), 0);
  mpz_clear(z);
  return out;
}

TEST(Oracle, OneLimbHoldsTheAdditionsBetweenCarries) {
  // DBL_MAX's 53 one-bits put nearly 2^32 into each of three limbs per addition. The header's claim: 2^30 such
  // additions fit in a limb without carry propagation. Afterwards the value must be exactly 2^30 DBL_MAX.
  fixed_point_sum sum;
  const std::uint64_t max_mantissa = (std::uint64_t{1} << 53) - 1;
  for (std::uint64_t k = 0; k < fixed_point_sum::adds_between_carries; ++k) sum.add(max_mantissa, 2045, false);
  mpfr_number expected(64);
  mpfr_set_d(expected.get(), dbl_max, MPFR_RNDN);
  mpfr_mul_2ui(expected.get(), expected.get(), 30, MPFR_RNDN);
  EXPECT_TRUE(mpfr_equal_p(value_of(sum).get(), expected.get()));
}

TEST(Oracle, CarryPropagationMidStreamChangesNothing) {
  // Propagating after every block of the stream must give the same integers as propagating only at the end.
  for (auto v : {detred::testing::values::dynamic_range, detred::testing::values::ill_conditioned,
                 detred::testing::values::overflowing}) {
    const auto x = detred::testing::generate<double>(v, 300000, 7);
    exact_accumulator rarely;
    exact_accumulator often(1);
    rarely.add(std::span<const double>(x));
    often.add(std::span<const double>(x));
    EXPECT_TRUE(mpfr_equal_p(value_of(rarely.sum()).get(), value_of(often.sum()).get()));
    EXPECT_TRUE(mpfr_equal_p(value_of(rarely.abs_sum()).get(), value_of(often.abs_sum()).get()));
  }
}

TEST(Oracle, MergedAccumulatorsEqualOneOverTheWholeStream) {
  const auto x = detred::testing::generate<double>(detred::testing::values::dynamic_range, 100001, 9);
  const std::span<const double> all(x);
  exact_accumulator whole, left, right;
  whole.add(all);
  left.add(all.first(33333));
  right.add(all.subspan(33333));
  left.merge(right);
  EXPECT_TRUE(mpfr_equal_p(value_of(whole.sum()).get(), value_of(left.sum()).get()));
  EXPECT_EQ(left.count(), whole.count());
}

}  // namespace
}  // namespace detred::verify
