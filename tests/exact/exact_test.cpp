// SPDX-License-Identifier: BSD-3-Clause
// Exact mode against the MPFR oracle: the correctly rounded sum, |x| sum, dot product and norm (the square root of the
// exact sum of squares, rounded once) and mean (the exact sum divided by n, rounded once), bit for bit, on every
// instruction set and thread count, for every class of adversarial input, sizes around the kernel's block and vector
// boundaries, misaligned pointers and permutations of the input; and the sums and dot products of 16-bit floats.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "../op_paths.hpp"
#include "../paths.hpp"
#include "../test_data.hpp"
#include "detred/cuda.hpp"
#include "detred/detred.hpp"
#include "detred/exact/quotient.hpp"
#include "detred/exact/square_root.hpp"
#include "exact/exact_backend.hpp"
#include "exact_products.hpp"
#include "moments.hpp"
#include "norm_check.hpp"
#include "oracle.hpp"

namespace detred::testing {
namespace {

enum class op { sum, asum, dot, nrm2 };

const char* name(op o) { return o == op::sum ? "sum" : o == op::asum ? "asum" : o == op::dot ? "dot" : "nrm2"; }

template <class T>
T correctly_rounded_nrm2(const verify::exact_sums& squares) {
  if constexpr (std::is_same_v<T, double>) {
    return verify::correctly_rounded_nrm2_f64(squares);
  } else {
    return verify::correctly_rounded_nrm2_f32(squares);
  }
}

template <class T>
T oracle(op o, std::span<const T> x, std::span<const T> y) {
  if (o == op::sum) return verify::correctly_rounded<T>(verify::exact_sum(x));
  if (o == op::asum) return verify::correctly_rounded<T>(verify::exact_asum(x));
  if (o == op::nrm2) return correctly_rounded_nrm2<T>(verify::exact_sum_of_squares(x));
  return verify::correctly_rounded<T>(verify::exact_dot(x, y));
}

template <class T>
T through_api(op o, std::span<const T> x, std::span<const T> y, const options& opt) {
  if (o == op::sum) return detred::sum(x, opt);
  if (o == op::asum) return detred::asum(x, opt);
  if (o == op::nrm2) return detred::nrm2(x, opt);
  return detred::dot(x, y, opt);
}

template <class T>
exact::superaccumulator state_of(op o, std::span<const T> x, std::span<const T> y, const cpu::run_options& how) {
  if (o == op::dot) return exact_cpu::dot_state(x.data(), y.data(), x.size(), how);
  if (o == op::nrm2) return exact_cpu::dot_state(x.data(), x.data(), x.size(), how);
  return exact_cpu::sum_state(x.data(), x.size(), o == op::asum, how);
}

/// What a state becomes: rounded, or for nrm2 its square root rounded.
template <class T>
T finished(op o, const exact::superaccumulator& s) {
  return o == op::nrm2 ? exact::square_root_to<T>(s) : exact::round_to<T>(s);
}

/// Thread counts of the exact tests: fewer than the order's tests (the split cannot matter to an exact state, and
/// the merge test below covers arbitrary splits).
const std::vector<int> exact_threads = {1, 2, 3, 7};

/// Requires the oracle's correctly rounded bits from the public API and from the driver with every input split
/// among the threads, on every instruction set.
template <class T>
void expect_exact(op o, std::span<const T> x, std::span<const T> y, const std::string& what) {
  const T expected = oracle(o, x, y);
  for (isa i : supported_isas()) {
    for (int t : exact_threads) {
      const T api = through_api(o, x, y, {.mode = mode::exact, .threads = t, .isa = i});
      ASSERT_EQ(bits(api), bits(expected)) << name(o) << " " << what << " isa=" << to_string(i) << " threads=" << t
                                           << " n=" << x.size() << " got " << api << " expected " << expected;
      const T split =
          finished<T>(o, state_of(o, x, y, {.threads = t, .instruction_set = i, .parallel_threshold_bytes = 0}));
      ASSERT_EQ(bits(split), bits(expected))
          << name(o) << " " << what << " (split) isa=" << to_string(i) << " threads=" << t << " n=" << x.size();
    }
  }
}

/// Sizes around the kernel's boundaries: vectors of 2 to 8 doubles (16 floats), 4 accumulators, blocks of 1024.
std::vector<std::uint64_t> sizes() {
  return {0, 1, 2, 3, 7, 8, 9, 31, 32, 33, 63, 64, 65, 1023, 1024, 1025, 2047, 2048, 2049, 3 * 1024 + 517, 9000};
}

template <class T>
void every_class(op o) {
  std::uint64_t seed = 100;
  for (values v : all_value_classes()) {
    for (std::uint64_t n : sizes()) {
      // One more element than needed, so that the arrays can also start one element past an aligned address.
      const std::vector<T> x = generate<T>(v, n + 1, ++seed);
      const std::vector<T> y = generate<T>(v == values::overflowing ? values::uniform : v, n + 1, ++seed);
      expect_exact<T>(o, std::span<const T>(x).first(n), std::span<const T>(y).first(n), name(v));
      expect_exact<T>(o, std::span<const T>(x).subspan(1), std::span<const T>(y).subspan(1), name(v) + " misaligned");
    }
  }
}

TEST(ExactSum, EveryClassDouble) { every_class<double>(op::sum); }
TEST(ExactSum, EveryClassFloat) { every_class<float>(op::sum); }
TEST(ExactAsum, EveryClassDouble) { every_class<double>(op::asum); }
TEST(ExactAsum, EveryClassFloat) { every_class<float>(op::asum); }
TEST(ExactDot, EveryClassDouble) { every_class<double>(op::dot); }
TEST(ExactDot, EveryClassFloat) { every_class<float>(op::dot); }
TEST(ExactNrm2, EveryClassDouble) { every_class<double>(op::nrm2); }
TEST(ExactNrm2, EveryClassFloat) { every_class<float>(op::nrm2); }

/// The exact sum of squares (operation::sumsq in exact mode): the oracle's correctly rounded sum of squares.
template <class T>
void exact_sum_of_squares() {
  std::uint64_t seed = 500;
  for (values v : all_value_classes()) {
    for (std::uint64_t n : sizes()) {
      const std::vector<T> x = generate<T>(v, n, ++seed);
      const T expected = verify::correctly_rounded<T>(verify::exact_sum_of_squares(std::span<const T>(x)));
      for (int t : exact_threads) {
        const T got = reduce<operation::sumsq>(std::span<const T>(x), {.mode = mode::exact, .threads = t});
        ASSERT_EQ(bits(got), bits(expected)) << name(v) << " n=" << n << " threads=" << t;
      }
    }
  }
}

TEST(ExactSumsq, EveryClassDouble) { exact_sum_of_squares<double>(); }
TEST(ExactSumsq, EveryClassFloat) { exact_sum_of_squares<float>(); }

/// The oracle's correctly rounded quotient of the exact sum by n (which may differ from the sums' own count).
template <class T>
T correctly_rounded_mean(verify::exact_sums sums, std::uint64_t n) {
  sums.n = n;
  if constexpr (std::is_same_v<T, double>) {
    return verify::correctly_rounded_mean_f64(sums);
  } else {
    return verify::correctly_rounded_mean_f32(sums);
  }
}

/// The exact mean (operation::mean in exact mode): the oracle's correctly rounded S / n, for every class of values,
/// at sizes around the kernel's boundaries, on every instruction set and thread count, misaligned.
template <class T>
void exact_means() {
  std::uint64_t seed = 900;
  for (values v : all_value_classes()) {
    for (std::uint64_t n : sizes()) {
      const std::vector<T> x = generate<T>(v, n + 1, ++seed);
      for (std::uint64_t offset : {std::uint64_t{0}, std::uint64_t{1}}) {
        const std::span<const T> xs = std::span<const T>(x).subspan(offset, n);
        const T expected = correctly_rounded_mean<T>(verify::exact_sum(xs), n);
        for (isa i : supported_isas()) {
          for (int t : exact_threads) {
            const T got = reduce<operation::mean>(xs, {.mode = mode::exact, .threads = t, .isa = i});
            ASSERT_EQ(bits(got), bits(expected))
                << name(v) << " n=" << n << " offset=" << offset << " isa=" << to_string(i) << " threads=" << t
                << " got " << got << " expected " << expected;
          }
        }
      }
    }
  }
}

TEST(ExactMean, EveryClassDouble) { exact_means<double>(); }
TEST(ExactMean, EveryClassFloat) { exact_means<float>(); }

/// Quotients at and a hair off the midpoints between two doubles (ties go to even; a term a thousand bits below
/// decides the others), quotients below the normal range, and counts of 2^32 and beyond (the division's slow path),
/// straight from a superaccumulator: where dividing the rounded sum would be wrong.
TEST(ExactMean, MidpointsSubnormalsAndHugeCounts) {
  const auto mean_of = [](const std::vector<double>& x) {
    return reduce<operation::mean>(std::span<const double>(x), {.mode = mode::exact});
  };
  EXPECT_EQ(bits(mean_of({1.0, 1 + 0x1p-52})), bits(1.0));                          // 1 + 2^-53: a tie, to even
  EXPECT_EQ(bits(mean_of({1 + 0x1p-52, 1 + 0x1p-51})), bits(1 + 0x1p-51));          // 1 + 3 2^-53: a tie, to even
  EXPECT_EQ(bits(mean_of({2.0, 2 + 0x1p-51, 0x1p-1000, 0.0})), bits(1 + 0x1p-52));  // just above the tie
  EXPECT_EQ(bits(mean_of({2.0, 2 + 0x1p-51, -0x1p-1000, 0.0})), bits(1.0));         // just below it
  EXPECT_EQ(bits(mean_of({2.0, 2 + 0x1p-51, 0.0, 0.0})), bits(1.0));                // the tie itself
  EXPECT_EQ(bits(mean_of({0x1p-1074, 0.0})), bits(0.0));  // half the smallest subnormal: to even
  EXPECT_EQ(bits(mean_of({0x1p-1074, 0x1p-1074, 0x1p-1074, 0.0})), bits(0x1p-1074));  // 3/4 of it
  EXPECT_EQ(bits(mean_of({-0.0, -0.0})), bits(-0.0));
  EXPECT_EQ(bits(mean_of({-0x1p-1074, 0.0, 0.0})), bits(-0.0));  // a tiny negative quotient keeps its sign
  EXPECT_EQ(bits(mean_of({0x1.fffffffffffffp1023, 0x1.fffffffffffffp1023})), bits(0x1.fffffffffffffp1023));
  EXPECT_TRUE(std::isinf(mean_of({1.0, std::numeric_limits<double>::infinity()})));
  EXPECT_TRUE(std::isnan(mean_of({std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()})));
  // Counts past 2^32 (the division by a 64-bit count, bit by bit) on sums of every size, against MPFR.
  std::uint64_t seed = 1;
  for (values v : {values::uniform, values::dynamic_range, values::ill_conditioned, values::subnormal}) {
    const std::vector<double> x = generate<double>(v, 300, ++seed);
    exact::superaccumulator s = exact::empty_superaccumulator();
    for (double e : x) exact::add(s, e);
    const verify::exact_sums sums = verify::exact_sum(std::span<const double>(x));
    for (std::uint64_t n : {std::uint64_t{3}, std::uint64_t{0xffffffff}, std::uint64_t{0x100000000},
                            std::uint64_t{0x123456789abcdef}, ~std::uint64_t{0}}) {
      EXPECT_EQ(bits(exact::quotient_to<double>(s, n)), bits(correctly_rounded_mean<double>(sums, n)))
          << name(v) << " n=" << n;
      EXPECT_EQ(bits(exact::quotient_to<float>(s, n)), bits(correctly_rounded_mean<float>(sums, n)))
          << name(v) << " n=" << n << " (float)";
    }
  }
  EXPECT_TRUE(std::isnan(exact::quotient_to<double>(exact::empty_superaccumulator(), 0)));
}

/// Roots that lie within a hair of a midpoint between two values of T, and roots of sums past T's range or below its
/// normal range: where rounding the sum first and then taking a rounded square root would be wrong.
template <class T>
void nrm2_near_midpoints() {
  const std::vector<T> empty;
  std::vector<std::vector<T>> cases;
  // The midpoint m = a + h (h = half of a's last place) has m^2 = a^2 + 2 a h + h^2. With b = fl(sqrt(2 a h)), the
  // norm of {a, b} lies within a tiny fraction of a place of m, on either side depending on b's rounding; a third,
  // subnormal element moves it further by less than a place.
  for (int k = 0; k < 40; ++k) {
    const T a = static_cast<T>(1 + k) * (static_cast<T>(1) + static_cast<T>(k) * std::numeric_limits<T>::epsilon());
    const T h = a * std::numeric_limits<T>::epsilon() / 2;  // within a factor 2 of half a place
    const T b = std::sqrt(static_cast<T>(2) * a * h);
    cases.push_back({a, b});
    cases.push_back({b, a, std::numeric_limits<T>::denorm_min()});
  }
  // Exact ties: sums of squares equal to the square of a midpoint, m = 1 + h between 1 and 1 + 2h, and m = 1 + 3h
  // between 1 + 2h and 1 + 4h (h half of 1's last place): m^2 = 1 + 2h + h^2 and 1 + 6h + (3h)^2. The root rounds
  // to the even neighbour: 1, then 1 + 4h. 2h and 6h are written as squares of q with q^2 = h / 2 (double: h is an
  // odd power of two) or of r with r^2 = h (float: an even one).
  {
    const T h = std::numeric_limits<T>::epsilon() / 2;
    const T q = std::sqrt(h / 2);
    const T r = std::sqrt(h);
    if (q * q == h / 2) {
      cases.push_back({T(1), q, q, q, q, h});
      cases.push_back({T(1), q, q, q, q, q, q, q, q, q, q, q, q, T(3) * h});
    } else {
      ASSERT_EQ(r * r, h);
      cases.push_back({T(1), r, r, h});
      cases.push_back({T(1), r, r, r, r, r, r, T(3) * h});
    }
  }
  // Past T's range: the norm of {max, max} is finite only in a wider type; {max/2, max/2} is not.
  cases.push_back({std::numeric_limits<T>::max(), std::numeric_limits<T>::max()});
  cases.push_back({std::numeric_limits<T>::max() / 2, std::numeric_limits<T>::max() / 2});
  cases.push_back({std::numeric_limits<T>::max(), std::numeric_limits<T>::denorm_min()});
  // Below the normal range: squares far below the smallest subnormal, whose root is normal or subnormal.
  cases.push_back({std::numeric_limits<T>::denorm_min()});
  cases.push_back({std::numeric_limits<T>::denorm_min(), std::numeric_limits<T>::denorm_min()});
  cases.push_back(
      {std::numeric_limits<T>::min(), std::numeric_limits<T>::denorm_min(), T(3) * std::numeric_limits<T>::min()});
  // Zeros, NaN and infinities: +0 for zeros; +Inf for an infinity; NaN for a NaN, also beside an infinity.
  cases.push_back({-T(0), T(0)});
  cases.push_back({-std::numeric_limits<T>::infinity(), T(1)});
  cases.push_back({std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::infinity()});
  for (const std::vector<T>& x : cases) {
    expect_exact<T>(op::nrm2, std::span<const T>(x), std::span<const T>(x), "near a midpoint");
  }
  EXPECT_EQ(bits(detred::nrm2(std::span<const T>(empty), {.mode = mode::exact})), bits(T(0)));
}

TEST(ExactNrm2, NearMidpointsAndPastTheRangeDouble) { nrm2_near_midpoints<double>(); }
TEST(ExactNrm2, NearMidpointsAndPastTheRangeFloat) { nrm2_near_midpoints<float>(); }

/// Sums and dot products of 16-bit floats: each element widened exactly to float, so the result is the correctly
/// rounded float of the widened values' exact sum (the oracle of float), on every instruction set and thread count.
template <class H>
void half_inputs() {
  std::uint64_t seed = 900;
  for (bool finite_only : {true, false}) {
    for (std::uint64_t n : sizes()) {
      const std::vector<H> x = random_halves<H>(n + 1, ++seed, finite_only);
      const std::vector<H> y = random_halves<H>(n + 1, ++seed, finite_only);
      for (std::uint64_t start : {std::uint64_t{0}, std::uint64_t{1}}) {
        std::vector<float> wx(n), wy(n);
        for (std::uint64_t i = 0; i < n; ++i) {
          wx[i] = to_float(x[start + i]);
          wy[i] = to_float(y[start + i]);
        }
        const float sum_expected = verify::correctly_rounded<float>(verify::exact_sum(std::span<const float>(wx)));
        const float dot_expected =
            verify::correctly_rounded<float>(verify::exact_dot(std::span<const float>(wx), std::span<const float>(wy)));
        const std::span<const H> xs(x.data() + start, n), ys(y.data() + start, n);
        for (isa i : supported_isas()) {
          for (int t : exact_threads) {
            const options opt{.mode = mode::exact, .threads = t, .isa = i};
            ASSERT_EQ(bits(detred::sum(xs, opt)), bits(sum_expected))
                << "finite_only=" << finite_only << " n=" << n << " start=" << start << " isa=" << to_string(i)
                << " threads=" << t;
            ASSERT_EQ(bits(detred::dot(xs, ys, opt)), bits(dot_expected))
                << "finite_only=" << finite_only << " n=" << n << " start=" << start << " isa=" << to_string(i)
                << " threads=" << t;
          }
        }
      }
    }
  }
}

TEST(ExactHalf, SumAndDotFloat16) { half_inputs<float16>(); }
TEST(ExactHalf, SumAndDotBfloat16) { half_inputs<bfloat16>(); }

template <class T>
std::span<const T> view(const std::vector<T>& v) {
  return std::span<const T>(v);
}

TEST(ExactSum, NoIntermediateOverflow) {
  const double big = 0.75 * DBL_MAX;
  const std::vector<double> x = {big, -big, big, -big, big};
  EXPECT_EQ(bits(detred::sum(view(x), {.mode = mode::exact})), bits(big));
  // The same cancellation spread over blocks and threads, with a small term left over.
  std::vector<double> y(5001, 0.0);
  for (std::size_t i = 0; i + 1 < y.size(); i += 2) {
    y[i] = big;
    y[i + 1] = -big;
  }
  y.back() = 1e-300;
  expect_exact<double>(op::sum, view(y), {}, "cancelling maxima");
  EXPECT_EQ(bits(detred::sum(view(y), {.mode = mode::exact})), bits(1e-300));
}

double exact_sum_of(const std::vector<double>& x) { return detred::sum(view(x), {.mode = mode::exact}); }

TEST(ExactSum, ZerosAndSpecials) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> empty;
  EXPECT_EQ(bits(detred::sum(view(empty), {.mode = mode::exact})), bits(-0.0));
  EXPECT_EQ(bits(exact_sum_of(std::vector<double>(3000, -0.0))), bits(-0.0));
  EXPECT_EQ(bits(exact_sum_of(std::vector<double>{-0.0, 0.0})), bits(0.0));
  EXPECT_EQ(bits(exact_sum_of(std::vector<double>{1.0, -1.0})), bits(0.0));
  EXPECT_EQ(bits(exact_sum_of(std::vector<double>{inf, 1.0})), bits(inf));
  const double both = exact_sum_of(std::vector<double>{inf, -inf});
  EXPECT_EQ(bits(both), bits(std::numeric_limits<double>::quiet_NaN()));
  // Overflow of the exact sum itself gives Inf, as the correctly rounded value does.
  EXPECT_EQ(bits(exact_sum_of(std::vector<double>{DBL_MAX, DBL_MAX})), bits(inf));
  // A tie rounds to even, and any bit below the tie breaks it.
  const double tie = exact_sum_of(std::vector<double>{1.0, 0x1p-53});
  EXPECT_EQ(bits(tie), bits(1.0));
  const double past = exact_sum_of(std::vector<double>{1.0, 0x1p-53, 0x1p-1000});
  EXPECT_EQ(bits(past), bits(1.0 + 0x1p-52));
}

TEST(ExactDot, ProductsBeyondDoubleAndBelowIt) {
  const double tiny = std::numeric_limits<double>::denorm_min();
  // Products that overflow double, cancelling; products below the subnormal range, adding up to a subnormal;
  // products of subnormals whose TwoProduct error would not be exact.
  std::vector<std::pair<std::vector<double>, std::vector<double>>> cases = {
      {{1e300, 1e300, 3.0}, {1e300, -1e300, 0.5}},
      {{0x1p-600, 0x1p-600, 0x1p-600}, {0x1p-500, 0x1p-500, 0x1p-474}},
      {{tiny, 3 * tiny, 0x1p-1000}, {0.75, 0.5, 0x1p-60}},
      {{0x1.0000000000001p-520, 1e-300}, {0x1.0000000000001p-520, -1e-300}},
  };
  for (const auto& [x, y] : cases) expect_exact<double>(op::dot, view(x), view(y), "wide products");
  // The same in blocks large enough for the vector path, with one difficult product somewhere in each.
  rng r(3);
  std::vector<double> x(4100), y(4100);
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = r.unit<double>() - 0.5;
    y[i] = r.unit<double>() - 0.5;
  }
  x[5] = 0x1.0000000000001p-520;
  y[5] = 0x1.0000000000001p-520;
  x[1500] = 1e300;
  y[1500] = 1e300;
  x[1501] = 1e300;
  y[1501] = -1e300;
  x[3000] = tiny;
  y[3000] = 0.75;
  expect_exact<double>(op::dot, view(x), view(y), "difficult products in blocks");
  // Only -0.0 products (and none) give -0.0.
  const std::vector<double> zeros(40, 0.0), negative_zeros(40, -0.0);
  EXPECT_EQ(bits(detred::dot(view(zeros), view(negative_zeros), {.mode = mode::exact})), bits(-0.0));
  EXPECT_EQ(bits(detred::dot(view(zeros), view(zeros), {.mode = mode::exact})), bits(0.0));
}

