// SPDX-License-Identifier: BSD-3-Clause
// Exact mode of the batched calls: every segment, row, column and bin equals, bit for bit, the single-array exact
// call on it alone (itself checked against the MPFR oracle by exact_test), whatever the batch around it, its order,
// the layout, the leading dimension, the thread count or the instruction set; nrm2 and stats still refuse the mode;
// and the argument errors are those of the other modes.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "../batch_cases.hpp"
#include "../test_data.hpp"
#include "detred/cuda.hpp"
#include "detred/detred.hpp"
#include "exact/exact_batches.hpp"

namespace detred::testing {
namespace {

template <class T>
class ExactBatched : public ::testing::Test {};
using FloatTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(ExactBatched, FloatTypes);

enum class op { sum, asum, dot, nrm2 };
const char* name(op o) { return o == op::sum ? "sum" : o == op::asum ? "asum" : o == op::dot ? "dot" : "nrm2"; }
exact_cpu::line_op line_op_of(op o) {
  if (o == op::nrm2) return exact_cpu::line_op::squares;
  return o == op::sum ? exact_cpu::line_op::sum : o == op::asum ? exact_cpu::line_op::asum : exact_cpu::line_op::dot;
}

/// nrm2's lines end in the square root of their exact sum, the others in its rounding.
exact::finish finish_of(op o) { return o == op::nrm2 ? exact::finish::square_root : exact::finish::rounded; }

const options exact_mode{.mode = mode::exact};

/// The single-array exact call.
template <class T>
T single(op o, std::span<const T> x, std::span<const T> y) {
  if (o == op::sum) return detred::sum(x, exact_mode);
  if (o == op::asum) return detred::asum(x, exact_mode);
  if (o == op::nrm2) return detred::nrm2(x, exact_mode);
  return detred::dot(x, y, exact_mode);
}

/// Requires got[k] and expected[k] to have the same bits for every k; reports the first difference only.
template <class T>
void expect_bits(const std::vector<T>& got, const std::vector<T>& expected, const std::string& what) {
  ASSERT_EQ(got.size(), expected.size()) << what;
  for (std::size_t k = 0; k < got.size(); ++k) {
    if (bits(got[k]) != bits(expected[k])) {
      ADD_FAILURE() << what << ": line " << k << " of " << got.size() << " got " << got[k] << " expected "
                    << expected[k];
      return;
    }
  }
}

/// Every instruction set with one to three threads; the test knob parallel_threshold_bytes = 0 (driver calls only)
/// makes the threads split small batches too, and the long-line path take lines of a few hundred elements.
std::vector<options> exact_paths() {
  std::vector<options> out;
  for (isa i : supported_isas()) {
    for (int t : {1, 2, 3}) out.push_back({.mode = mode::exact, .threads = t, .isa = i});
  }
  return out;
}

/// [b, -b, b, -b, ...] with b = 0.75 of the largest finite value: every partial sum of two equal-signed terms would
/// overflow, the exact sum is b or 0.
template <class T>
std::vector<T> cancelling_maxima(std::uint64_t n) {
  const T big = T(0.75) * std::numeric_limits<T>::max();
  std::vector<T> v(n);
  for (std::uint64_t i = 0; i < n; ++i) v[i] = i % 2 == 0 ? big : -big;
  return v;
}

/// The contents of line k: a value class that moves with k and `shift` (every batch mixes ill-conditioned, huge
/// range, signed and negative zeros, subnormal, Inf and NaN lines), or the overflow-cancelling maxima.
template <class T>
std::vector<T> contents(std::uint64_t k, std::uint64_t shift, std::uint64_t n, std::uint64_t seed) {
  const std::vector<values>& classes = all_value_classes();
  const std::uint64_t c = (k + shift) % (classes.size() + 1);
  if (c == classes.size()) return cancelling_maxima<T>(n);
  return generate<T>(classes[c], n, seed);
}

/// A batch of segments: the values, dot's second operand (same offsets) and the CSR offsets.
template <class T>
struct segment_batch {
  std::vector<T> x, y;
  std::vector<std::uint64_t> offsets;

