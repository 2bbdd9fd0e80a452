// SPDX-License-Identifier: BSD-3-Clause
// The scans' oracle (verify/oracle/scan_check.hpp) against the library: every output of detred::cumsum and
// exclusive_cumsum within its documented bound on random and adversarial data (cancellation, a huge dynamic range,
// subnormals, special values), for float and double (and 16-bit inputs), both modes; and the check is not vacuous:
// a result moved by a few ulps at one output is caught at that output, the worst output is the one with the largest
// error/bound, and integer outputs must equal the exact prefix sums.
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "detred/detred.hpp"
#include "scan_check.hpp"

namespace detred::verify {
namespace {

/// xoshiro-free, deterministic data: a 64-bit LCG is enough to spread values here.
struct lcg {
  std::uint64_t s;
  std::uint64_t next() { return s = s * 6364136223846793005ULL + 1442695040888963407ULL; }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1p-53 * 2 - 1; }  // [-1, 1)
};

template <class T>
std::vector<T> random_values(std::size_t n, std::uint64_t seed) {
  lcg g{seed};
  std::vector<T> x(n);
  for (T& v : x) v = static_cast<T>(g.uniform());
  return x;
}

/// Pairs (big, -big) among small terms: the prefix sums cancel to the small ones again and again.
template <class T>
std::vector<T> cancelling(std::size_t n, std::uint64_t seed) {
  lcg g{seed};
  std::vector<T> x(n);
  const T big = std::is_same_v<T, double> ? T(0x1p60) : T(0x1p30);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t r = g.next() >> 60;
    x[i] = r < 4 ? (i % 2 == 0 ? big : -big) * T(1 + (r & 1)) : static_cast<T>(g.uniform());
  }
  return x;
}

/// Exponents over a wide range, random signs.
template <class T>
std::vector<T> dynamic_range(std::size_t n, std::uint64_t seed) {
  lcg g{seed};
  std::vector<T> x(n);
  const int span = std::is_same_v<T, double> ? 1800 : 200;
  for (T& v : x) {
    const int e = static_cast<int>((g.next() >> 33) % static_cast<std::uint64_t>(span)) - span / 2;
    v = std::ldexp(static_cast<T>(g.uniform()), e);
  }
  return x;
}

template <class T>
std::vector<T> subnormal(std::size_t n, std::uint64_t seed) {
  lcg g{seed};
  std::vector<T> x(n);
  for (T& v : x) v = static_cast<T>(g.uniform()) * std::numeric_limits<T>::denorm_min() * T(1 << 20);
  return x;
}

template <class T>
std::vector<T> scanned(std::span<const T> x, mode m, bool exclusive, int threads = 2) {
  std::vector<T> y(x.size());
  const options opt{.mode = m, .threads = threads};
  exclusive ? exclusive_cumsum(x, std::span<T>(y), opt) : cumsum(x, std::span<T>(y), opt);
  return y;
}

template <class T>
class ScanCheck : public ::testing::Test {};
using float_types = ::testing::Types<double, float>;
TYPED_TEST_SUITE(ScanCheck, float_types);

TYPED_TEST(ScanCheck, EveryOutputOfTheLibraryIsWithinItsBound) {
  using T = TypeParam;
  double worst_tree = 0;
  const std::size_t n = (std::size_t{1} << 14) + 333;  // several leaves of either type, a partial last one
  for (int kind = 0; kind < 4; ++kind) {
    const std::vector<T> x = kind == 0   ? random_values<T>(n, 7)
                             : kind == 1 ? cancelling<T>(n, 8)
                             : kind == 2 ? dynamic_range<T>(n, 9)
                                         : subnormal<T>(n, 10);
    for (mode m : {mode::tree, mode::compensated}) {
      for (bool exclusive : {false, true}) {
        const std::vector<T> y = scanned<T>(x, m, exclusive);
        const scan_assessment a = check_scan(std::span<const T>(x), std::span<const T>(y), m, exclusive);
        const std::string what =
            "data " + std::to_string(kind) + ", " + to_string(m) + (exclusive ? ", exclusive" : "");
        EXPECT_EQ(a.outputs, n) << what;
        EXPECT_EQ(a.failures, 0U) << what << ": worst output " << a.worst.value_or(0);
        ASSERT_TRUE(a.worst.has_value()) << what;
        EXPECT_EQ(a.at_worst.status, verdict::within_bound) << what;
        EXPECT_LE(a.at_worst.error_over_bound, 1.0) << what;
        if (m == mode::tree && kind == 1) worst_tree = std::max(worst_tree, a.at_worst.error_over_bound);
      }
    }
  }
  // Not vacuous: tree mode errs visibly on cancelling data.
  EXPECT_GT(worst_tree, 1e-6);
}

TYPED_TEST(ScanCheck, APerturbedOutputIsCaughtAtItsIndex) {
  using T = TypeParam;
  const std::size_t n = 5000;
  const std::vector<T> x = cancelling<T>(n, 11);
  for (mode m : {mode::tree, mode::compensated}) {
    std::vector<T> y = scanned<T>(x, m, false);
    ASSERT_EQ(check_scan(std::span<const T>(x), std::span<const T>(y), m, false).failures, 0U);
    // The exact prefix at 1234 is small after the big terms cancelled; move its output far beyond the bound.
    const std::size_t i = 1234;
    y[i] = y[i] + (std::abs(y[i]) + T(1)) * T(1e3);
    const scan_assessment a = check_scan(std::span<const T>(x), std::span<const T>(y), m, false);
    EXPECT_EQ(a.failures, 1U) << to_string(m);
    ASSERT_TRUE(a.worst.has_value());
    EXPECT_EQ(*a.worst, i);
    EXPECT_EQ(a.at_worst.status, verdict::bound_violated);
    EXPECT_GT(a.at_worst.error_over_bound, 1.0);
  }
}