/// Permutations: the exact sum cannot depend on the order of its terms.
template <class T>
void permutations(op o) {
  for (values v : {values::uniform, values::dynamic_range, values::ill_conditioned, values::subnormal}) {
    std::vector<T> x = generate<T>(v, 5000, 11), y = generate<T>(values::uniform, 5000, 12);
    const T expected = oracle<T>(o, view(x), view(y));
    rng r(5);
    for (int round = 0; round < 4; ++round) {
      if (round == 0) {
        std::reverse(x.begin(), x.end());
        std::reverse(y.begin(), y.end());
      } else if (round == 1) {
        std::vector<std::size_t> idx(x.size());
        for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
        std::sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return x[a] < x[b]; });
        std::vector<T> xs(x.size()), ys(y.size());
        for (std::size_t i = 0; i < idx.size(); ++i) {
          xs[i] = x[idx[i]];
          ys[i] = y[idx[i]];
        }
        x = xs;
        y = ys;
      } else {
        for (std::size_t i = x.size() - 1; i > 0; --i) {  // Fisher-Yates with the portable generator
          const std::size_t j = r.below(i + 1);
          std::swap(x[i], x[j]);
          std::swap(y[i], y[j]);
        }
      }
      for (int t : {1, 2}) {
        const T got = through_api<T>(o, view(x), view(y), {.mode = mode::exact, .threads = t});
        EXPECT_EQ(bits(got), bits(expected)) << name(o) << " " << name(v) << " permutation " << round;
      }
    }
  }
}