  std::uint64_t count() const { return offsets.size() - 1; }
  std::span<const T> x_of(std::uint64_t k) const { return std::span<const T>(x).subspan(offsets[k], size(k)); }
  std::span<const T> y_of(std::uint64_t k) const { return std::span<const T>(y).subspan(offsets[k], size(k)); }
  std::uint64_t size(std::uint64_t k) const { return offsets[k + 1] - offsets[k]; }
};

/// Consecutive segments of the given lengths, segment k filled by contents(k, shift, ...).
template <class T>
segment_batch<T> make_batch(const std::vector<std::uint64_t>& lengths, std::uint64_t shift, std::uint64_t seed) {
  segment_batch<T> b;
  b.offsets = {0};
  for (std::uint64_t k = 0; k < lengths.size(); ++k) {
    const std::vector<T> x = contents<T>(k, shift, lengths[k], seed + 2 * k);
    const std::vector<T> y = contents<T>(k, shift + 5, lengths[k], seed + 2 * k + 1);
    b.x.insert(b.x.end(), x.begin(), x.end());
    b.y.insert(b.y.end(), y.begin(), y.end());
    b.offsets.push_back(b.x.size());
  }
  return b;
}

/// Offsets leave values out only before the first segment and after the last (segment k ends where k + 1 starts):
/// those get `gap` NaNs, which no result may show; between the segments, `gap` NaNs make segments of their own
/// (their result is NaN, checked like any other).
template <class T>
segment_batch<T> batch_with_gaps(const std::vector<std::uint64_t>& lengths, std::uint64_t gap, std::uint64_t shift,
                                 std::uint64_t seed) {
  std::vector<std::uint64_t> with_gaps;
  for (std::uint64_t n : lengths) {
    with_gaps.push_back(n);
    if (gap != 0) with_gaps.push_back(gap);
  }
  segment_batch<T> b = make_batch<T>(with_gaps, shift, seed);
  if (gap != 0) {
    const T nan = std::numeric_limits<T>::quiet_NaN();
    for (std::uint64_t k = 1; k < b.count(); k += 2) {
      std::fill(b.x.begin() + static_cast<std::ptrdiff_t>(b.offsets[k]),
                b.x.begin() + static_cast<std::ptrdiff_t>(b.offsets[k + 1]), nan);
    }
  }
  // Values before the first offset and after the last are outside every segment.
  b.x.insert(b.x.begin(), gap, std::numeric_limits<T>::quiet_NaN());
  b.y.insert(b.y.begin(), gap, std::numeric_limits<T>::quiet_NaN());
  for (auto& o : b.offsets) o += gap;
  b.x.resize(b.x.size() + gap, std::numeric_limits<T>::quiet_NaN());
  b.y.resize(b.x.size(), std::numeric_limits<T>::quiet_NaN());
  return b;
}

template <class T>
std::vector<T> expected_of(op o, const segment_batch<T>& b) {
  std::vector<T> e(b.count());
  for (std::uint64_t k = 0; k < b.count(); ++k) e[k] = single<T>(o, b.x_of(k), b.y_of(k));
  return e;
}

template <class T>
std::vector<T> through_api(op o, const segment_batch<T>& b, const options& opt) {
  std::vector<T> r(b.count(), T(12345));
  const segments s{b.offsets};
  const std::span<const T> x(b.x), y(b.y);
  if (o == op::sum) detred::sum(x, s, std::span<T>(r), opt);
  if (o == op::asum) detred::asum(x, s, std::span<T>(r), opt);
  if (o == op::dot) detred::dot(x, y, s, std::span<T>(r), opt);
  if (o == op::nrm2) detred::nrm2(x, s, std::span<T>(r), opt);
  return r;
}

template <class T>
std::vector<T> through_driver(op o, const segment_batch<T>& b, int threads, isa i) {
  std::vector<T> r(b.count(), T(12345));
  exact_cpu::reduce_lines<T>(line_op_of(o), finish_of(o), b.x.data(), b.y.data(), {.offsets = b.offsets.data()},
                             b.count(), r.data(),
                             {.threads = threads, .instruction_set = i, .parallel_threshold_bytes = 0});
  return r;
}

/// Lengths around the lanes, the order's leaf and the exact kernel's vectors and blocks of 1024, and longer ones.
template <class T>
std::vector<std::uint64_t> exact_segment_lengths(std::uint64_t seed) {
  std::vector<std::uint64_t> lengths = segment_lengths<T>(seed);
  for (std::uint64_t n : {31, 32, 33, 1023, 1024, 1025, 2049, 4100}) lengths.push_back(n);
  rng r(seed + 1);
  for (std::size_t i = lengths.size() - 1; i > 0; --i) std::swap(lengths[i], lengths[r.below(i + 1)]);
  return lengths;
}

TYPED_TEST(ExactBatched, EverySegmentEqualsTheSingleArrayCall) {
  using T = TypeParam;
  for (op o : {op::sum, op::asum, op::dot, op::nrm2}) {
    for (std::uint64_t shift = 0; shift < 12; ++shift) {
      for (std::uint64_t gap : {0, 3}) {
        const segment_batch<T> b = batch_with_gaps<T>(exact_segment_lengths<T>(shift), gap, shift, 100 * shift + 1);
        const std::vector<T> expected = expected_of(o, b);
        const std::string what =
            std::string(name(o)) + " shift " + std::to_string(shift) + " gap " + std::to_string(gap);
        for (const options& opt : exact_paths()) {
          expect_bits(through_api(o, b, opt), expected,
                      what + " isa " + to_string(opt.isa) + " threads " + std::to_string(opt.threads));
          if (opt.threads > 1) {
            expect_bits(through_driver(o, b, opt.threads, opt.isa), expected,
                        what + " (split) isa " + to_string(opt.isa) + " threads " + std::to_string(opt.threads));
          }
        }
      }
    }
  }
}

/// The same segments reversed, shuffled, and each alone in a batch of one.
TYPED_TEST(ExactBatched, ASegmentsBitsDoNotDependOnTheBatch) {
  using T = TypeParam;
  const std::vector<std::uint64_t> lengths = exact_segment_lengths<T>(7);
  for (op o : {op::sum, op::dot}) {
    const segment_batch<T> b = make_batch<T>(lengths, 4, 77);
    const std::vector<T> expected = expected_of(o, b);
    std::vector<std::uint64_t> order(b.count());
    for (std::uint64_t k = 0; k < order.size(); ++k) order[k] = k;
    rng r(8);
    for (int round = 0; round < 3; ++round) {
      if (round == 0) {
        std::reverse(order.begin(), order.end());
      } else {
        for (std::size_t i = order.size() - 1; i > 0; --i) std::swap(order[i], order[r.below(i + 1)]);
      }
      segment_batch<T> p;
      p.offsets = {0};
      std::vector<T> expected_p;
      for (std::uint64_t k : order) {
        const std::span<const T> xk = b.x_of(k), yk = b.y_of(k);
        p.x.insert(p.x.end(), xk.begin(), xk.end());
        p.y.insert(p.y.end(), yk.begin(), yk.end());
        p.offsets.push_back(p.x.size());
        expected_p.push_back(expected[k]);
      }
      for (int t : {1, 2, 3}) {
        expect_bits(through_api(o, p, {.mode = mode::exact, .threads = t}), expected_p,
                    std::string(name(o)) + " permutation " + std::to_string(round));
        if (t > 1) expect_bits(through_driver(o, p, t, isa::automatic), expected_p, "permutation (split)");
      }
    }
    for (std::uint64_t k = 0; k < b.count(); ++k) {
      std::vector<T> one(1);
      const std::vector<std::uint64_t> alone = {b.offsets[k], b.offsets[k + 1]};
      if (o == op::sum) detred::sum(std::span<const T>(b.x), segments{alone}, std::span<T>(one), exact_mode);
      if (o == op::dot) {
        detred::dot(std::span<const T>(b.x), std::span<const T>(b.y), segments{alone}, std::span<T>(one), exact_mode);
      }
      EXPECT_EQ(bits(one[0]), bits(expected[k])) << name(o) << " segment " << k << " alone";
    }
  }
}

/// Hand-made segments: only -0.0 (long and short), +0.0 with -0.0, Inf against Inf, NaN, a tie that a bit far below
/// breaks, and the overflow-cancelling maxima with a tiny rest, side by side in one batch.
TEST(ExactBatchedSpecial, ZerosInfinitiesAndCancellingMaxima) {
  const double inf = std::numeric_limits<double>::infinity();
  const double big = 0.75 * std::numeric_limits<double>::max();
  std::vector<std::vector<double>> lines = {std::vector<double>(3000, -0.0),
                                            {-0.0},
                                            {-0.0, 0.0},
                                            {},
                                            {inf, 1.0},
                                            {inf, -inf},
                                            {1.0, std::numeric_limits<double>::quiet_NaN()},
                                            {1.0, 0x1p-53},
                                            {1.0, 0x1p-53, 0x1p-1000},
                                            {big, -big, big, -big, big},
                                            {std::numeric_limits<double>::denorm_min(), -0.0},
                                            {std::numeric_limits<double>::max(), std::numeric_limits<double>::max()}};
  std::vector<double> maxima = cancelling_maxima<double>(5000);
  maxima.push_back(1e-300);
  lines.push_back(maxima);
  std::vector<double> x;
  std::vector<std::uint64_t> offsets = {0};
  for (const auto& l : lines) {
    x.insert(x.end(), l.begin(), l.end());
    offsets.push_back(x.size());
  }
  const std::vector<double> expected = {-0.0,
                                        -0.0,
                                        0.0,
                                        -0.0,
                                        inf,
                                        std::numeric_limits<double>::quiet_NaN(),
                                        std::numeric_limits<double>::quiet_NaN(),
                                        1.0,
                                        1.0 + 0x1p-52,
                                        big,
                                        std::numeric_limits<double>::denorm_min(),
                                        inf,
                                        1e-300};
  for (int t : {1, 2, 3}) {
    std::vector<double> r(lines.size());
    detred::sum(std::span<const double>(x), segments{offsets}, std::span<double>(r),
                {.mode = mode::exact, .threads = t});
    expect_bits(r, expected, "special segments threads " + std::to_string(t));
    for (std::size_t k = 0; k < lines.size(); ++k) {
      EXPECT_EQ(bits(r[k]), bits(detred::sum(std::span<const double>(lines[k]), exact_mode))) << "line " << k;
    }
  }
}

/// One state serves line after line of a batch (lib/exact/reused_state.hpp): each line is rounded over the words it
/// touched and only those are cleared. Lines whose values lie far apart in magnitude (so one line's words are not the
/// next one's), with NaN, infinities, -0.0 runs and empty lines between them, must each equal the single-array call.
TYPED_TEST(ExactBatched, ALineReusingTheStateOfTheLineBeforeIsUnaffectedByIt) {
  using T = TypeParam;
  std::uint64_t state = 12345;
  const auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return state >> 11;
  };
  const int max_exponent = std::numeric_limits<T>::max_exponent - 2;
  const int min_exponent = std::numeric_limits<T>::min_exponent - std::numeric_limits<T>::digits;
  std::vector<T> x;
  std::vector<std::uint64_t> offsets = {0};
  for (int line = 0; line < 600; ++line) {
    const std::uint64_t n = next() % 131;
    // Each line's values within a few binades of a magnitude of its own, anywhere from subnormal to near overflow.
    const int center =
        min_exponent + static_cast<int>(next() % static_cast<std::uint64_t>(max_exponent - min_exponent));
    for (std::uint64_t i = 0; i < n; ++i) {
      const int e = std::max(min_exponent, std::min(max_exponent, center + static_cast<int>(next() % 8) - 4));
      const T v = std::ldexp(static_cast<T>(next() % 1000000) / T(1000000), e) * ((next() & 1) != 0 ? T(1) : T(-1));
      x.push_back(v);
    }
    switch (next() % 12) {
      case 0:
        x.push_back(std::numeric_limits<T>::quiet_NaN());
        break;
      case 1:
        x.push_back(std::numeric_limits<T>::infinity());
        break;
      case 2:
        x.push_back(-std::numeric_limits<T>::infinity());
        break;
      case 3:
        x.insert(x.end(), 5, T(-0.0));
        break;
      default:
        break;
    }
    offsets.push_back(x.size());
  }
  for (int t : {1, 2}) {
    std::vector<T> r(offsets.size() - 1);
    detred::sum(std::span<const T>(x), segments{offsets}, std::span<T>(r), {.mode = mode::exact, .threads = t});
    for (std::size_t k = 0; k + 1 < offsets.size(); ++k) {
      const std::span<const T> line(x.data() + offsets[k], offsets[k + 1] - offsets[k]);
      using U = std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>;
      ASSERT_EQ(std::bit_cast<U>(r[k]), std::bit_cast<U>(detred::sum(line, exact_mode)))
          << "line " << k << " of " << line.size() << " values, threads " << t;
    }
  }
}

/// A batch large enough for the public API's threads (beyond the 128 KiB threshold), with one line long enough to be
/// split among every thread and many short ones.
TYPED_TEST(ExactBatched, ALargeBatchOnEveryThreadCount) {
  using T = TypeParam;
  std::vector<std::uint64_t> lengths;
  rng r(31);
  for (int k = 0; k < 400; ++k) lengths.push_back(r.below(3000));
  lengths.insert(lengths.begin() + 100, std::uint64_t{300000});
  lengths.insert(lengths.begin() + 7, std::uint64_t{40000});
  for (op o : {op::sum, op::asum, op::dot, op::nrm2}) {
    const segment_batch<T> b = make_batch<T>(lengths, 2, 5);
    const std::vector<T> expected = expected_of(o, b);
    for (int t : {1, 2, 3}) {
      expect_bits(through_api(o, b, {.mode = mode::exact, .threads = t}), expected,
                  std::string(name(o)) + " large threads " + std::to_string(t));
    }
  }
}

/// A rows x cols matrix stored in `l` with `pad` elements of NaN after each stored row (column).
template <class T>
struct stored_matrix {
  std::vector<T> data;
  matrix_view<T> view;
};

template <class T>
stored_matrix<T> store(const std::vector<T>& logical, std::uint64_t rows, std::uint64_t cols, layout l,
                       std::uint64_t pad) {
  const bool row_major = l == layout::row_major;
  const std::uint64_t outer = row_major ? rows : cols, inner = row_major ? cols : rows;
  stored_matrix<T> m;
  m.data.assign(outer * (inner + pad), std::numeric_limits<T>::quiet_NaN());
  for (std::uint64_t i = 0; i < rows; ++i) {
    for (std::uint64_t j = 0; j < cols; ++j) {
      m.data[row_major ? i * (inner + pad) + j : j * (inner + pad) + i] = logical[i * cols + j];
    }
  }
  m.view = {m.data.data(), rows, cols, inner + pad, l};
  return m;
}

/// A logical (row-major, unpadded) matrix whose lines along `axis` each take a value class of their own, so that
/// the lines of the other axis mix every class.
template <class T>
std::vector<T> matrix_values(std::uint64_t rows, std::uint64_t cols, int axis, std::uint64_t shift) {
  std::vector<T> m(rows * cols);
  const std::uint64_t count = axis == 0 ? cols : rows, length = axis == 0 ? rows : cols;
  for (std::uint64_t j = 0; j < count; ++j) {
    const std::vector<T> line = contents<T>(j, shift, length, 1000 * shift + j);
    for (std::uint64_t e = 0; e < length; ++e) (axis == 0 ? m[e * cols + j] : m[j * cols + e]) = line[e];
  }
  return m;
}

template <class T>
std::vector<T> axis_through_api(op o, const matrix_view<T>& a, int axis, const options& opt) {
  std::vector<T> r(axis == 0 ? a.cols : a.rows, T(12345));
  if (o == op::sum) detred::sum(a, axis, std::span<T>(r), opt);
  if (o == op::asum) detred::asum(a, axis, std::span<T>(r), opt);
  if (o == op::nrm2) detred::nrm2(a, axis, std::span<T>(r), opt);
  return r;
}

/// The driver's strided path with every thread busy on small matrices (rows split among threads when there are
/// fewer panels of columns than threads).
template <class T>
std::vector<T> axis_through_driver(op o, const matrix_view<T>& a, int axis, int threads) {
  const std::uint64_t count = axis == 0 ? a.cols : a.rows, length = axis == 0 ? a.rows : a.cols;
  std::vector<T> r(count, T(12345));
  const cpu::run_options how{.threads = threads, .parallel_threshold_bytes = 0};
  if ((axis == 1) == (a.layout == layout::row_major)) {
    exact_cpu::reduce_lines<T>(line_op_of(o), finish_of(o), a.data, nullptr,
                               {.stride = a.leading_dimension, .length = length}, count, r.data(), how);
  } else {
    exact_cpu::reduce_strided_lines<T>(line_op_of(o), finish_of(o), a.data, length, a.leading_dimension, count,
                                       r.data(), how);
  }
  return r;
}

template <class T>
void expect_axes(std::uint64_t rows, std::uint64_t cols, std::uint64_t shift, const std::vector<options>& paths,
                 bool driver) {
  for (int values_axis : {0, 1}) {
    const std::vector<T> logical = matrix_values<T>(rows, cols, values_axis, shift);
    const stored_matrix<T> plain = store(logical, rows, cols, layout::row_major, 0);
    for (op o : {op::sum, op::asum, op::nrm2}) {
      for (int axis : {0, 1}) {
        std::vector<T> expected(axis == 0 ? cols : rows);
        for (std::uint64_t j = 0; j < expected.size(); ++j) {
          const std::vector<T> line = line_of(plain.view, axis, j);
          expected[j] = single<T>(o, std::span<const T>(line), {});
        }
        for (layout l : {layout::row_major, layout::column_major}) {
          for (std::uint64_t pad : {0, 5}) {
            const stored_matrix<T> m = store(logical, rows, cols, l, pad);
            const std::string what = std::string(name(o)) + " " + std::to_string(rows) + " x " + std::to_string(cols) +
                                     " axis " + std::to_string(axis) +
                                     (l == layout::row_major ? " row-major" : " column-major") + " ld pad " +
                                     std::to_string(pad) + " shift " + std::to_string(shift);
            for (const options& opt : paths) {
              expect_bits(axis_through_api(o, m.view, axis, opt), expected,
                          what + " isa " + to_string(opt.isa) + " threads " + std::to_string(opt.threads));
              if (driver && opt.threads > 1 && opt.isa == isa::automatic) {
                expect_bits(axis_through_driver(o, m.view, axis, opt.threads), expected,
                            what + " (split) threads " + std::to_string(opt.threads));
              }
            }
          }
        }
      }
    }
  }
}

std::vector<options> automatic_paths() {
  return {
      {.mode = mode::exact, .threads = 1}, {.mode = mode::exact, .threads = 2}, {.mode = mode::exact, .threads = 3}};
}

TYPED_TEST(ExactBatched, EveryAxisAndLayoutEqualsTheSingleArrayCall) {
  using T = TypeParam;
  // Shapes around the lanes and leaves, a piece of 1024 rows, panels of 32 (64) columns, tall and narrow matrices
  // (fewer panels than threads: rows split), wide and short ones, and empty ones.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> shapes = matrix_shapes<T>();
  for (auto s : {std::pair<std::uint64_t, std::uint64_t>{1100, 70}, {2500, 3}, {3, 200}, {1025, 65}, {1, 300}}) {
    shapes.push_back(s);
  }
  for (std::uint64_t shift = 0; shift < 12; shift += 3) {
    for (auto [rows, cols] : shapes) expect_axes<T>(rows, cols, shift, automatic_paths(), true);
  }
  // Every instruction set, on one shape.
  std::vector<options> every;
  for (isa i : supported_isas()) every.push_back({.mode = mode::exact, .threads = 2, .isa = i});
  expect_axes<T>(1030, 67, 1, every, false);
}

/// Matrices large enough for the public API's threads: a tall one (one panel of columns, rows split among the
/// threads) and a wide one, both layouts.
TYPED_TEST(ExactBatched, LargeMatricesOnEveryThreadCount) {
  using T = TypeParam;
  for (auto [rows, cols] : {std::pair<std::uint64_t, std::uint64_t>{30000, 9}, {9, 30000}, {700, 700}}) {
    const std::vector<T> logical = generate<T>(values::ill_conditioned, rows * cols, rows + cols);
    const stored_matrix<T> plain = store(logical, rows, cols, layout::row_major, 0);
    for (int axis : {0, 1}) {
      std::vector<T> expected(axis == 0 ? cols : rows);
      for (std::uint64_t j = 0; j < expected.size(); ++j) {
        const std::vector<T> line = line_of(plain.view, axis, j);
        expected[j] = single<T>(op::sum, std::span<const T>(line), {});
      }
      for (layout l : {layout::row_major, layout::column_major}) {
        const stored_matrix<T> m = store(logical, rows, cols, l, 3);
        for (int t : {1, 2, 3}) {
          expect_bits(axis_through_api(op::sum, m.view, axis, {.mode = mode::exact, .threads = t}), expected,
                      std::to_string(rows) + " x " + std::to_string(cols) + " axis " + std::to_string(axis) +
                          " threads " + std::to_string(t));
        }
      }
    }
  }
}

template <class T, class K>
void expect_bins(std::uint64_t n, std::uint64_t bins, bool skewed, values v, std::uint64_t seed) {
  const std::vector<T> x = generate<T>(v, n, seed);
  const std::vector<K> keys = random_keys<K>(n, bins, skewed, seed + 1);
  std::vector<std::vector<T>> groups(bins);
  for (std::uint64_t i = 0; i < n; ++i) groups[static_cast<std::uint64_t>(keys[i])].push_back(x[i]);
  std::vector<T> expected(bins);
  for (std::uint64_t b = 0; b < bins; ++b) expected[b] = detred::sum(std::span<const T>(groups[b]), exact_mode);
  for (int t : {1, 2, 3}) {
    std::vector<T> r(bins, T(12345));
    detred::sum_by_key(std::span<const T>(x), std::span<const K>(keys), std::span<T>(r),
                       {.mode = mode::exact, .threads = t});
    expect_bits(r, expected,
                name(v) + " n " + std::to_string(n) + " bins " + std::to_string(bins) +
                    (skewed ? " skewed" : " uniform") + " threads " + std::to_string(t));
  }
}

TYPED_TEST(ExactBatched, EachBinEqualsTheExactSumOfItsValues) {
  using T = TypeParam;
  for (values v : {values::uniform, values::ill_conditioned, values::dynamic_range, values::negative_zeros,
                   values::signed_zeros, values::subnormal, values::with_nan, values::with_both_infs}) {
    for (std::uint64_t bins : {1, 2, 7, 1000}) {
      for (bool skewed : {false, true}) {
        expect_bins<T, std::uint32_t>(5000, bins, skewed, v, bins + 3);
        expect_bins<T, std::int64_t>(5000, bins, skewed, v, bins + 4);
      }
    }
  }
  for (bool skewed : {false, true}) {
    expect_bins<T, std::uint32_t>(300000, 70000, skewed, values::ill_conditioned, 9);
    expect_bins<T, std::int64_t>(300000, 70000, skewed, values::dynamic_range, 10);
  }
}

/// Runs f and returns the detred::error message it throws ("no error" if none).
template <class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const error& e) {
    return e.what();
  }
  return "no error";
}