TYPED_TEST(ScanCheck, CompensatedModeCatchesAFewUlps) {
  using T = TypeParam;
  const std::vector<T> x = random_values<T>(3000, 12);
  std::vector<T> y = scanned<T>(x, mode::compensated, false);
  // Compensated outputs are within about one ulp of the exact prefix sums: four ulps off exceeds the bound.
  using bits_t = std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>;
  const std::size_t i = 2999;
  y[i] = std::bit_cast<T>(static_cast<bits_t>(std::bit_cast<bits_t>(y[i]) + 4));
  const scan_assessment a = check_scan(std::span<const T>(x), std::span<const T>(y), mode::compensated, false);
  EXPECT_EQ(a.failures, 1U);
  EXPECT_EQ(a.worst.value_or(0), i);
}

TYPED_TEST(ScanCheck, SpecialValuesFollowIeeeOutputByOutput) {
  using T = TypeParam;
  constexpr T inf = std::numeric_limits<T>::infinity();
  const std::vector<T> x = {T(1), T(-0.0), inf, T(2), -inf, T(3), std::numeric_limits<T>::quiet_NaN(), T(4)};
  for (mode m : {mode::tree, mode::compensated}) {
    for (bool exclusive : {false, true}) {
      std::vector<T> y = scanned<T>(x, m, exclusive);
      scan_assessment a = check_scan(std::span<const T>(x), std::span<const T>(y), m, exclusive);
      EXPECT_EQ(a.failures, 0U);
      EXPECT_EQ(a.specials, exclusive ? 5U : 6U);  // from the first Inf on
      y[exclusive ? 4 : 3] = T(5);                 // a finite output where +Inf is required
      a = check_scan(std::span<const T>(x), std::span<const T>(y), m, exclusive);
      EXPECT_EQ(a.failures, 1U);
      EXPECT_EQ(a.at_worst.status, verdict::special_mismatch);
    }
  }
  // An overflowing finite prefix is reported, not failed (the bound excludes it).
  const std::vector<T> big = {std::numeric_limits<T>::max(), std::numeric_limits<T>::max(), T(1)};
  const std::vector<T> y = scanned<T>(big, mode::tree, false);
  const scan_assessment a = check_scan(std::span<const T>(big), std::span<const T>(y), mode::tree, false);
  EXPECT_EQ(a.failures, 0U);
  EXPECT_EQ(a.overflows, 2U);
}

TEST(ScanCheck, ExclusiveOutputZeroMustBeZero) {
  const std::vector<double> x = {1.5, 2.5};
  std::vector<double> y = scanned<double>(x, mode::tree, true);
  EXPECT_EQ(check_scan(std::span<const double>(x), std::span<const double>(y), mode::tree, true).failures, 0U);
  y[0] = 0x1p-1074;
  const scan_assessment a = check_scan(std::span<const double>(x), std::span<const double>(y), mode::tree, true);
  EXPECT_EQ(a.failures, 1U);
  EXPECT_EQ(a.worst.value_or(1), 0U);
}

TEST(ScanCheck, SixteenBitInputsAreWidened) {
  std::vector<float16> x(5000);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float16>(0x3c00 + (i * 37) % 700);  // [1, 2)
  for (mode m : {mode::tree, mode::compensated}) {
    std::vector<float> y(x.size());
    cumsum(std::span<const float16>(x), std::span<float>(y), {.mode = m});
    scan_assessment a = check_scan(std::span<const float16>(x), std::span<const float>(y), m, false);
    EXPECT_EQ(a.failures, 0U);
    y[4000] *= 1.001F;
    a = check_scan(std::span<const float16>(x), std::span<const float>(y), m, false);
    EXPECT_EQ(a.failures, 1U);
  }
}

TEST(ScanCheck, IntegerOutputsEqualTheExactPrefixSums) {
  const std::vector<std::int64_t> x = {5, -3, std::numeric_limits<std::int64_t>::max(), -10, 7};
  std::vector<std::int64_t> y(x.size());
  // The exact prefix at output 2 exceeds int64: the library refuses, the oracle names that output.
  EXPECT_THROW(cumsum(std::span<const std::int64_t>(x), std::span<std::int64_t>(y)), overflow_error);
  integer_scan_assessment a = check_integer_scan(std::span<const std::int64_t>(x), std::nullopt, false);
  EXPECT_EQ(a.first_unfit.value_or(99), 2U);
  const std::vector<std::int32_t> small = {1, -2, 3, -4, 5};
  std::vector<std::int64_t> z(small.size());
  exclusive_cumsum(std::span<const std::int32_t>(small), std::span<std::int64_t>(z));
  a = check_integer_scan(std::span<const std::int32_t>(small), std::span<const std::int64_t>(z), true);
  EXPECT_FALSE(a.first_difference.has_value());
  EXPECT_FALSE(a.first_unfit.has_value());
  z[3] += 1;
  a = check_integer_scan(std::span<const std::int32_t>(small), std::span<const std::int64_t>(z), true);
  EXPECT_EQ(a.first_difference.value_or(99), 3U);
  const std::vector<std::uint64_t> u = {~std::uint64_t{0}, 1};
  a = check_integer_scan(std::span<const std::uint64_t>(u), std::nullopt, true);  // the total is no output
  EXPECT_FALSE(a.first_unfit.has_value());
}

}  // namespace
}  // namespace detred::verify