TEST(ExactSum, PermutationsDouble) { permutations<double>(op::sum); }
TEST(ExactSum, PermutationsFloat) { permutations<float>(op::sum); }
TEST(ExactDot, PermutationsDouble) { permutations<double>(op::dot); }

/// Partial states of exact mode (the order-free operators' superaccumulators): pieces at random cuts, merged in a
/// shuffled order after a trip through their bytes, give the single-array exact call's bits, for every exact
/// operator of double and float, and the sums and dot products of 16-bit floats.
template <class T, class R>
void expect_exact_states(operation o, std::span<const T> x, std::span<const T> y, R expected, std::uint64_t seed) {
  rng r(seed);
  std::vector<std::uint64_t> cuts = {0, x.size()};
  for (int k = 0; k < 5; ++k) cuts.push_back(x.empty() ? 0 : r.below(x.size() + 1));
  std::sort(cuts.begin(), cuts.end());
  std::vector<partial_state> pieces;
  const options exact{.mode = mode::exact, .threads = 2};
  for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
    const std::uint64_t b = cuts[k], e = cuts[k + 1];
    partial_state p = o == operation::dot
                          ? partial_state::of(operation::dot, x.subspan(b, e - b), y.subspan(b, e - b), b, exact)
                          : partial_state::of(o, x.subspan(b, e - b), b, exact);
    const std::vector<std::byte> bytes = p.serialize();
    pieces.push_back(partial_state::deserialize(bytes));
  }
  for (std::size_t i = pieces.size() - 1; i > 0; --i) std::swap(pieces[i], pieces[r.below(i + 1)]);
  partial_state all = partial_state::empty<T>(o, exact);
  for (const partial_state& p : pieces) all.merge(p);
  ASSERT_EQ(bits(all.result<R>()), bits(expected)) << to_string(o) << " n=" << x.size() << " seed=" << seed;
}