TEST(ExactBatchedRefusals, StatsStillRefusesExactMode) {
  const std::vector<double> x(10, 1.0);
  const std::vector<std::uint64_t> offsets = {0, 4, 10};
  const std::vector<std::uint32_t> keys(10, 0);
  std::vector<statistics<double>> st(2);
  const matrix_view<double> a{x.data(), 2, 5, 5};
  const std::span<const double> v(x);
  const auto expect_refused = [](const std::string& m, const std::string& call) {
    EXPECT_NE(m.find(call + ": mode exact is not available"), std::string::npos) << m;
  };
  expect_refused(message_of([&] { stats(v, segments{offsets}, std::span<statistics<double>>(st), exact_mode); }),
                 "detred::stats");
  expect_refused(message_of([&] { stats(a, 1, std::span<statistics<double>>(st), exact_mode); }), "detred::stats");
  expect_refused(message_of([&] {
                   stats_by_key(v, std::span<const std::uint32_t>(keys), std::span<statistics<double>>(st.data(), 1),
                                exact_mode);
                 }),
                 "detred::stats_by_key");
  // The CUDA backend's exact batches of 16-bit floats (widened on the device): they run where a GPU is, and a build
  // or machine without one says so.
  const std::vector<float16> h(10, static_cast<float16>(0x3c00));  // 1.0
  std::vector<float> hr(2);
  const std::string cuda = message_of([&] {
    sum(std::span<const float16>(h), segments{offsets}, std::span<float>(hr),
        {.mode = mode::exact, .backend = backend::cuda});
  });
  if (detred::cuda::available()) {
    EXPECT_EQ(cuda, "no error");
    EXPECT_EQ(hr, (std::vector<float>{4.0f, 6.0f}));
  } else {
    EXPECT_NE(cuda.find("CUDA"), std::string::npos) << cuda;
  }
}

