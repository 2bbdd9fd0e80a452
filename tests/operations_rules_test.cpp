// SPDX-License-Identifier: BSD-3-Clause
// The documented rules of each operation through the public API: special values, ties, signed zeros, empty inputs,
// integer overflow, 16-bit widening, and the identities that tie the operations to the sum (dot with ones, asum,
// stats' sum and mean).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "batch_cases.hpp"
#include "detred/batched.hpp"
#include "detred/reduce.hpp"
#include "op_paths.hpp"

namespace detred::testing {
namespace {

template <class T>
class FloatRules : public ::testing::Test {};
using FloatTypes = ::testing::Types<double, float>;
TYPED_TEST_SUITE(FloatRules, FloatTypes);

TYPED_TEST(FloatRules, DotWithOnesIsTheSumAndAsumIsTheSumOfMagnitudes) {
  using T = TypeParam;
  for (values v : all_value_classes()) {
    const std::vector<T> x = generate<T>(v, 20011, 17);
    const std::vector<T> ones(x.size(), T(1));
    std::vector<T> magnitudes(x.size());
    std::transform(x.begin(), x.end(), magnitudes.begin(), [](T e) { return std::fabs(e); });
    for (mode m : {mode::tree, mode::compensated}) {
      EXPECT_EQ(bits(dot(std::span<const T>(x), std::span<const T>(ones), {.mode = m})),
                bits(sum(std::span<const T>(x), {.mode = m})))
          << name(v) << " " << to_string(m);
      EXPECT_EQ(bits(asum(std::span<const T>(x), {.mode = m})), bits(sum(std::span<const T>(magnitudes), {.mode = m})))
          << name(v) << " " << to_string(m);
    }
  }
}

TYPED_TEST(FloatRules, CompensatedDotRecoversCancellingProducts) {
  using T = TypeParam;
  const T big = sizeof(T) == 8 ? T(1e16) : T(1e8);
  const std::vector<T> x = {big, T(1), -big, T(3)};
  const std::vector<T> y = {T(1), T(1), T(1), T(0.5)};
  EXPECT_EQ(dot(std::span<const T>(x), std::span<const T>(y), {.mode = mode::compensated}), T(2.5));
}

TYPED_TEST(FloatRules, DotRefusesArraysOfDifferentLengths) {
  using T = TypeParam;
  const std::vector<T> x(3, T(1));
  const std::vector<T> y(4, T(1));
  EXPECT_THROW(dot(std::span<const T>(x), std::span<const T>(y)), error);
}

TYPED_TEST(FloatRules, Nrm2IsSafeFromOverflowAndUnderflow) {
  using T = TypeParam;
  const T huge = sizeof(T) == 8 ? T(1e200) : T(1e30);
  const T tiny = sizeof(T) == 8 ? T(1e-200) : T(1e-30);
  const T root2 = std::sqrt(T(2));
  for (mode m : {mode::tree, mode::compensated}) {
    const std::vector<T> big = {huge, huge};
    const std::vector<T> small = {tiny, -tiny};
    EXPECT_NEAR(nrm2(std::span<const T>(big), {.mode = m}) / huge, root2, 4 * std::numeric_limits<T>::epsilon());
    EXPECT_NEAR(nrm2(std::span<const T>(small), {.mode = m}) / tiny, root2, 4 * std::numeric_limits<T>::epsilon());
    const std::vector<T> mixed = {huge, tiny, T(1)};
    EXPECT_EQ(nrm2(std::span<const T>(mixed), {.mode = m}), huge);
    const std::vector<T> pythagoras = {T(3), T(-4)};
    EXPECT_EQ(nrm2(std::span<const T>(pythagoras), {.mode = m}), T(5));
    const std::vector<T> max = {std::numeric_limits<T>::max(), std::numeric_limits<T>::max()};
    EXPECT_TRUE(std::isfinite(nrm2(std::span<const T>(max).first(1), {.mode = m})));
    EXPECT_EQ(nrm2(std::span<const T>(max).first(1), {.mode = m}), std::numeric_limits<T>::max());
    const std::vector<T> denormal = {std::numeric_limits<T>::denorm_min()};
    EXPECT_EQ(nrm2(std::span<const T>(denormal), {.mode = m}), std::numeric_limits<T>::denorm_min());
    EXPECT_EQ(bits(nrm2(std::span<const T>(), {.mode = m})), bits(T(0)));
    const std::vector<T> with_inf = {T(1), -std::numeric_limits<T>::infinity()};
    EXPECT_EQ(nrm2(std::span<const T>(with_inf), {.mode = m}), std::numeric_limits<T>::infinity());
    const std::vector<T> with_nan = {T(1), std::numeric_limits<T>::quiet_NaN(), -std::numeric_limits<T>::infinity()};
    EXPECT_EQ(bits(nrm2(std::span<const T>(with_nan), {.mode = m})), bits(std::numeric_limits<T>::quiet_NaN()));
  }
}

TYPED_TEST(FloatRules, MinAndMaxOrderSignedZerosAndPropagateNaN) {
  using T = TypeParam;
  const std::vector<T> zeros = {T(0.0), T(-0.0), T(0.0)};
  const std::vector<T> zeros_reversed = {T(-0.0), T(0.0), T(-0.0)};
  for (const auto& z : {zeros, zeros_reversed}) {
    EXPECT_EQ(bits(detred::min(std::span<const T>(z))), bits(T(-0.0)));
    EXPECT_EQ(bits(detred::max(std::span<const T>(z))), bits(T(0.0)));
  }
  EXPECT_EQ(argmin(std::span<const T>(zeros)), 1u);
  EXPECT_EQ(argmax(std::span<const T>(zeros)), 0u);
  EXPECT_EQ(argmin(std::span<const T>(zeros_reversed)), 0u);
  EXPECT_EQ(argmax(std::span<const T>(zeros_reversed)), 1u);

  // A large array with a NaN (a negative, payload-carrying one) in the middle: NaN propagates and argmin/argmax name
  // the first NaN, on every thread count.
  std::vector<T> x = generate<T>(values::uniform, 300007, 5);
  x[123457] = -std::numeric_limits<T>::quiet_NaN();
  x[200001] = std::numeric_limits<T>::quiet_NaN();
  for (int t : {1, 2, 3}) {
    EXPECT_EQ(bits(detred::min(std::span<const T>(x), {.threads = t})), bits(std::numeric_limits<T>::quiet_NaN()));
    EXPECT_EQ(bits(detred::max(std::span<const T>(x), {.threads = t})), bits(std::numeric_limits<T>::quiet_NaN()));
    EXPECT_EQ(argmin(std::span<const T>(x), {.threads = t}), 123457u);
    EXPECT_EQ(argmax(std::span<const T>(x), {.threads = t}), 123457u);
  }
}

TYPED_TEST(FloatRules, ArgminAndArgmaxTakeTheLowestIndexOfTies) {
  using T = TypeParam;
  std::vector<T> x = generate<T>(values::same_sign, 100003, 8);  // values in [0, 1)
  for (std::uint64_t at : {std::uint64_t{99999}, std::uint64_t{4097}, std::uint64_t{77777}}) x[at] = T(-1);
  for (std::uint64_t at : {std::uint64_t{88888}, std::uint64_t{5000}, std::uint64_t{99000}}) x[at] = T(2);
  for (int t : {1, 2, 3}) {
    EXPECT_EQ(argmin(std::span<const T>(x), {.threads = t}), 4097u);
    EXPECT_EQ(argmax(std::span<const T>(x), {.threads = t}), 5000u);
    EXPECT_EQ(detred::min(std::span<const T>(x), {.threads = t}), T(-1));
    EXPECT_EQ(detred::max(std::span<const T>(x), {.threads = t}), T(2));
  }
  const std::vector<T> infinities = {T(1), std::numeric_limits<T>::infinity(), std::numeric_limits<T>::infinity()};
  EXPECT_EQ(argmax(std::span<const T>(infinities)), 1u);
}

TYPED_TEST(FloatRules, SelectionsOfAnEmptyArrayAreErrors) {
  using T = TypeParam;
  EXPECT_THROW(detred::min(std::span<const T>()), error);
  EXPECT_THROW(detred::max(std::span<const T>()), error);
  EXPECT_THROW(argmin(std::span<const T>()), error);
  EXPECT_THROW(argmax(std::span<const T>()), error);
}

TYPED_TEST(FloatRules, StatsAgreeWithTheOtherOperations) {
  using T = TypeParam;
  for (values v : all_value_classes()) {
    for (std::uint64_t n : {std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{4099}, std::uint64_t{300001}}) {
      const std::vector<T> x = generate<T>(v, n, 40 + n);
      const statistics<T> s = stats(std::span<const T>(x));
      const std::string what = name(v) + " n=" + std::to_string(n);
      EXPECT_EQ(s.count, n) << what;
      EXPECT_EQ(bits(s.sum), bits(sum(std::span<const T>(x)))) << what;
      EXPECT_EQ(bits(s.mean), bits(order::canonical(T(s.sum / static_cast<T>(n))))) << what;
      EXPECT_EQ(bits(s.min), bits(detred::min(std::span<const T>(x)))) << what;
      EXPECT_EQ(bits(s.max), bits(detred::max(std::span<const T>(x)))) << what;
      for (int t : {2, 3}) {
        EXPECT_TRUE(same_bits(stats(std::span<const T>(x), {.threads = t}), s)) << what << " threads=" << t;
      }
    }
  }
}

TYPED_TEST(FloatRules, StatsVarianceIsAccurateOnShiftedData) {
  // Values with a large mean and a small spread: the variance must not drown in the mean's cancellation.
  using T = TypeParam;
  std::vector<T> x = generate<T>(values::uniform, 200003, 21);
  for (T& e : x) e = T(1000) + e;
  long double mean = 0;
  for (T e : x) mean += e;
  mean /= static_cast<long double>(x.size());
  long double m2 = 0;
  for (T e : x) m2 += (e - mean) * (e - mean);
  const statistics<T> s = stats(std::span<const T>(x));
  const long double variance = m2 / static_cast<long double>(x.size());
  const double tolerance = sizeof(T) == 8 ? 1e-9 : 1e-2;
  EXPECT_NEAR(static_cast<double>(static_cast<long double>(s.variance) / variance), 1.0, tolerance);
  EXPECT_NEAR(
      static_cast<double>(static_cast<long double>(s.sample_variance) / (m2 / static_cast<long double>(x.size() - 1))),
      1.0, tolerance);
  EXPECT_EQ(bits(s.stddev), bits(std::sqrt(s.variance)));
}

TYPED_TEST(FloatRules, StatsOfTinyInputsAndModes) {
  using T = TypeParam;
  const statistics<T> empty = stats(std::span<const T>());
  EXPECT_EQ(empty.count, 0u);
  EXPECT_EQ(bits(empty.sum), bits(T(-0.0)));
  EXPECT_TRUE(std::isnan(empty.mean) && std::isnan(empty.variance) && std::isnan(empty.min));
  const std::vector<T> one = {T(3)};
  const statistics<T> single = stats(std::span<const T>(one));
  EXPECT_EQ(single.mean, T(3));
  EXPECT_EQ(single.variance, T(0));
  EXPECT_TRUE(std::isnan(single.sample_variance));
  const std::vector<T> few = {T(1), T(2), T(3), T(4)};
  const statistics<T> s = stats(std::span<const T>(few));
  EXPECT_EQ(s.mean, T(2.5));
  EXPECT_EQ(s.variance, T(1.25));
  EXPECT_EQ(s.sample_variance, T(5) / T(3));
  EXPECT_THROW(stats(std::span<const T>(few), {.mode = mode::compensated}), error);
  const std::vector<T> with_nan = {T(1), std::numeric_limits<T>::quiet_NaN()};
  const statistics<T> n = stats(std::span<const T>(with_nan));
  EXPECT_TRUE(std::isnan(n.sum) && std::isnan(n.mean) && std::isnan(n.variance) && std::isnan(n.min));
}

/// sumsq (the sum of squares, through detred::reduce): bit for bit dot(x, x) in every mode, on every instruction set
/// and thread count, at sizes around the leaves, misaligned, for every value class and the 16-bit floats.
template <class T>
void expect_sumsq_is_dot_with_itself(std::span<const T> x, const std::string& what) {
  for (mode m : {mode::tree, mode::compensated, mode::exact}) {
    for (isa i : supported_isas()) {
      for (int t : {1, 2, 3}) {
        const options opt{.mode = m, .threads = t, .isa = i};
        const auto expected = dot(x, x, opt);
        const auto got = reduce<operation::sumsq>(x, opt);
        ASSERT_EQ(bits(got), bits(expected))
            << what << " n=" << x.size() << " " << to_string(m) << " " << to_string(i) << " threads=" << t;
      }
    }
  }
}

TYPED_TEST(FloatRules, SumOfSquaresIsTheDotProductOfXWithItself) {
  using T = TypeParam;
  std::uint64_t seed = 300;
  for (values v : all_value_classes()) {
    for (std::uint64_t n : {0, 1, 7, 2047, 2048, 2049, 4097, 20011}) {
      const std::vector<T> x = generate<T>(v, n + 1, ++seed);
      expect_sumsq_is_dot_with_itself(std::span<const T>(x).first(n), name(v));
      expect_sumsq_is_dot_with_itself(std::span<const T>(x).subspan(1), name(v) + " misaligned");
    }
  }
  // The identity of the sum for an empty array; the canonical NaN; +Inf for an infinite element.
  EXPECT_EQ(bits(reduce<operation::sumsq>(std::span<const T>())), bits(-T(0)));
  const std::vector<T> inf = {T(1), -std::numeric_limits<T>::infinity()};
  EXPECT_EQ(reduce<operation::sumsq>(std::span<const T>(inf)), std::numeric_limits<T>::infinity());
}

/// Batches through detred::reduce<O> (its batched cores): each segment's result, and each line's along either axis,
/// is bit for bit the single-array call on that line alone, in every mode the catalogue gives the batches of O over T,
/// on every instruction set and thread count. The matrix: 37 x 2049, row-major, its leading dimension past its rows.
template <operation O, class T>
void expect_each_line_alone(std::span<const T> xs, const std::vector<std::uint64_t>& offsets, std::uint64_t seed) {
  using R = result_t<O, T>;
  constexpr bool half = std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>;
  const std::uint64_t count = offsets.size() - 1;
  for (mode m : {mode::tree, mode::compensated, mode::exact}) {
    const bool offered = catalogue::supports(O, element_type_of<T>(), m, backend::cpu, call_shape::segments);
    EXPECT_EQ(offered, catalogue::supports(O, element_type_of<T>(), m, backend::cpu, call_shape::axis)) << to_string(m);
    if (!offered) {
      std::vector<R> refused(count);
      EXPECT_THROW((reduce<O, T>(xs, segments{offsets}, std::span<R>(refused), {.mode = m})), error) << to_string(m);
      continue;
    }
    for (isa i : supported_isas()) {
      for (int t : {1, 3}) {
        const options opt{.mode = m, .threads = t, .isa = i};
        std::vector<R> got(count);
        reduce<O, T>(xs, segments{offsets}, std::span<R>(got), opt);
        for (std::uint64_t k = 0; k < count; ++k) {
          const auto line = xs.subspan(offsets[k], offsets[k + 1] - offsets[k]);
          ASSERT_EQ(bits(got[k]), bits(reduce<O>(line, opt)))
              << to_string(O) << " segment " << k << " " << to_string(m) << " " << to_string(i) << " threads=" << t;
        }
      }
    }
    const std::uint64_t rows = 37, cols = 2049, ld = 2051;
    std::vector<T> a;
    if constexpr (half) {
      a = half_batch_values<T>(half_values::moderate, rows * ld, seed);
    } else {
      a = generate<T>(values::uniform, rows * ld, seed);
    }
    const matrix_view<T> view{a.data(), rows, cols, ld, layout::row_major};
    std::vector<R> by_row(rows), by_col(cols);
    reduce<O, T>(view, 1, std::span<R>(by_row), {.mode = m});
    reduce<O, T>(view, 0, std::span<R>(by_col), {.mode = m});
    for (std::uint64_t r = 0; r < rows; ++r) {
      ASSERT_EQ(bits(by_row[r]), bits(reduce<O>(std::span<const T>(a).subspan(r * ld, cols), {.mode = m})))
          << to_string(O) << " row " << r << " " << to_string(m);
    }
    for (std::uint64_t c = 0; c < cols; c += 97) {
      std::vector<T> column(rows);
      for (std::uint64_t r = 0; r < rows; ++r) column[r] = a[r * ld + c];
      ASSERT_EQ(bits(by_col[c]), bits(reduce<O>(std::span<const T>(column), {.mode = m})))
          << to_string(O) << " column " << c << " " << to_string(m);
    }
  }
}

/// Batches through detred::reduce<O> (its batched cores): the sum of squares of each segment and of each line along
/// either axis is bit for bit the single-array call on that line alone, in every mode, on every instruction set and
/// thread count; the other operations' generic batches give the named batched calls' bits.
TYPED_TEST(FloatRules, SumOfSquaresInBatchesEqualsEachLineAlone) {
  using T = TypeParam;
  std::uint64_t extent = 0;
  const std::vector<std::uint64_t> offsets = offsets_of({0, 1, 7, 2047, 2048, 2049, 63, 4097, 300}, 3, extent);
  const std::vector<T> x = generate<T>(values::ill_conditioned, extent, 91);
  const std::span<const T> xs(x);
  const std::uint64_t count = offsets.size() - 1;
  expect_each_line_alone<operation::sumsq>(xs, offsets, 92);
  // The generic batches are the named ones.
  std::vector<T> generic(count), named(count);
  reduce<operation::sum, T>(xs, segments{offsets}, std::span<T>(generic), {.mode = mode::compensated});
  sum(xs, segments{offsets}, std::span<T>(named), {.mode = mode::compensated});
  for (std::uint64_t k = 0; k < count; ++k) EXPECT_EQ(bits(generic[k]), bits(named[k])) << "segment " << k;
  // The refusals of the named calls: an empty segment of a selection, a shape the catalogue does not list.
  std::vector<std::uint64_t> where(count);
  EXPECT_THROW((reduce<operation::argmin, T>(xs, segments{offsets}, std::span<std::uint64_t>(where))), error);
  const matrix_view<T> m{x.data(), 2, 3, 3, layout::row_major};
  std::vector<std::uint64_t> two(3);
  try {
    reduce<operation::argmin, T>(m, 0, std::span<std::uint64_t>(two));
    ADD_FAILURE() << "argmin along an axis is not in the catalogue";
  } catch (const error& e) {
    EXPECT_NE(std::string(e.what()).find("axis"), std::string::npos) << e.what();
  }
}

/// The sums, sums of squares and means of 16-bit floats in batches, through detred::reduce: each line's float
/// result is the single-array call's on that line alone, in tree and compensated mode; exact mode is refused (the
/// catalogue has no exact batches of 16-bit floats).
TEST(HalfRules, BatchesEqualEachLineAlone) {
  std::uint64_t extent = 0;
  const std::vector<std::uint64_t> offsets = offsets_of({0, 1, 7, 2047, 2048, 2049, 63, 4097, 300}, 3, extent);
  for (half_values v : all_half_values) {
    const std::vector<float16> h = half_batch_values<float16>(v, extent, 95);
    const std::vector<bfloat16> b = half_batch_values<bfloat16>(v, extent, 96);
    expect_each_line_alone<operation::sum>(std::span<const float16>(h), offsets, 97);
    expect_each_line_alone<operation::sum>(std::span<const bfloat16>(b), offsets, 98);
    expect_each_line_alone<operation::sumsq>(std::span<const float16>(h), offsets, 99);
    expect_each_line_alone<operation::sumsq>(std::span<const bfloat16>(b), offsets, 100);
    expect_each_line_alone<operation::mean>(std::span<const float16>(h), offsets, 101);
    expect_each_line_alone<operation::mean>(std::span<const bfloat16>(b), offsets, 102);
  }
}

TEST(HalfRules, SumOfSquaresIsTheDotProductOfXWithItself) {
  for (std::uint64_t n : {0, 5, 4095, 4096, 4097, 30001}) {
    const std::vector<float16> h = random_halves<float16>(n, 40 + n, true);
    const std::vector<bfloat16> b = random_halves<bfloat16>(n, 50 + n, false);
    expect_sumsq_is_dot_with_itself(std::span<const float16>(h), "float16");
    expect_sumsq_is_dot_with_itself(std::span<const bfloat16>(b), "bfloat16");
  }
}

/// Its partial states give the single call's bits, whatever the cut.
TEST(HalfRules, SumOfSquaresHasPartialStates) {
  const std::vector<double> x = generate<double>(values::uniform, 10000, 8);
  const std::span<const double> xs(x);
  for (mode m : {mode::tree, mode::compensated, mode::exact}) {
    partial_state all = partial_state::of(operation::sumsq, xs.subspan(4321), 4321, {.mode = m});
    all.merge(partial_state::of(operation::sumsq, xs.first(4321), 0, {.mode = m}));
    EXPECT_EQ(bits(all.result<double>()), bits(reduce<operation::sumsq>(xs, {.mode = m}))) << to_string(m);
  }
}

/// mean: in tree mode bit for bit stats' mean, in compensated mode the compensated sum divided by the count (one
/// rounding, the count as T), on every instruction set and thread count, for every value class, at sizes around the
/// leaves and misaligned; NaN for no element.
template <class T>
void expect_mean_rules(std::span<const T> x, const std::string& what) {
  using R = std::conditional_t<std::is_same_v<T, double>, double, float>;
  for (isa i : supported_isas()) {
    for (int t : {1, 2, 3}) {
      const options tree{.mode = mode::tree, .threads = t, .isa = i};
      const options compensated{.mode = mode::compensated, .threads = t, .isa = i};
      const R divided = static_cast<R>(sum(x, compensated) / static_cast<R>(x.size()));
      ASSERT_EQ(bits(reduce<operation::mean>(x, compensated)), bits(order::canonical(divided)))
          << what << " compensated n=" << x.size() << " " << to_string(i) << " threads=" << t;
      if constexpr (std::is_same_v<T, R>) {
        ASSERT_EQ(bits(reduce<operation::mean>(x, tree)), bits(stats(x, tree).mean))
            << what << " tree n=" << x.size() << " " << to_string(i) << " threads=" << t;
      } else {
        const R tree_divided = static_cast<R>(sum(x, tree) / static_cast<R>(x.size()));
        ASSERT_EQ(bits(reduce<operation::mean>(x, tree)), bits(order::canonical(tree_divided)))
            << what << " tree n=" << x.size() << " " << to_string(i) << " threads=" << t;
      }
    }
  }
}

TYPED_TEST(FloatRules, MeanIsStatsMeanInTreeModeAndTheDividedSumInCompensatedMode) {
  using T = TypeParam;
  std::uint64_t seed = 700;
  for (values v : all_value_classes()) {
    for (std::uint64_t n : {0, 1, 7, 2047, 2048, 2049, 4097, 20011}) {
      const std::vector<T> x = generate<T>(v, n + 1, ++seed);
      expect_mean_rules(std::span<const T>(x).first(n), name(v));
      expect_mean_rules(std::span<const T>(x).subspan(1), name(v) + " misaligned");
    }
  }
  for (mode m : {mode::tree, mode::compensated, mode::exact}) {
    EXPECT_TRUE(std::isnan(reduce<operation::mean>(std::span<const T>(), {.mode = m}))) << to_string(m);
  }
}

/// Its batches: each segment's and each line's mean is the single call's on that line alone, in every mode (an empty
/// segment's is NaN); its partial states give the single call's bits whatever the cut.
TYPED_TEST(FloatRules, MeanInBatchesAndPartialStatesEqualsTheSingleCall) {
  using T = TypeParam;
  std::uint64_t extent = 0;
  const std::vector<std::uint64_t> offsets = offsets_of({0, 1, 7, 2047, 2048, 2049, 63, 4097, 300}, 3, extent);
  const std::vector<T> x = generate<T>(values::ill_conditioned, extent, 93);
  const std::span<const T> xs(x);
  expect_each_line_alone<operation::mean>(xs, offsets, 94);
  for (mode m : {mode::tree, mode::compensated, mode::exact}) {
    partial_state all = partial_state::of(operation::mean, xs.subspan(4321), 4321, {.mode = m});
    all.merge(partial_state::of(operation::mean, xs.first(4321), 0, {.mode = m}));
    EXPECT_EQ(bits(all.result<T>()), bits(reduce<operation::mean>(xs, {.mode = m}))) << to_string(m);
  }
}

TEST(HalfRules, MeanIsTheDividedSum) {
  for (std::uint64_t n : {0, 5, 4095, 4096, 4097, 30001}) {
    const std::vector<float16> h = random_halves<float16>(n, 60 + n, true);
    const std::vector<bfloat16> b = random_halves<bfloat16>(n, 70 + n, false);
    expect_mean_rules(std::span<const float16>(h), "float16");
    expect_mean_rules(std::span<const bfloat16>(b), "bfloat16");
  }
}

TEST(IntegerRules, SumsAreExactThroughIntermediateOverflow) {
  const std::int64_t top = std::numeric_limits<std::int64_t>::max();
  const std::int64_t bottom = std::numeric_limits<std::int64_t>::lowest();
  std::vector<std::int64_t> x(10001, top);
  for (std::size_t i = x.size() / 2; i < x.size(); ++i) x[i] = -top;
  x.back() = 5;  // (5000 * top) + (5000 * -top) + 5: every partial sum past the first overflows int64
  for (int t : {1, 2, 3}) EXPECT_EQ(sum(std::span<const std::int64_t>(x), {.threads = t}), 5);
  const std::vector<std::int64_t> over = {top, 1};
  EXPECT_THROW(sum(std::span<const std::int64_t>(over)), overflow_error);
  const std::vector<std::int64_t> under = {bottom, -1};
  try {
    sum(std::span<const std::int64_t>(under));
    ADD_FAILURE() << "no error";
  } catch (const overflow_error& e) {
    EXPECT_NE(std::string(e.what()).find("-9223372036854775809"), std::string::npos) << e.what();
  }
  const std::vector<std::int64_t> lowest = {bottom, 0};
  EXPECT_EQ(sum(std::span<const std::int64_t>(lowest)), bottom);
  const std::vector<std::uint64_t> unsigned_over = {std::numeric_limits<std::uint64_t>::max(), 1};
  try {
    sum(std::span<const std::uint64_t>(unsigned_over));
    ADD_FAILURE() << "no error";
  } catch (const error& e) {
    EXPECT_NE(std::string(e.what()).find("18446744073709551616"), std::string::npos) << e.what();
  }
}

TEST(IntegerRules, Int32SumsWidenAndMatchAPlainLoop) {
  const std::vector<std::int32_t> x = random_integers<std::int32_t>(1000003, 9, 0);
  std::int64_t expected = 0;
  for (std::int32_t e : x) expected += e;
  for (int t : {1, 2}) EXPECT_EQ(sum(std::span<const std::int32_t>(x), {.threads = t}), expected);
  const std::vector<std::uint32_t> u(70001, std::numeric_limits<std::uint32_t>::max());
  EXPECT_EQ(sum(std::span<const std::uint32_t>(u)), std::uint64_t{70001} * std::numeric_limits<std::uint32_t>::max());
  EXPECT_EQ(sum(std::span<const std::int32_t>()), 0);
}

TEST(IntegerRules, SelectionsOfIntegers) {
  std::vector<std::int64_t> x = random_integers<std::int64_t>(50001, 12, 1);  // values -3..3, many ties
  const auto lowest = std::min_element(x.begin(), x.end());
  const auto highest = std::max_element(x.begin(), x.end());
  EXPECT_EQ(detred::min(std::span<const std::int64_t>(x)), *lowest);
  EXPECT_EQ(detred::max(std::span<const std::int64_t>(x)), *highest);
  EXPECT_EQ(argmin(std::span<const std::int64_t>(x)), static_cast<std::uint64_t>(lowest - x.begin()));
  EXPECT_EQ(argmax(std::span<const std::int64_t>(x)), static_cast<std::uint64_t>(highest - x.begin()));
  const std::vector<std::uint32_t> u = {7, 0xffffffffu, 3, 0xffffffffu};
  EXPECT_EQ(detred::max(std::span<const std::uint32_t>(u)), 0xffffffffu);
  EXPECT_EQ(argmax(std::span<const std::uint32_t>(u)), 1u);
  EXPECT_THROW(argmin(std::span<const std::uint32_t>()), error);
}

template <class H>
class HalfRules : public ::testing::Test {};
using HalfTypes = ::testing::Types<float16, bfloat16>;
TYPED_TEST_SUITE(HalfRules, HalfTypes);

TYPED_TEST(HalfRules, EveryPatternWidensExactlyAsToFloat) {
  // All 65536 patterns through the engine's vector and scalar widening (the sum of one element is that element).
  using H = TypeParam;
  for (std::uint32_t b = 0; b < 65536; ++b) {
    const H h = static_cast<H>(static_cast<std::uint16_t>(b));
    const float expected = to_float(h);
    EXPECT_EQ(bits(order::widen<float, H>(static_cast<std::uint16_t>(b))), bits(expected)) << b;
    if (!std::isnan(expected)) {
      EXPECT_EQ(bits(sum(std::span<const H>(&h, 1))), bits(expected)) << b;
    }
  }
  // binary16 anchors.
  if constexpr (std::is_same_v<H, float16>) {
    EXPECT_EQ(to_float(static_cast<float16>(0x3c00)), 1.0f);
    EXPECT_EQ(to_float(static_cast<float16>(0x0001)), 0x1p-24f);
    EXPECT_EQ(to_float(static_cast<float16>(0x7bff)), 65504.0f);
    EXPECT_EQ(to_float(static_cast<float16>(0xfc00)), -std::numeric_limits<float>::infinity());
  } else {
    EXPECT_EQ(to_float(static_cast<bfloat16>(0x3f80)), 1.0f);
  }
}

TYPED_TEST(HalfRules, SumsAndDotsEqualThoseOfTheWidenedFloats) {
  using H = TypeParam;
  for (bool finite : {true, false}) {
    for (std::uint64_t n : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{4097}, std::uint64_t{300001}}) {
      const std::vector<H> x = random_halves<H>(n, 60 + n, finite);
      const std::vector<H> y = random_halves<H>(n, 61 + n, finite);
      std::vector<float> xf(n);
      std::vector<float> yf(n);
      for (std::uint64_t i = 0; i < n; ++i) {
        xf[i] = to_float(x[i]);
        yf[i] = to_float(y[i]);
      }
      for (mode m : {mode::tree, mode::compensated}) {
        for (int t : {1, 2}) {
          EXPECT_EQ(bits(sum(std::span<const H>(x), {.mode = m, .threads = t})),
                    bits(sum(std::span<const float>(xf), {.mode = m})))
              << n << " " << to_string(m);
          EXPECT_EQ(bits(dot(std::span<const H>(x), std::span<const H>(y), {.mode = m, .threads = t})),
                    bits(dot(std::span<const float>(xf), std::span<const float>(yf), {.mode = m})))
              << n << " " << to_string(m);
        }
      }
    }
  }
}

}  // namespace
}  // namespace detred::testing