TEST(ExactState, PartialStatesOfEveryExactOperator) {
  std::uint64_t seed = 7000;
  for (values v : all_value_classes()) {
    for (std::uint64_t n : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{1025}, std::uint64_t{9000}}) {
      const std::vector<double> xd = generate<double>(v, n, ++seed), yd = generate<double>(values::uniform, n, ++seed);
      const std::vector<float> xf = generate<float>(v, n, ++seed), yf = generate<float>(values::uniform, n, ++seed);
      const options exact{.mode = mode::exact};
      for (operation o : {operation::sum, operation::asum, operation::dot, operation::nrm2}) {
        const auto single = [&](auto xs, auto ys) {
          if (o == operation::sum) return detred::sum(xs, exact);
          if (o == operation::asum) return detred::asum(xs, exact);
          if (o == operation::nrm2) return detred::nrm2(xs, exact);
          return detred::dot(xs, ys, exact);
        };
        expect_exact_states<double>(o, view(xd), view(yd), single(view(xd), view(yd)), ++seed);
        expect_exact_states<float>(o, view(xf), view(yf), single(view(xf), view(yf)), ++seed);
      }
    }
  }
  for (std::uint64_t n : {std::uint64_t{0}, std::uint64_t{3}, std::uint64_t{5000}}) {
    const std::vector<float16> h = random_halves<float16>(n, ++seed, false),
                               g = random_halves<float16>(n, ++seed, true);
    const std::vector<bfloat16> b = random_halves<bfloat16>(n, ++seed, true),
                                c = random_halves<bfloat16>(n, ++seed, false);
    const options exact{.mode = mode::exact};
    expect_exact_states<float16>(operation::sum, std::span<const float16>(h), {},
                                 detred::sum(std::span<const float16>(h), exact), ++seed);
    expect_exact_states<float16>(operation::dot, std::span<const float16>(h), std::span<const float16>(g),
                                 detred::dot(std::span<const float16>(h), std::span<const float16>(g), exact), ++seed);
    expect_exact_states<bfloat16>(operation::sum, std::span<const bfloat16>(b), {},
                                  detred::sum(std::span<const bfloat16>(b), exact), ++seed);
    expect_exact_states<bfloat16>(operation::dot, std::span<const bfloat16>(b), std::span<const bfloat16>(c),
                                  detred::dot(std::span<const bfloat16>(b), std::span<const bfloat16>(c), exact),
                                  ++seed);
  }
}

