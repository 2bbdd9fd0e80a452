// SPDX-License-Identifier: BSD-3-Clause
// The scans (detred/scan.hpp): every output of every path (instruction set, thread count, threaded driver forced on
// small inputs, alignment, in place) has the reference's bits; exclusive outputs are the inclusive ones shifted;
// segments and matrix lines equal the one-array call; integers are exact and refuse overflow; bad arguments are
// refused; every output is within the documented bound of the exact prefix sum (MPFR).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <set>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>
#if DETRED_SCAN_TEST_MPFR
#include <mpfr.h>
#endif

#include "detred/detred.hpp"
#include "paths.hpp"
#include "scan/scan_backend.hpp"
#include "test_data.hpp"

namespace detred::testing {
namespace {

template <class T>
class Scan : public ::testing::Test {};
using Types = ::testing::Types<double, float>;
TYPED_TEST_SUITE(Scan, Types);

/// Sizes around every boundary of the scan order: a lane's R positions, a register group, W lanes (a row of
/// lanes' worth), a leaf L, the powers of two of the leaf-offset tree (4, 7, 8, 9, 16, 33 leaves), plus one big size.
template <class T>
std::vector<std::uint64_t> scan_sizes() {
  constexpr std::uint64_t W = order::lanes<T>;
  constexpr std::uint64_t L = order::leaf_size<T>;
  constexpr std::uint64_t R = order::scan_lane_length<T>;
  std::set<std::uint64_t> s = {0,     1,     2,     3, R - 1, R,         R + 1, 2 * R + 5, W - 1,        W,
                               W + 1, L - R, L - 1, L, L + 1, 2 * L - 1, 2 * L, 2 * L + 1, 3 * L + W + 1};
  for (std::uint64_t leaves : {4, 7, 8, 9, 16, 33}) s.insert({leaves * L - 1, leaves * L, leaves * L + 1});
  return {s.begin(), s.end()};
}

template <class T>
std::vector<T> reference_of(std::span<const T> x, mode m) {
  std::vector<T> y(x.size());
  reference::cumsum(x, std::span<T>(y), m);
  return y;
}

template <class Y>
void expect_same_bits(const std::vector<Y>& got, const std::vector<Y>& expected, const std::string& what) {
  ASSERT_EQ(got.size(), expected.size()) << what;
  for (std::uint64_t i = 0; i < got.size(); ++i) {
    if (bits(got[i]) != bits(expected[i])) {
      ADD_FAILURE() << what << ": output " << i << " of " << got.size() << " is " << got[i] << ", expected "
                    << expected[i];
      return;  // one message per comparison
    }
  }
  comparisons() += 1;
}

/// The exclusive outputs: -0.0, then the inclusive ones shifted by one.
template <class Y>
std::vector<Y> shifted(const std::vector<Y>& inclusive) {
  std::vector<Y> e(inclusive.size());
  if (!e.empty()) e[0] = Y(-0.0);
  for (std::uint64_t i = 1; i < e.size(); ++i) e[i] = inclusive[i - 1];
  return e;
}

/// Every path: the public API per instruction set and thread count, and the driver with the threshold at 0 (so
/// small inputs are split among threads too) for every distinct split, inclusive and exclusive; every output against
/// the reference.
template <class In, class Y>
void expect_every_path(std::span<const In> x, mode m, const std::vector<Y>& expected, const std::string& what) {
  const std::vector<Y> expected_exclusive = shifted(expected);
  for (isa i : supported_isas()) {
    std::set<std::uint64_t> teams;  // the driver splits m leaves among min(m, t) threads: larger t repeat a split
    for (int t : thread_counts()) {
      const std::uint64_t team =
          std::min<std::uint64_t>(order::leaf_count<order::float_value_t<In>>(x.size()), static_cast<std::uint64_t>(t));
      const bool new_split = teams.insert(team).second;
      const std::string path = what + " mode=" + to_string(m) + " isa=" + to_string(i) +
                               " threads=" + std::to_string(t) + " n=" + std::to_string(x.size());
      std::vector<Y> y(x.size());
      cumsum(x, std::span<Y>(y), {.mode = m, .threads = t, .isa = i});
      expect_same_bits(y, expected, path + " api");
      exclusive_cumsum(x, std::span<Y>(y), {.mode = m, .threads = t, .isa = i});
      expect_same_bits(y, expected_exclusive, path + " api exclusive");
      const cpu::run_options split{.threads = t, .instruction_set = i, .parallel_threshold_bytes = 0};
      const auto run = [&]<class Policy>(bool exclusive) {
        cpu::scan<order::scan_op<In, Policy>>(x.data(), x.size(), y.data(), exclusive, split);
      };
      for (bool exclusive : {false, true}) {
        if (!new_split) break;
        if (m == mode::compensated) {
          run.template operator()<order::compensated_sums>(exclusive);
        } else {
          run.template operator()<order::plain_sums>(exclusive);
        }
        expect_same_bits(y, exclusive ? expected_exclusive : expected,
                         path + (exclusive ? " split exclusive" : " split"));
      }
    }
  }
}

TYPED_TEST(Scan, EveryPathMatchesTheReferenceAtEveryBoundary) {
  using T = TypeParam;
  for (std::uint64_t n : scan_sizes<T>()) {
    for (values v : all_value_classes()) {
      // Beyond one leaf, the classes that exercise arithmetic; the special values are covered at the small ones.
      if (n > order::leaf_size<T> + 1 && v != values::dynamic_range && v != values::ill_conditioned &&
          v != values::with_nan) {
        continue;
      }
      const std::vector<T> x = generate<T>(v, n, 3600 + n);
      for (mode m : {mode::tree, mode::compensated}) {
        expect_every_path<T, T>(std::span<const T>(x), m, reference_of<T>(x, m), name(v));
      }
    }
  }
}

TYPED_TEST(Scan, LargeArrayEveryThreadCount) {
  using T = TypeParam;
  const std::uint64_t n = (std::uint64_t{1} << 20) + 3;
  const std::vector<T> x = generate<T>(values::dynamic_range, n, 36);
  for (mode m : {mode::tree, mode::compensated}) {
    const std::vector<T> expected = reference_of<T>(x, m);
    for (int t : {1, 2, 3, 64}) {
      std::vector<T> y(n);
      cumsum(std::span<const T>(x), std::span<T>(y), {.mode = m, .threads = t});
      expect_same_bits(y, expected, "n=2^20+3 threads=" + std::to_string(t));
    }
  }
}

TYPED_TEST(Scan, MisalignedAndInPlace) {
  using T = TypeParam;
  const std::uint64_t n = 5 * order::leaf_size<T> + 77;
  const std::vector<T> data = generate<T>(values::dynamic_range, n + 16, 99);
  for (std::uint64_t offset = 0; offset < 9; ++offset) {
    const std::span<const T> x(data.data() + offset, n);
    for (mode m : {mode::tree, mode::compensated}) {
      const std::vector<T> expected = reference_of<T>(x, m);
      for (isa i : supported_isas()) {
        for (int t : {1, 3}) {
          const options opt{.mode = m, .threads = t, .isa = i};
          const std::string what = "offset " + std::to_string(offset) + " isa=" + to_string(i) +
                                   " threads=" + std::to_string(t) + " mode=" + to_string(m);
          std::vector<T> out(n + 16);
          cumsum(x, std::span<T>(out.data() + (offset + 3) % 9, n), opt);
          expect_same_bits(std::vector<T>(out.begin() + static_cast<long>((offset + 3) % 9),
                                          out.begin() + static_cast<long>((offset + 3) % 9 + n)),
                           expected, what + " misaligned output");
          std::vector<T> in_place(data.begin(), data.end());
          cumsum(std::span<T>(in_place.data() + offset, n), opt);
          expect_same_bits(std::vector<T>(in_place.begin() + static_cast<long>(offset),
                                          in_place.begin() + static_cast<long>(offset + n)),
                           expected, what + " in place");
          std::vector<T> excl(data.begin(), data.end());
          exclusive_cumsum(std::span<T>(excl.data() + offset, n), {.mode = m, .threads = t, .isa = i});
          expect_same_bits(
              std::vector<T>(excl.begin() + static_cast<long>(offset), excl.begin() + static_cast<long>(offset + n)),
              shifted(expected), what + " exclusive in place");
          // The threaded driver in place (threshold 0), where pass 2 writes leaves other threads have read.
          std::vector<T> split(data.begin() + static_cast<long>(offset), data.begin() + static_cast<long>(offset + n));
          const cpu::run_options how{.threads = t, .instruction_set = i, .parallel_threshold_bytes = 0};
          if (m == mode::tree) {
            cpu::scan<order::scan_op<T, order::plain_sums>>(split.data(), n, split.data(), true, how);
          } else {
            cpu::scan<order::scan_op<T, order::compensated_sums>>(split.data(), n, split.data(), true, how);
          }
          expect_same_bits(split, shifted(expected), what + " split exclusive in place");
        }
      }
    }
  }
}

/// A known case, worked by hand: the outputs of a short scan are the running sums (one lane, exact values).
TEST(ScanRules, SmallExactValuesAndSpecials) {
  const std::vector<double> x = {1, 2, 3, 4.5, -10};
  std::vector<double> y(x.size());
  cumsum(std::span<const double>(x), std::span<double>(y));
  EXPECT_EQ(y, (std::vector<double>{1, 3, 6, 10.5, 0.5}));
  exclusive_cumsum(std::span<const double>(x), std::span<double>(y));
  EXPECT_EQ(bits(y[0]), bits(-0.0));
  EXPECT_EQ(y[4], 10.5);
  const std::vector<double> z = {
      -0.0, -0.0, 0.0, std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(), 1.0};
  std::vector<double> w(z.size());
  for (mode m : {mode::tree, mode::compensated}) {
    cumsum(std::span<const double>(z), std::span<double>(w), {.mode = m});
    EXPECT_EQ(bits(w[0]), bits(-0.0)) << to_string(m);
    EXPECT_EQ(bits(w[1]), bits(-0.0)) << to_string(m);
    EXPECT_EQ(bits(w[2]), bits(0.0)) << to_string(m);
    EXPECT_EQ(w[3], std::numeric_limits<double>::infinity()) << to_string(m);
    EXPECT_EQ(bits(w[4]), bits(std::numeric_limits<double>::quiet_NaN())) << to_string(m);
    EXPECT_EQ(bits(w[5]), bits(std::numeric_limits<double>::quiet_NaN())) << to_string(m);
  }
}

/// The outputs do not depend on n: output i of an array is output i of every longer array.
TYPED_TEST(Scan, OutputsDependOnThePrefixOnly) {
  using T = TypeParam;
  const std::uint64_t n = 9 * order::leaf_size<T> + 5;
  const std::vector<T> x = generate<T>(values::ill_conditioned, n, 7);
  for (mode m : {mode::tree, mode::compensated}) {
    const std::vector<T> full = reference_of<T>(x, m);
    for (std::uint64_t k : {std::uint64_t{1}, order::leaf_size<T> + 3, 8 * order::leaf_size<T>, n - 1}) {
      std::vector<T> part(k);
      cumsum(std::span<const T>(x.data(), k), std::span<T>(part), {.mode = m, .threads = 2});
      expect_same_bits(part, std::vector<T>(full.begin(), full.begin() + static_cast<long>(k)),
                       "prefix " + std::to_string(k));
    }
  }
}

template <class H>
void sixteen_bit_case() {
  // Random bit patterns: every class of value, NaN and Inf included.
  const std::uint64_t n = 3 * order::leaf_size<float> + 41;
  std::vector<H> h(n);
  std::vector<float> f(n);
  rng random(16);
  for (std::uint64_t i = 0; i < n; ++i) {
    const auto b = static_cast<std::uint16_t>(random.next() >> 48);
    // Keep most values finite so that outputs are not all NaN: clear the top exponent bit of 15 in 16.
    const auto kept = static_cast<std::uint16_t>(i % 16 == 0 ? b : (b & 0xbfffu));
    h[i] = H{kept};
    f[i] = to_float(h[i]);
  }
  for (mode m : {mode::tree, mode::compensated}) {
    const std::vector<float> expected = reference_of<float>(std::span<const float>(f), m);
    std::vector<float> ref16(n);
    reference::cumsum(std::span<const H>(h), std::span<float>(ref16), m);
    expect_same_bits(ref16, expected, "16-bit reference equals the float reference of the widened values");
    expect_every_path<H, float>(std::span<const H>(h), m, expected, "16-bit");
  }
}
TEST(ScanRules, Float16AndBfloat16ScanAsTheirFloatValues) {
  sixteen_bit_case<float16>();
  sixteen_bit_case<bfloat16>();
}

TYPED_TEST(Scan, SegmentsEqualTheOneArrayCall) {
  using T = TypeParam;
  const std::uint64_t L = order::leaf_size<T>;
  const std::vector<std::uint64_t> offsets = {3, 3, 4, 4 + L, 5 + 3 * L, 5 + 3 * L, 6 + 3 * L + 100, 6 + 80 * L};
  const std::uint64_t n = offsets.back() + 7;
  const std::vector<T> x = generate<T>(values::dynamic_range, n, 55);
  for (mode m : {mode::tree, mode::compensated}) {
    for (bool exclusive : {false, true}) {
      for (int t : {1, 2, 5}) {
        std::vector<T> y(n, T(12345));
        const options opt{.mode = m, .threads = t};
        if (exclusive) {
          exclusive_cumsum(std::span<const T>(x), segments{offsets}, std::span<T>(y), opt);
        } else {
          cumsum(std::span<const T>(x), segments{offsets}, std::span<T>(y), opt);
        }
        for (std::uint64_t i = 0; i < offsets.front(); ++i) EXPECT_EQ(y[i], T(12345)) << "before the first segment";
        for (std::uint64_t i = offsets.back(); i < n; ++i) EXPECT_EQ(y[i], T(12345)) << "after the last segment";
        for (std::uint64_t k = 0; k + 1 < offsets.size(); ++k) {
          const std::span<const T> piece(x.data() + offsets[k], offsets[k + 1] - offsets[k]);
          std::vector<T> alone(piece.size());
          if (exclusive) {
            exclusive_cumsum(piece, std::span<T>(alone), {.mode = m, .threads = 1});
          } else {
            cumsum(piece, std::span<T>(alone), {.mode = m, .threads = 1});
          }
          expect_same_bits(
              std::vector<T>(y.begin() + static_cast<long>(offsets[k]), y.begin() + static_cast<long>(offsets[k + 1])),
              alone, "segment " + std::to_string(k) + " threads=" + std::to_string(t));
        }
      }
    }
  }
}

TYPED_TEST(Scan, MatrixAxesEqualTheOneArrayCallOnEachLine) {
  using T = TypeParam;
  const std::uint64_t rows = 37;
  const std::uint64_t cols = order::leaf_size<T> + 9;
  for (layout lay : {layout::row_major, layout::column_major}) {
    for (std::uint64_t pad : {std::uint64_t{0}, std::uint64_t{3}}) {
      const std::uint64_t ld = (lay == layout::row_major ? cols : rows) + pad;
      const std::uint64_t outer = lay == layout::row_major ? rows : cols;
      const std::vector<T> data = generate<T>(values::dynamic_range, outer * ld, 77 + pad);
      const matrix_view<T> a{data.data(), rows, cols, ld, lay};
      const auto at = [&](std::uint64_t i, std::uint64_t j) {
        return lay == layout::row_major ? data[i * ld + j] : data[j * ld + i];
      };
      const auto out_at = [&](const std::vector<T>& y, std::uint64_t i, std::uint64_t j) {
        return lay == layout::row_major ? y[i * cols + j] : y[j * rows + i];
      };
      for (int axis : {0, 1}) {
        for (mode m : {mode::tree, mode::compensated}) {
          std::vector<T> y(rows * cols);
          cumsum(a, axis, std::span<T>(y), {.mode = m, .threads = 2});
          const std::uint64_t lines = axis == 0 ? cols : rows;
          const std::uint64_t length = axis == 0 ? rows : cols;
          for (std::uint64_t t = 0; t < lines; ++t) {
            std::vector<T> line(length);
            for (std::uint64_t i = 0; i < length; ++i) line[i] = axis == 0 ? at(i, t) : at(t, i);
            const std::vector<T> expected = reference_of<T>(std::span<const T>(line), m);
            std::vector<T> got(length);
            for (std::uint64_t i = 0; i < length; ++i) got[i] = axis == 0 ? out_at(y, i, t) : out_at(y, t, i);
            expect_same_bits(got, expected, "axis " + std::to_string(axis) + " line " + std::to_string(t));
          }
        }
      }
    }
  }
}

TEST(ScanRules, IntegersAreExactAndRefuseOverflow) {
  const std::vector<std::int32_t> a = {5, -7, std::numeric_limits<std::int32_t>::max(),
                                       std::numeric_limits<std::int32_t>::min(), 3};
  std::vector<std::int64_t> y(a.size());
  cumsum(std::span<const std::int32_t>(a), std::span<std::int64_t>(y));
  EXPECT_EQ(y, (std::vector<std::int64_t>{5, -2, 2147483645, -3, 0}));
  exclusive_cumsum(std::span<const std::int32_t>(a), std::span<std::int64_t>(y));
  EXPECT_EQ(y, (std::vector<std::int64_t>{0, 5, -2, 2147483645, -3}));

  const std::int64_t big = std::numeric_limits<std::int64_t>::max();
  std::vector<std::int64_t> b = {big, 1, -5};
  std::vector<std::int64_t> out(3);
  EXPECT_THROW(cumsum(std::span<const std::int64_t>(b), std::span<std::int64_t>(out)), overflow_error);
  // Back in range after the overflowing prefix is still refused: output 1 does not fit.
  try {
    cumsum(std::span<std::int64_t>(b));
    ADD_FAILURE() << "no overflow_error";
  } catch (const overflow_error& e) {
    EXPECT_NE(std::string(e.what()).find("output 1"), std::string::npos) << e.what();
  }
  // Exclusive: the total after the last element is not an output, so it may exceed the type.
  std::vector<std::int64_t> c = {1, big - 1};
  exclusive_cumsum(std::span<std::int64_t>(c));
  EXPECT_EQ(c, (std::vector<std::int64_t>{0, 1}));

  const std::vector<std::uint64_t> u = {std::numeric_limits<std::uint64_t>::max(), 1};
  std::vector<std::uint64_t> uy(2);
  EXPECT_THROW(cumsum(std::span<const std::uint64_t>(u), std::span<std::uint64_t>(uy)), overflow_error);
  const std::vector<std::uint32_t> u32(100000, 4000000000u);
  std::vector<std::uint64_t> u32y(u32.size());
  cumsum(std::span<const std::uint32_t>(u32), std::span<std::uint64_t>(u32y), {.threads = 2});
  EXPECT_EQ(u32y.back(), 400000000000000ull);
  // Integer segments.
  std::vector<std::int64_t> seg_out(a.size(), 99);
  const std::vector<std::uint64_t> offs = {0, 2, 5};
  cumsum(std::span<const std::int32_t>(a), segments{offs}, std::span<std::int64_t>(seg_out));
  EXPECT_EQ(seg_out, (std::vector<std::int64_t>{5, -2, 2147483647, -1, 2}));
}

TEST(ScanRules, BadArgumentsAreRefused) {
  std::vector<double> x(100, 1.0);
  std::vector<double> y(99);
  EXPECT_THROW(cumsum(std::span<const double>(x), std::span<double>(y)), error);
  // Overlapping but not the same array.
  EXPECT_THROW(cumsum(std::span<const double>(x.data(), 50), std::span<double>(x.data() + 1, 50)), error);
  EXPECT_THROW(cumsum(std::span<const double>(x.data() + 1, 50), std::span<double>(x.data(), 50)), error);
  std::vector<double> z(100);
  EXPECT_THROW(cumsum(std::span<const double>(x), std::span<double>(z), {.mode = mode::exact}), error);
  EXPECT_THROW(cumsum(std::span<const double>(x), std::span<double>(z), {.threads = -1}), error);
  for (isa i : unsupported_isas()) {
    EXPECT_THROW(cumsum(std::span<const double>(x), std::span<double>(z), {.isa = i}), error) << to_string(i);
  }
  const std::vector<std::uint64_t> bad = {0, 50, 40};
  EXPECT_THROW(cumsum(std::span<const double>(x), segments{bad}, std::span<double>(z)), error);
  const std::vector<std::uint64_t> past = {0, 101};
  EXPECT_THROW(cumsum(std::span<const double>(x), segments{past}, std::span<double>(z)), error);
  const matrix_view<double> a{x.data(), 10, 10, 10};
  EXPECT_THROW(cumsum(a, 2, std::span<double>(z)), error);
  EXPECT_THROW(cumsum(a, 0, std::span<double>(y)), error);
  EXPECT_THROW(cumsum_bound<double>(10, mode::exact), error);
  // In place on a packed matrix is allowed.
  std::vector<double> m(100, 1.0);
  cumsum(matrix_view<double>{m.data(), 10, 10, 10}, 1, std::span<double>(m));
  EXPECT_EQ(m[9], 10.0);
  EXPECT_EQ(m[10], 1.0);
}

#if DETRED_SCAN_TEST_MPFR
/// |S_i - y_i| <= result_factor |S_i| + abs_sum_factor A_i for every output, S_i and A_i exact (MPFR with enough
/// bits that adding any double is exact), the right side rounded upward.
template <class T>
void expect_within_bound(std::span<const T> x, mode m, const std::string& what) {
  std::vector<T> y(x.size());
  cumsum(x, std::span<T>(y), {.mode = m, .threads = 2});
  mpfr_t s, a, d, rhs, t;
  for (mpfr_t* v : {&s, &a, &d, &rhs, &t}) mpfr_init2(*v, 2400);
  mpfr_set_zero(s, 1);
  mpfr_set_zero(a, 1);
  double worst = 0;
  for (std::uint64_t i = 0; i < x.size(); ++i) {
    mpfr_add_d(s, s, static_cast<double>(x[i]), MPFR_RNDN);  // exact at 2400 bits
    mpfr_add_d(a, a, std::fabs(static_cast<double>(x[i])), MPFR_RNDN);
    ASSERT_TRUE(std::isfinite(y[i])) << what << ": output " << i;
    mpfr_sub_d(d, s, static_cast<double>(y[i]), MPFR_RNDN);  // exact
    mpfr_abs(d, d, MPFR_RNDN);
    const scan_bound b = cumsum_bound<T>(i, m);
    // Factors computed in double may be a few ulps low: widened by 2^-40.
    mpfr_abs(rhs, s, MPFR_RNDU);
    mpfr_mul_d(rhs, rhs, b.result_factor * (1 + 0x1p-40), MPFR_RNDU);
    mpfr_mul_d(t, a, b.abs_sum_factor * (1 + 0x1p-40), MPFR_RNDU);
    mpfr_add(rhs, rhs, t, MPFR_RNDU);
    if (mpfr_cmp(d, rhs) > 0) {
      ADD_FAILURE() << what << " mode=" << to_string(m) << ": output " << i << " error " << mpfr_get_d(d, MPFR_RNDU)
                    << " above its bound " << mpfr_get_d(rhs, MPFR_RNDU);
      break;
    }
    if (mpfr_sgn(rhs) > 0) {
      mpfr_div(t, d, rhs, MPFR_RNDU);
      worst = std::max(worst, mpfr_get_d(t, MPFR_RNDU));
    }
  }
  std::cout << "[ bound    ] " << what << " " << to_string(m) << " n=" << x.size() << ": worst error/bound " << worst
            << "\n";
  for (mpfr_t* v : {&s, &a, &d, &rhs, &t}) mpfr_clear(*v);
}

TYPED_TEST(Scan, EveryOutputWithinTheDocumentedBound) {
  using T = TypeParam;
  const std::uint64_t n = 20 * order::leaf_size<T> + 333;
  for (values v :
       {values::uniform, values::same_sign, values::dynamic_range, values::ill_conditioned, values::subnormal}) {
    const std::vector<T> x = generate<T>(v, n, 4242);
    for (mode m : {mode::tree, mode::compensated}) expect_within_bound<T>(std::span<const T>(x), m, name(v));
  }
  // Adversarial for a scan: a huge value early, then small ones whose prefixes cancel it at the end.
  std::vector<T> x(n, T(1) / T(3));
  x[0] = T(1e6);
  x[n / 2] = T(-1e6);
  for (mode m : {mode::tree, mode::compensated}) expect_within_bound<T>(std::span<const T>(x), m, "cancel");
}

#endif  // DETRED_SCAN_TEST_MPFR

TEST(ScanRules, DepthFormula) {
  // D_s(n) = (min(n, R) - 1) + log2 W + ceil(log2((n - 1) / L)) + 2.
  EXPECT_EQ(order::scan_depth<double>(0), 0);
  EXPECT_EQ(order::scan_depth<double>(1), 0 + 6 + 0 + 2);
  EXPECT_EQ(order::scan_depth<double>(2048), 31 + 6 + 0 + 2);
  EXPECT_EQ(order::scan_depth<double>(2049), 31 + 6 + 0 + 2);
  EXPECT_EQ(order::scan_depth<double>(2048 * 3 + 1), 31 + 6 + 2 + 2);
  EXPECT_EQ(order::scan_depth<float>(4096 * 1024 + 1), 31 + 7 + 10 + 2);
  EXPECT_EQ(order::scan_order_version, 1);
}

/// order::leaf_offset (the offsets in random-access form, which the GPU's one-pass scan uses) gives the bits of
/// subtree_stack's root after b pushes, for every b up to 2^11 + 5 (every shape of the binary counter that far).
template <class Op>
void expect_leaf_offsets_match_the_stack(std::uint64_t seed) {
  using S = typename Op::state;
  using T = typename Op::value;
  const std::uint64_t m = (std::uint64_t{1} << 11) + 5;
  const std::vector<T> values = generate<T>(values::ill_conditioned, 2 * m, seed);
  // Leaf totals with corrections: states of (value, value * 2^-30) in compensated mode.
  std::vector<S> totals(m);
  for (std::uint64_t b = 0; b < m; ++b) {
    if constexpr (std::is_same_v<S, T>) {
      totals[b] = values[b];
    } else {
      totals[b] = {values[b], values[m + b] * T(0x1p-30)};
    }
  }
  // perfect[k][i]: the root of the perfect tree over leaves [i 2^k, (i + 1) 2^k).
  std::vector<std::vector<S>> perfect = {totals};
  while (perfect.back().size() > 1) {
    const std::vector<S>& below = perfect.back();
    std::vector<S> level(below.size() / 2);
    for (std::uint64_t i = 0; i < level.size(); ++i) level[i] = order::merge<Op>(below[2 * i], below[2 * i + 1]);
    perfect.push_back(level);
  }
  order::subtree_stack<Op> stack;
  for (std::uint64_t b = 0; b < m; ++b) {
    const S want = stack.root();
    const S got = order::leaf_offset<Op>(b, [&](int k, std::uint64_t i) { return perfect[k][i]; });
    ASSERT_EQ(std::memcmp(&want, &got, sizeof want), 0) << "leaf " << b;
    stack.push(totals[b], 1);
  }
}
TEST(ScanRules, LeafOffsetsInRandomAccessEqualTheStack) {
  expect_leaf_offsets_match_the_stack<order::scan_op<float, order::plain_sums>>(1);
  expect_leaf_offsets_match_the_stack<order::scan_op<double, order::plain_sums>>(2);
  expect_leaf_offsets_match_the_stack<order::scan_op<float, order::compensated_sums>>(3);
  expect_leaf_offsets_match_the_stack<order::scan_op<double, order::compensated_sums>>(4);
}

}  // namespace
}  // namespace detred::testing