/// Invalid arguments give the same message in exact mode as in tree mode.
TEST(ExactBatchedRefusals, ArgumentErrorsAreThoseOfTheOtherModes) {
  const std::vector<double> x(10, 1.0), shorter(9, 1.0);
  std::vector<double> r(2), cols(5), bins(4);
  const std::vector<std::uint64_t> decreasing = {0, 5, 4}, past = {0, 5, 11}, fine = {0, 5, 10}, none;
  const std::vector<std::uint32_t> keys = {0, 1, 2, 3, 9, 0, 0, 0, 0, 0}, short_keys = {0, 1};
  const std::vector<std::int64_t> negative = {0, 1, -1, 0, 0, 0, 0, 0, 0, 0};
  const std::span<const double> v(x);
  const auto calls = std::vector<std::function<void(const options&)>>{
      [&](const options& o) { sum(v, segments{decreasing}, std::span<double>(r), o); },
      [&](const options& o) { asum(v, segments{past}, std::span<double>(r), o); },
      [&](const options& o) { sum(v, segments{none}, std::span<double>(r), o); },
      [&](const options& o) { sum(v, segments{fine}, std::span<double>(r.data(), 1), o); },
      [&](const options& o) { dot(v, std::span<const double>(shorter), segments{fine}, std::span<double>(r), o); },
      [&](const options& o) { dot(v, v, segments{past}, std::span<double>(r), o); },
      [&](const options& o) {
        sum(matrix_view<double>{x.data(), 2, 5, 5}, 2, std::span<double>(cols), o);
      },
      [&](const options& o) {
        asum(matrix_view<double>{x.data(), 2, 5, 4}, 0, std::span<double>(cols), o);
      },
      [&](const options& o) {
        sum(matrix_view<double>{x.data(), 5, 2, 4, layout::column_major}, 0, std::span<double>(cols), o);
      },
      [&](const options& o) {
        sum(matrix_view<double>{x.data(), 2, 5, 5}, 1, std::span<double>(cols), o);
      },
      [&](const options& o) {
        sum(matrix_view<double>{nullptr, 2, 5, 5}, 1, std::span<double>(r), o);
      },
      [&](const options& o) { sum_by_key(v, std::span<const std::uint32_t>(keys), std::span<double>(bins), o); },
      [&](const options& o) { sum_by_key(v, std::span<const std::int64_t>(negative), std::span<double>(bins), o); },
      [&](const options& o) { sum_by_key(v, std::span<const std::uint32_t>(short_keys), std::span<double>(bins), o); },
      [&](const options& o) { sum(v, segments{fine}, std::span<double>(r), {.mode = o.mode, .threads = -1}); },
  };
  for (std::size_t k = 0; k < calls.size(); ++k) {
    const std::string tree = message_of([&] { calls[k]({.mode = mode::tree}); });
    const std::string exact = message_of([&] { calls[k](exact_mode); });
    EXPECT_NE(tree, "no error") << "call " << k;
    EXPECT_EQ(exact, tree) << "call " << k;
  }
}

}  // namespace
}  // namespace detred::testing