/// States of pieces split at random points merge, in any order, into the state of the whole, bit for bit.
TEST(ExactState, MergeOfRandomSplits) {
  rng r(9);
  const std::vector<double> x = generate<double>(values::dynamic_range, 20000, 21);
  const std::vector<double> y = generate<double>(values::ill_conditioned, 20000, 22);
  for (op o : {op::sum, op::dot}) {
    exact::superaccumulator whole = state_of<double>(o, view(x), view(y), {.threads = 1});
    exact::normalize(whole);
    for (int round = 0; round < 6; ++round) {
      std::vector<std::uint64_t> cuts = {0, x.size()};
      for (int k = 0; k < 5; ++k) cuts.push_back(r.below(x.size() + 1));
      std::sort(cuts.begin(), cuts.end());
      std::vector<exact::superaccumulator> parts;
      for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
        const auto px = view(x).subspan(cuts[k], cuts[k + 1] - cuts[k]);
        const auto py = view(y).subspan(cuts[k], cuts[k + 1] - cuts[k]);
        parts.push_back(state_of<double>(o, px, py, {.threads = 1}));
      }
      for (std::size_t i = parts.size() - 1; i > 0; --i) std::swap(parts[i], parts[r.below(i + 1)]);
      exact::superaccumulator merged = exact::empty_superaccumulator();
      for (const auto& p : parts) exact::merge(merged, p);
      EXPECT_EQ(std::memcmp(&merged, &whole, sizeof merged), 0) << name(o) << " round " << round;
      EXPECT_EQ(bits(exact::round_to<double>(merged)), bits(oracle<double>(o, view(x), view(y))));
    }
  }
}