namespace detred::testing {
namespace {

/// Pieces: the totals of the earlier pieces carried into each piece give the one-call bits, whatever the split.
TYPED_TEST(Scan, PiecesGiveTheOneCallBits) {
  using T = TypeParam;
  const std::uint64_t L = order::leaf_size<T>;
  const std::uint64_t n = 11 * L + 123;
  const std::vector<T> x = generate<T>(values::ill_conditioned, n, 808);
  for (mode m : {mode::tree, mode::compensated}) {
    const std::vector<T> expected = reference_of<T>(x, m);
    for (const std::vector<std::uint64_t>& leaves : std::vector<std::vector<std::uint64_t>>{{11}, {1, 10}, {3, 3, 5}}) {
      for (int t : {1, 3}) {
        const options opt{.mode = m, .threads = t};
        // Pass 1 on every piece, in any order; the totals are concatenated in the pieces' order.
        std::vector<scan_total<T>> all;
        std::vector<std::uint64_t> starts = {0};
        for (std::uint64_t k = 0; k < leaves.size(); ++k) starts.push_back(starts.back() + leaves[k] * L);
        starts.back() = n;  // the last piece takes the ragged rest
        for (std::uint64_t k = 0; k + 1 < starts.size(); ++k) {
          const std::span<const T> piece(x.data() + starts[k], starts[k + 1] - starts[k]);
          std::vector<scan_total<T>> totals(order::leaf_count<T>(piece.size()));
          cumsum_totals(piece, std::span<scan_total<T>>(totals), opt);
          all.insert(all.end(), totals.begin(), totals.end());
        }
        std::vector<T> y(n);
        for (std::uint64_t k = 0; k + 1 < starts.size(); ++k) {
          const std::span<const T> piece(x.data() + starts[k], starts[k + 1] - starts[k]);
          cumsum_piece(piece, std::span<const scan_total<T>>(all.data(), starts[k] / L),
                       std::span<T>(y.data() + starts[k], piece.size()), opt);
        }
        expect_same_bits(y, expected, "pieces of " + std::to_string(leaves.size()) + " threads=" + std::to_string(t));
      }
    }
    std::vector<scan_total<T>> wrong(2);
    EXPECT_THROW(cumsum_totals(std::span<const T>(x.data(), L + 1), std::span<scan_total<T>>(wrong.data(), 1)), error);
  }
}

}  // namespace
}  // namespace detred::testing