/// The words' range: 2^64 copies of a product near 2^2000 (64 doublings by merge) and as many of its negation
/// cancel exactly around a small term; and the carry pass that runs every 2^26 adds loses nothing.
TEST(ExactState, CapacityAndCarries) {
  exact::superaccumulator up = exact::empty_superaccumulator(), down = exact::empty_superaccumulator();
  exact::add_product(up, 0x1.8p1000, 0x1p1000);
  exact::add_product(down, -0x1.8p1000, 0x1p1000);
  for (int k = 0; k < 64; ++k) {
    exact::merge(up, up);
    exact::merge(down, down);
  }
  EXPECT_EQ(bits(exact::round_to<double>(up)), bits(std::numeric_limits<double>::infinity()));
  exact::merge(up, down);
  exact::add(up, 3.0);
  EXPECT_EQ(bits(exact::round_to<double>(up)), bits(3.0));

  exact::superaccumulator a = exact::empty_superaccumulator();
  a.pending = exact::superaccumulator::normalize_every - 3;  // the carry pass falls among the next adds
  for (int k = 0; k < 8; ++k) exact::add(a, k % 2 == 0 ? 0x1.fffffffffffffp1020 : -0x1p-1074);
  exact::add(a, -4 * 0x1.fffffffffffffp1020);
  EXPECT_EQ(bits(exact::round_to<double>(a)), bits(-4 * 0x1p-1074));
  EXPECT_LT(a.pending, 8U);
}

/// Exact mode's bound is one rounding; the tree and compensated bounds stay their own at every n, the smallest too
/// (where the tree's depth is 0, as exact mode's is).
TEST(ExactMode, OnlyExactModeHasTheOneRoundingBound) {
  constexpr double u = 0x1p-53;
  for (std::uint64_t n : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{1000}}) {
    for (mode m : {mode::tree, mode::compensated}) {
      const error_bound dot_b = detred::bound<double>(bounded_op::dot, n, m);
      EXPECT_GT(dot_b.abs_sum_factor, 0.0) << "dot n=" << n << " " << to_string(m);
      EXPECT_GT(detred::bound<double>(bounded_op::nrm2, n, m).result_factor, 2 * u) << "nrm2 n=" << n;
    }
    const error_bound exact_dot = detred::bound<double>(bounded_op::dot, n, mode::exact);
    EXPECT_EQ(exact_dot.result_factor, u);
    EXPECT_EQ(exact_dot.abs_sum_factor, 0.0);
    EXPECT_EQ(detred::bound<double>(bounded_op::nrm2, n, mode::exact).result_factor, u);
  }
}

TEST(ExactMode, RefusedWhereNotAvailable) {
  const std::vector<double> x(10, 1.0);
  const std::vector<double> offsets = {};
  const auto message = [](auto&& call) -> std::string {
    try {
      call();
    } catch (const error& e) {
      return e.what();
    }
    return "no error";
  };
  const options exact{.mode = mode::exact};
  const std::string stats = message([&] { detred::stats(view(x), exact); });
  EXPECT_NE(stats.find("detred::stats"), std::string::npos) << stats;
  EXPECT_NE(stats.find("exact"), std::string::npos) << stats;
  // backend::cuda computes exact mode on the GPU (tests/cuda/cuda_exact_test.cpp); a build or machine without one
  // says so.
  const options on_gpu{.mode = mode::exact, .backend = backend::cuda};
  for (const std::string& cuda :
       {message([&] { detred::sum(view(x), on_gpu); }), message([&] { detred::nrm2(view(x), on_gpu); })}) {
    if (detred::cuda::available()) {
      EXPECT_EQ(cuda, "no error");
    } else {
      EXPECT_NE(cuda.find("CUDA"), std::string::npos) << cuda;
    }
  }
  // Stats has no exact partial state; the exact mean (detred::mean) rounds once.
  const std::string state = message([&] { partial_state::of(operation::stats, view(x), 0, exact); });
  EXPECT_NE(state.find("exact"), std::string::npos) << state;
  EXPECT_EQ(detred::bound<double>(bounded_op::mean, 10, mode::exact).result_factor, 0x1p-53);
  EXPECT_EQ(detred::bound<double>(bounded_op::nrm2, 10, mode::exact).result_factor, 0x1p-53);
  EXPECT_EQ(detred::bound<double>(100, mode::exact).abs_sum_factor, 0.0);
  EXPECT_EQ(*parse<mode>("exact"), mode::exact);
  EXPECT_STREQ(to_string(mode::exact), "exact");
}

}  // namespace
}  // namespace detred::testing
