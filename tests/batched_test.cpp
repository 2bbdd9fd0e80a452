// SPDX-License-Identifier: BSD-3-Clause
// The batched entry points on every CPU path: each result has the bits of the single-array call on its segment, row,
// column or group alone, whatever the batch around it, its order, the layout, the instruction set or the thread
// count; and the documented argument errors.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "batch_cases.hpp"
#include "detred/cuda.hpp"
#include "detred/detred.hpp"
#include "op_paths.hpp"
#include "paths.hpp"

namespace detred::testing {
namespace {

template <class T>
class Batched : public ::testing::Test {};
using FloatTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(Batched, FloatTypes);

/// The value classes the batch tests run over (all of them would only repeat the single-array suites).
std::vector<values> batch_classes() {
  return {values::uniform,      values::dynamic_range, values::ill_conditioned, values::subnormal,
          values::signed_zeros, values::with_nan,      values::with_both_infs};
}

/// The options of every CPU path: each instruction set this CPU has, one to three threads.
std::vector<options> cpu_paths(mode m) {
  std::vector<options> out;
  for (isa i : supported_isas()) {
    for (int t : {1, 2, 3}) out.push_back({.mode = m, .threads = t, .isa = i});
  }
  return out;
}

/// Checks a batch of results against the single-array call on each line.
template <class R, class Single>
void expect_lines(const std::vector<R>& got, Single&& single, const std::string& what) {
  for (std::size_t k = 0; k < got.size(); ++k) {
    const R expected = single(k);
    EXPECT_TRUE(same_bits(got[k], expected)) << what << " line " << k;
    ++comparisons();
  }
}

TYPED_TEST(Batched, EverySegmentEqualsTheSingleArrayCall) {
  using T = TypeParam;
  for (values v : batch_classes()) {
    std::uint64_t extent = 0;
    const std::vector<std::uint64_t> offsets = offsets_of(segment_lengths<T>(11), 3, extent);
    const std::vector<T> x = generate<T>(v, extent, 7);
    const std::vector<T> y = generate<T>(values::uniform, extent, 8);
    const std::uint64_t count = offsets.size() - 1;
    const segments s{offsets};
    const auto seg = [&](const std::vector<T>& a, std::uint64_t k) {
      return std::span<const T>(a.data() + offsets[k], offsets[k + 1] - offsets[k]);
    };
    for (mode m : {mode::tree, mode::compensated}) {
      const options one{.mode = m};
      for (const options& o : cpu_paths(m)) {
        const std::string what =
            name(v) + " " + to_string(m) + " " + to_string(o.isa) + " threads " + std::to_string(o.threads);
        std::vector<T> r(count);
        sum(std::span<const T>(x), s, std::span<T>(r), o);
        expect_lines(
            r, [&](std::uint64_t k) { return sum(seg(x, k), one); }, "sum " + what);
        asum(std::span<const T>(x), s, std::span<T>(r), o);
        expect_lines(
            r, [&](std::uint64_t k) { return asum(seg(x, k), one); }, "asum " + what);
        nrm2(std::span<const T>(x), s, std::span<T>(r), o);
        expect_lines(
            r, [&](std::uint64_t k) { return nrm2(seg(x, k), one); }, "nrm2 " + what);
        dot(std::span<const T>(x), std::span<const T>(y), s, std::span<T>(r), o);
        expect_lines(
            r, [&](std::uint64_t k) { return dot(seg(x, k), seg(y, k), one); }, "dot " + what);
        if (m == mode::tree) {
          std::vector<statistics<T>> st(count);
          stats(std::span<const T>(x), s, std::span<statistics<T>>(st), o);
          expect_lines(
              st, [&](std::uint64_t k) { return stats(seg(x, k)); }, "stats " + what);
        }
      }
    }
  }
}

TYPED_TEST(Batched, SelectionsOfEverySegment) {
  using T = TypeParam;
  for (values v : {values::uniform, values::signed_zeros, values::with_nan, values::with_inf}) {
    // Selections refuse empty segments: lengths without the zeros.
    std::vector<std::uint64_t> lengths;
    for (std::uint64_t n : segment_lengths<T>(12)) lengths.push_back(n == 0 ? 1 : n);
    std::uint64_t extent = 0;
    const std::vector<std::uint64_t> offsets = offsets_of(lengths, 1, extent);
    std::vector<T> x = generate<T>(v, extent, 9);
    for (std::uint64_t i = 0; i < extent; i += 5) x[i] = x[i / 2];  // ties
    const std::uint64_t count = offsets.size() - 1;
    const auto seg = [&](std::uint64_t k) {
      return std::span<const T>(x.data() + offsets[k], offsets[k + 1] - offsets[k]);
    };
    for (const options& o : cpu_paths(mode::tree)) {
      const std::string what = name(v) + " " + to_string(o.isa) + " threads " + std::to_string(o.threads);
      std::vector<T> r(count);
      std::vector<std::uint64_t> at(count);
      min(std::span<const T>(x), segments{offsets}, std::span<T>(r), o);
      expect_lines(
          r, [&](std::uint64_t k) { return min(seg(k)); }, "min " + what);
      max(std::span<const T>(x), segments{offsets}, std::span<T>(r), o);
      expect_lines(
          r, [&](std::uint64_t k) { return max(seg(k)); }, "max " + what);
      argmin(std::span<const T>(x), segments{offsets}, std::span<std::uint64_t>(at), o);
      expect_lines(
          at, [&](std::uint64_t k) { return argmin(seg(k)); }, "argmin " + what);
      argmax(std::span<const T>(x), segments{offsets}, std::span<std::uint64_t>(at), o);
      expect_lines(
          at, [&](std::uint64_t k) { return argmax(seg(k)); }, "argmax " + what);
    }
  }
}

TYPED_TEST(Batched, ASegmentsBitsDoNotDependOnTheBatch) {
  using T = TypeParam;
  const std::vector<std::uint64_t> lengths = segment_lengths<T>(13);
  std::uint64_t extent = 0;
  const std::vector<std::uint64_t> offsets = offsets_of(lengths, 0, extent);
  const std::vector<T> x = generate<T>(values::ill_conditioned, extent, 10);
  std::vector<T> whole(lengths.size());
  sum(std::span<const T>(x), segments{offsets}, std::span<T>(whole));
  // The segments in reverse order, and each alone in a batch of one, give the same bits.
  std::vector<T> reversed;
  std::vector<std::uint64_t> reversed_offsets = {0};
  for (std::size_t k = lengths.size(); k-- > 0;) {
    reversed.insert(reversed.end(), x.begin() + static_cast<std::ptrdiff_t>(offsets[k]),
                    x.begin() + static_cast<std::ptrdiff_t>(offsets[k + 1]));
    reversed_offsets.push_back(reversed.size());
  }
  std::vector<T> r(lengths.size());
  sum(std::span<const T>(reversed), segments{reversed_offsets}, std::span<T>(r), {.threads = 2});
  for (std::size_t k = 0; k < lengths.size(); ++k) {
    EXPECT_TRUE(same_bits(r[lengths.size() - 1 - k], whole[k])) << "segment " << k;
    T alone = 0;
    const std::vector<std::uint64_t> one = {offsets[k], offsets[k + 1]};
    sum(std::span<const T>(x), segments{one}, std::span<T>(&alone, 1), {.threads = 3});
    EXPECT_TRUE(same_bits(alone, whole[k])) << "segment " << k << " alone";
  }
}

// A line longer than the parallel threshold and than its share of the batch is left by the thread that meets it and
// reduced with every thread afterwards. Long lines first, in the middle and last; with 2 threads none qualifies (each
// holds less than half the batch), with 3 the two longest, with 7 all three, in every mode (exact mode's lower
// threshold changes none of that); argmax checks the index is counted from each line's start.
TYPED_TEST(Batched, LinesLongEnoughForEveryThreadEqualTheSingleArrayCall) {
  using T = TypeParam;
  const std::uint64_t p = (std::uint64_t{512} << 10) / sizeof(T);  // the CPU's parallel threshold, in elements
  const std::vector<std::uint64_t> lengths = {2 * p + 1, 3, 0, 17, p + 5, 1, 0, 64, 2 * p + 3};
  std::uint64_t extent = 0;
  const std::vector<std::uint64_t> offsets = offsets_of(lengths, 1, extent);
  const std::vector<T> x = generate<T>(values::ill_conditioned, extent, 21);
  const auto seg = [&](std::uint64_t k) {
    return std::span<const T>(x.data() + offsets[k], offsets[k + 1] - offsets[k]);
  };
  for (int threads : {1, 2, 3, 7}) {
    for (mode m : {mode::tree, mode::compensated, mode::exact}) {
      const std::string what = std::string(to_string(m)) + ", threads " + std::to_string(threads);
      std::vector<T> r(lengths.size());
      sum(std::span<const T>(x), segments{offsets}, std::span<T>(r), {.mode = m, .threads = threads});
      expect_lines(
          r, [&](std::uint64_t k) { return sum(seg(k), {.mode = m}); }, "sum " + what);
    }
    // argmax over the same data with the empty segments left out (an empty one throws, as for an empty array).
    std::vector<std::uint64_t> filled = {offsets[0]};
    for (std::size_t k = 0; k < lengths.size(); ++k) {
      if (lengths[k] > 0) filled.push_back(offsets[k + 1]);
    }
    std::vector<std::uint64_t> at(filled.size() - 1);
    argmax(std::span<const T>(x), segments{filled}, std::span<std::uint64_t>(at), {.threads = threads});
    expect_lines(
        at,
        [&](std::uint64_t k) { return argmax(std::span<const T>(x.data() + filled[k], filled[k + 1] - filled[k])); },
        "argmax, threads " + std::to_string(threads));
  }
}

TYPED_TEST(Batched, EveryAxisAndLayoutEqualsTheSingleArrayCall) {
  using T = TypeParam;
  for (const auto& [rows, cols] : matrix_shapes_with_wide_panels<T>()) {
    for (layout lay : {layout::row_major, layout::column_major}) {
      for (std::uint64_t pad : {std::uint64_t{0}, std::uint64_t{3}}) {
        const std::uint64_t inner = lay == layout::row_major ? cols : rows;
        const std::uint64_t outer = lay == layout::row_major ? rows : cols;
        const std::uint64_t ld = inner + pad;
        const std::vector<T> data = generate<T>(values::dynamic_range, outer * ld + 1, rows * 31 + cols);
        const matrix_view<T> a{data.data(), rows, cols, ld, lay};
        for (int axis : {0, 1}) {
          const std::uint64_t count = axis == 0 ? cols : rows;
          const std::uint64_t length = axis == 0 ? rows : cols;
          const auto line = [&](std::uint64_t j) { return line_of(a, axis, j); };
          for (mode m : {mode::tree, mode::compensated}) {
            for (const options& o : cpu_paths(m)) {
              const std::string what = std::to_string(rows) + "x" + std::to_string(cols) + " ld " + std::to_string(ld) +
                                       (lay == layout::row_major ? " row-major" : " col-major") + " axis " +
                                       std::to_string(axis) + " " + to_string(m) + " " + to_string(o.isa) +
                                       " threads " + std::to_string(o.threads);
              std::vector<T> r(count);
              sum(a, axis, std::span<T>(r), o);
              expect_lines(
                  r, [&](std::uint64_t j) { return sum(std::span<const T>(line(j)), {.mode = m}); }, "sum " + what);
              nrm2(a, axis, std::span<T>(r), o);
              expect_lines(
                  r, [&](std::uint64_t j) { return nrm2(std::span<const T>(line(j)), {.mode = m}); }, "nrm2 " + what);
              if (m != mode::tree) continue;
              asum(a, axis, std::span<T>(r), o);
              expect_lines(
                  r, [&](std::uint64_t j) { return asum(std::span<const T>(line(j))); }, "asum " + what);
              std::vector<statistics<T>> st(count);
              stats(a, axis, std::span<statistics<T>>(st), o);
              expect_lines(
                  st, [&](std::uint64_t j) { return stats(std::span<const T>(line(j))); }, "stats " + what);
              if (length == 0) continue;
              min(a, axis, std::span<T>(r), o);
              expect_lines(
                  r, [&](std::uint64_t j) { return min(std::span<const T>(line(j))); }, "min " + what);
              max(a, axis, std::span<T>(r), o);
              expect_lines(
                  r, [&](std::uint64_t j) { return max(std::span<const T>(line(j))); }, "max " + what);
            }
          }
        }
      }
    }
  }
}

TYPED_TEST(Batched, EachBinEqualsItsValuesInIndexOrder) {
  using T = TypeParam;
  const std::uint64_t n = 3 * order::leaf_size<T> * 7 + 5;
  const std::vector<T> x = generate<T>(values::ill_conditioned, n, 21);
  for (std::uint64_t bins : {std::uint64_t{1}, std::uint64_t{7}, std::uint64_t{1000}, std::uint64_t{70000}}) {
    for (bool skewed : {false, true}) {
      const std::vector<std::uint32_t> keys = random_keys<std::uint32_t>(n, bins, skewed, bins + 5);
      const std::vector<std::int64_t> wide(keys.begin(), keys.end());
      std::vector<std::vector<T>> groups(bins);
      for (std::uint64_t i = 0; i < n; ++i) groups[keys[i]].push_back(x[i]);
      for (mode m : {mode::tree, mode::compensated}) {
        const std::string what = "bins " + std::to_string(bins) + (skewed ? " skewed " : " uniform ") + to_string(m);
        std::vector<T> r(bins);
        sum_by_key(std::span<const T>(x), std::span<const std::uint32_t>(keys), std::span<T>(r),
                   {.mode = m, .threads = 2});
        expect_lines(
            r, [&](std::uint64_t b) { return sum(std::span<const T>(groups[b]), {.mode = m}); }, "sum_by_key " + what);
        std::vector<T> r64(bins);
        sum_by_key(std::span<const T>(x), std::span<const std::int64_t>(wide), std::span<T>(r64), {.mode = m});
        expect_lines(
            r64, [&](std::uint64_t b) { return r[b]; }, "sum_by_key int64 keys " + what);
      }
      std::vector<statistics<T>> st(bins);
      stats_by_key(std::span<const T>(x), std::span<const std::uint32_t>(keys), std::span<statistics<T>>(st));
      expect_lines(
          st, [&](std::uint64_t b) { return stats(std::span<const T>(groups[b])); },
          "stats_by_key bins " + std::to_string(bins));
    }
  }
}

// Up to millions of bins, most of them empty and the keys spread over the whole range: every bin must hold its values
// in index order (the grouping's stable sort, lib/api/group_by_key.hpp), for every thread count and both key types.
TYPED_TEST(Batched, ManyBinsKeepTheirValuesInIndexOrder) {
  using T = TypeParam;
  using U = std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>;
  const std::uint64_t n = (std::uint64_t{1} << 17) + 11;
  const std::vector<T> x = generate<T>(values::ill_conditioned, n, 29);
  for (std::uint64_t bins : {std::uint64_t{2049}, std::uint64_t{1} << 16, (std::uint64_t{1} << 22) + 3}) {
    // A thousand distinct keys spread over the whole range, so that bins receive many values each.
    std::vector<std::uint32_t> keys = random_keys<std::uint32_t>(n, 1000, false, bins + 3);
    for (std::uint32_t& k : keys) k = static_cast<std::uint32_t>((std::uint64_t{k} * 2654435761u) % bins);
    const std::vector<std::int64_t> wide(keys.begin(), keys.end());
    std::map<std::uint64_t, std::vector<T>> groups;
    for (std::uint64_t i = 0; i < n; ++i) groups[keys[i]].push_back(x[i]);
    for (int threads : {1, 2, 3}) {
      std::vector<T> r(bins, T(7));
      sum_by_key(std::span<const T>(x), std::span<const std::uint32_t>(keys), std::span<T>(r), {.threads = threads});
      std::vector<T> r64(bins, T(7));
      sum_by_key(std::span<const T>(x), std::span<const std::int64_t>(wide), std::span<T>(r64), {.threads = threads});
      for (const auto& [bin, group] : groups) {
        const T expected = sum(std::span<const T>(group));
        ASSERT_EQ(std::bit_cast<U>(r[bin]), std::bit_cast<U>(expected))
            << "bins " << bins << " bin " << bin << " threads " << threads;
        ASSERT_EQ(std::bit_cast<U>(r64[bin]), std::bit_cast<U>(expected))
            << "int64 keys, bins " << bins << " bin " << bin << " threads " << threads;
      }
      // Bins without values hold the empty sum, -0.0.
      const std::uint64_t empty = groups.count(0) == 0 ? 0 : (groups.count(1) == 0 ? 1 : bins);
      if (empty < bins) {
        EXPECT_EQ(std::bit_cast<U>(r[empty]), std::bit_cast<U>(T(-0.0)));
      }
    }
  }
}

// The grouping splits the keys between threads above 2^15 values (four values per bin and thread at least): each
// bin's values must keep their index order for every thread count, and the error must name the first bad key
// whichever thread's part holds it.
TYPED_TEST(Batched, GroupingByKeyIsTheSameForEveryThreadCount) {
  using T = TypeParam;
  const std::uint64_t n = (std::uint64_t{1} << 17) + 3;
  const std::vector<T> x = generate<T>(values::dynamic_range, n, 23);
  for (std::uint64_t bins : {std::uint64_t{1}, std::uint64_t{7}, std::uint64_t{1000}, std::uint64_t{40000}}) {
    for (bool skewed : {false, true}) {
      const std::vector<std::uint32_t> keys = random_keys<std::uint32_t>(n, bins, skewed, bins + 9);
      std::vector<std::vector<T>> groups(bins);
      for (std::uint64_t i = 0; i < n; ++i) groups[keys[i]].push_back(x[i]);
      for (int threads : {1, 2, 3, 4, 7}) {
        const std::string what =
            "bins " + std::to_string(bins) + (skewed ? " skewed" : " uniform") + ", threads " + std::to_string(threads);
        std::vector<T> r(bins);
        sum_by_key(std::span<const T>(x), std::span<const std::uint32_t>(keys), std::span<T>(r), {.threads = threads});
        expect_lines(
            r, [&](std::uint64_t b) { return sum(std::span<const T>(groups[b])); }, "sum_by_key " + what);
        std::vector<statistics<T>> st(bins);
        stats_by_key(std::span<const T>(x), std::span<const std::uint32_t>(keys), std::span<statistics<T>>(st),
                     {.threads = threads});
        expect_lines(
            st, [&](std::uint64_t b) { return stats(std::span<const T>(groups[b])); }, "stats_by_key " + what);
      }
    }
  }
  // Bad keys in the last part and in the first: the first one is named, for every thread count.
  std::vector<std::int64_t> keys(n, 3);
  keys[n - 2] = 8;
  for (int threads : {1, 2, 7}) {
    std::vector<T> r(8);
    expect_error(
        [&] {
          sum_by_key(std::span<const T>(x), std::span<const std::int64_t>(keys), std::span<T>(r), {.threads = threads});
        },
        "key 8 at index " + std::to_string(n - 2) + " is not a bin (the results span holds 8 bins)");
    keys[5] = -4;
    expect_error(
        [&] {
          sum_by_key(std::span<const T>(x), std::span<const std::int64_t>(keys), std::span<T>(r), {.threads = threads});
        },
        "key -4 at index 5 is not a bin");
    keys[5] = 3;
  }
}

// The reductions of 16-bit floats (float16, bfloat16) in batches: float results, each the bits of the single-array
// call on the line alone (a 16-bit array), on every CPU path, for segments around every boundary of the order (float
// lanes and leaves, in which the elements are accumulated), lines long enough for every thread, and both axes of both
// layouts. The sum has named calls; dot, sumsq and mean go through detred::reduce's batched cores.
template <class H>
class HalfBatched : public ::testing::Test {};
using HalfTypes = ::testing::Types<float16, bfloat16>;
TYPED_TEST_SUITE(HalfBatched, HalfTypes);

TYPED_TEST(HalfBatched, EverySegmentEqualsTheSingleArrayCall) {
  using H = TypeParam;
  for (half_values v : all_half_values) {
    for (std::uint64_t gap : {std::uint64_t{0}, std::uint64_t{3}}) {
      std::uint64_t extent = 0;
      const std::vector<std::uint64_t> offsets = offsets_of(segment_lengths<float>(14 + gap), gap, extent);
      const std::vector<H> x = half_batch_values<H>(v, extent, 15 + gap);
      const std::vector<H> y = half_batch_values<H>(half_values::moderate, extent, 16 + gap);
      const std::span<const H> xs(x), ys(y);
      const std::uint64_t count = offsets.size() - 1;
      const auto seg = [&](std::span<const H> a, std::uint64_t k) {
        return a.subspan(offsets[k], offsets[k + 1] - offsets[k]);
      };
      for (mode m : {mode::tree, mode::compensated, mode::exact}) {
        for (const options& o : cpu_paths(m)) {
          const std::string what = name(v) + " gap " + std::to_string(gap) + " " + to_string(m) + " " +
                                   to_string(o.isa) + " threads " + std::to_string(o.threads);
          const options one{.mode = m};
          std::vector<float> r(count, 7.0f);
          sum(xs, segments{offsets}, std::span<float>(r), o);
          expect_lines(
              r, [&](std::uint64_t k) { return sum(seg(xs, k), one); }, "sum " + what);
          // detred::reduce's batched core gives the named call's bits.
          std::vector<float> generic(count, 7.0f);
          reduce<operation::sum, H>(xs, segments{offsets}, std::span<float>(generic), o);
          expect_lines(
              generic, [&](std::uint64_t k) { return r[k]; }, "reduce<sum> " + what);
          reduce<operation::dot, H>(xs, ys, segments{offsets}, std::span<float>(r), o);
          expect_lines(
              r, [&](std::uint64_t k) { return dot(seg(xs, k), seg(ys, k), one); }, "dot " + what);
          reduce<operation::sumsq, H>(xs, segments{offsets}, std::span<float>(r), o);
          expect_lines(
              r, [&](std::uint64_t k) { return reduce<operation::sumsq>(seg(xs, k), one); }, "sumsq " + what);
          reduce<operation::mean, H>(xs, segments{offsets}, std::span<float>(r), o);
          expect_lines(
              r, [&](std::uint64_t k) { return reduce<operation::mean>(seg(xs, k), one); }, "mean " + what);
        }
      }
    }
  }
}

// Short lines of every length up to a row of float lanes and past it, starting at every offset within a register
// of 16-bit elements (the masked and the copied loads of a ragged row), and lines long enough to take every thread
// (the parallel threshold in bytes of 16-bit elements).
TYPED_TEST(HalfBatched, ShortAndLongSegmentsEqualTheSingleArraySum) {
  using H = TypeParam;
  constexpr std::uint64_t W = order::lanes<float>;
  std::vector<std::uint64_t> short_lengths;
  for (std::uint64_t length = 0; length <= W + 1; ++length) short_lengths.push_back(length);
  const std::uint64_t p = (std::uint64_t{512} << 10) / sizeof(H);
  const std::vector<std::uint64_t> long_lengths = {2 * p + 1, 3, 0, 17, p + 5, 1, 0, 64, 2 * p + 3};
  for (const auto& [lengths, gaps, threads] :
       {std::tuple{short_lengths, std::vector<std::uint64_t>{0, 1, 2, 5, 7, 15, 31}, std::vector<int>{1, 2}},
        std::tuple{long_lengths, std::vector<std::uint64_t>{1}, std::vector<int>{1, 2, 3, 7}}}) {
    for (std::uint64_t gap : gaps) {
      std::uint64_t extent = 0;
      const std::vector<std::uint64_t> offsets = offsets_of(lengths, gap, extent);
      for (half_values v : {half_values::moderate, half_values::tiny, half_values::specials}) {
        const std::vector<H> x = half_batch_values<H>(v, extent, 25 + gap);
        const auto seg = [&](std::uint64_t k) {
          return std::span<const H>(x.data() + offsets[k], offsets[k + 1] - offsets[k]);
        };
        for (mode m : {mode::tree, mode::compensated, mode::exact}) {
          for (isa i : supported_isas()) {
            for (int t : threads) {
              const std::string what = name(v) + " gap " + std::to_string(gap) + " " + to_string(m) + " " +
                                       to_string(i) + " threads " + std::to_string(t);
              std::vector<float> r(lengths.size(), 7.0f);
              sum(std::span<const H>(x), segments{offsets}, std::span<float>(r), {.mode = m, .threads = t, .isa = i});
              expect_lines(
                  r, [&](std::uint64_t k) { return sum(seg(k), {.mode = m}); }, "sum " + what);
            }
          }
        }
      }
    }
  }
}

TYPED_TEST(HalfBatched, EveryAxisAndLayoutEqualsTheSingleArrayCall) {
  using H = TypeParam;
  const auto shapes = matrix_shapes_with_wide_panels<float>();
  for (std::size_t shape = 0; shape < shapes.size(); ++shape) {
    const auto [rows, cols] = shapes[shape];
    // Alternate shapes carry Inf and NaN: a strided panel's lanes must keep them to their own lines.
    const half_values v = shape % 2 == 0 ? half_values::moderate : half_values::specials;
    for (layout lay : {layout::row_major, layout::column_major}) {
      for (std::uint64_t pad : {std::uint64_t{0}, std::uint64_t{3}}) {
        const std::uint64_t inner = lay == layout::row_major ? cols : rows;
        const std::uint64_t outer = lay == layout::row_major ? rows : cols;
        const std::uint64_t ld = inner + pad;
        const std::vector<H> data = half_batch_values<H>(v, outer * ld + 1, rows * 31 + cols);
        const matrix_view<H> a{data.data(), rows, cols, ld, lay};
        for (int axis : {0, 1}) {
          const std::uint64_t count = axis == 0 ? cols : rows;
          for (mode m : {mode::tree, mode::compensated, mode::exact}) {
            for (const options& o : cpu_paths(m)) {
              const std::string what = std::to_string(rows) + "x" + std::to_string(cols) + " ld " + std::to_string(ld) +
                                       (lay == layout::row_major ? " row-major" : " col-major") + " axis " +
                                       std::to_string(axis) + " " + name(v) + " " + to_string(m) + " " +
                                       to_string(o.isa) + " threads " + std::to_string(o.threads);
              std::vector<float> r(count, 7.0f);
              sum(a, axis, std::span<float>(r), o);
              expect_lines(
                  r, [&](std::uint64_t j) { return sum(std::span<const H>(line_of(a, axis, j)), {.mode = m}); },
                  "sum " + what);
              reduce<operation::sumsq, H>(a, axis, std::span<float>(r), o);
              expect_lines(
                  r,
                  [&](std::uint64_t j) {
                    return reduce<operation::sumsq>(std::span<const H>(line_of(a, axis, j)), {.mode = m});
                  },
                  "sumsq " + what);
              reduce<operation::mean, H>(a, axis, std::span<float>(r), o);
              expect_lines(
                  r,
                  [&](std::uint64_t j) {
                    return reduce<operation::mean>(std::span<const H>(line_of(a, axis, j)), {.mode = m});
                  },
                  "mean " + what);
            }
          }
        }
      }
    }
  }
}

TYPED_TEST(HalfBatched, GpuExactModeWithoutAGpuAndBadArgumentsAreRefused) {
  using H = TypeParam;
  const std::vector<H> x(10, static_cast<H>(0));
  const std::vector<std::uint64_t> offsets = {0, 4, 10};
  std::vector<float> r(2);
  // Exact mode of 16-bit batches: the CPU's, and the GPU's (widened on the device; tests/cuda) where the GPU's exact
  // batches are listed. Without a GPU the calls are refused.
  static_assert(
      catalogue::supports(operation::sum, element_type_of<H>(), mode::exact, backend::cpu, call_shape::segments));
  static_assert(catalogue::exact_gpu_batches_listed == catalogue::supports(operation::sum, element_type_of<H>(),
                                                                           mode::exact, backend::cuda,
                                                                           call_shape::segments));
  if (!cuda::available()) {
    const options gpu_exact{.mode = mode::exact, .backend = backend::cuda};
    EXPECT_THROW(sum(std::span<const H>(x), segments{offsets}, std::span<float>(r), gpu_exact), error);
    EXPECT_THROW(sum(matrix_view<H>{x.data(), 2, 5, 5}, 1, std::span<float>(r), gpu_exact), error);
    EXPECT_THROW((reduce<operation::mean, H>(std::span<const H>(x), segments{offsets}, std::span<float>(r), gpu_exact)),
                 error);
  }
  // The batch checks of the float calls: the results' length, the offsets.
  std::vector<float> three(3);
  EXPECT_THROW(sum(std::span<const H>(x), segments{offsets}, std::span<float>(three)), error);
  const std::vector<std::uint64_t> past = {0, 11};
  EXPECT_THROW(sum(std::span<const H>(x), segments{past}, std::span<float>(r.data(), 1)), error);
}

/// Runs f and requires a detred::error whose message contains `part`.
template <class F>
void expect_error(F&& f, const std::string& part) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one mentioning \"" << part << "\"";
  } catch (const error& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

TEST(BatchedErrors, NameTheArgumentAndTheProblem) {
  const std::vector<double> x(10, 1.0);
  std::vector<double> r(2);
  const std::vector<std::uint64_t> decreasing = {0, 5, 4};
  const std::vector<std::uint64_t> past = {0, 5, 11};
  const std::vector<std::uint64_t> fine = {0, 5, 10};
  const std::vector<std::uint64_t> with_empty = {0, 5, 5};
  const std::vector<std::uint64_t> none;
  expect_error([&] { sum(std::span<const double>(x), segments{decreasing}, std::span<double>(r)); },
               "offsets decrease at segment 1 (5 then 4)");
  expect_error([&] { sum(std::span<const double>(x), segments{past}, std::span<double>(r)); },
               "the last offset 11 is past the end of the 10 values");
  expect_error([&] { sum(std::span<const double>(x), segments{none}, std::span<double>(r)); },
               "offsets must hold at least one entry");
  expect_error([&] { sum(std::span<const double>(x), segments{fine}, std::span<double>(r.data(), 1)); },
               "the results span holds 1 elements, but the offsets describe 2 segments");
  expect_error([&] { min(std::span<const double>(x), segments{with_empty}, std::span<double>(r)); },
               "segment 1 is empty");
  const std::vector<double> y(9, 1.0);
  expect_error(
      [&] { dot(std::span<const double>(x), std::span<const double>(y), segments{fine}, std::span<double>(r)); },
      "differ in length");
  std::vector<double> cols(5);
  expect_error(
      [&] {
        sum(matrix_view<double>{x.data(), 2, 5, 5}, 2, std::span<double>(cols));
      },
      "axis 2 is not 0 or 1");
  expect_error(
      [&] {
        sum(matrix_view<double>{x.data(), 2, 5, 4}, 0, std::span<double>(cols));
      },
      "the leading dimension 4 is smaller than a row (5 elements)");
  expect_error(
      [&] {
        sum(matrix_view<double>{x.data(), 2, 5, 5}, 1, std::span<double>(cols));
      },
      "axis 1 of a 2 x 5 matrix has 2 lines");
  const std::vector<std::uint32_t> keys = {0, 1, 2, 3, 9, 0, 0, 0, 0, 0};
  std::vector<double> bins(4);
  expect_error(
      [&] { sum_by_key(std::span<const double>(x), std::span<const std::uint32_t>(keys), std::span<double>(bins)); },
      "key 9 at index 4 is not a bin (the results span holds 4 bins)");
  const std::vector<std::int64_t> negative = {0, 1, -1, 0, 0, 0, 0, 0, 0, 0};
  expect_error(
      [&] { sum_by_key(std::span<const double>(x), std::span<const std::int64_t>(negative), std::span<double>(bins)); },
      "key -1 at index 2 is not a bin");
  expect_error(
      [&] {
        stats(std::span<const double>(x), segments{fine}, std::span<statistics<double>>(), {.mode = mode::compensated});
      },
      "tree mode only");
}

}  // namespace
}  // namespace detred::testing

namespace detred::testing {
namespace {

/// Columns of at most W elements (one element per lane: the CPU's short-line path, which joins only the lanes that
/// took an element) over every class of special values, in both modes: each equals the single-array call.
TYPED_TEST(Batched, ShortColumnsOfSpecialValuesEqualTheSingleArrayCall) {
  using T = TypeParam;
  constexpr std::uint64_t W = order::lanes<T>;
  for (values v : all_value_classes()) {
    for (std::uint64_t rows : {std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{3}, std::uint64_t{5}, W - 1, W}) {
      const std::uint64_t cols = 61;
      const std::vector<T> data = generate<T>(v, rows * cols, rows + 7);
      const matrix_view<T> a{data.data(), rows, cols, cols, layout::row_major};
      for (mode m : {mode::tree, mode::compensated}) {
        for (const options& o : cpu_paths(m)) {
          std::vector<T> r(cols);
          sum(a, 0, std::span<T>(r), o);
          expect_lines(
              r, [&](std::uint64_t j) { return sum(std::span<const T>(line_of(a, 0, j)), {.mode = m}); },
              name(v) + " sum of " + std::to_string(rows) + " rows " + to_string(m) + " " + to_string(o.isa));
          asum(a, 0, std::span<T>(r), o);
          expect_lines(
              r, [&](std::uint64_t j) { return asum(std::span<const T>(line_of(a, 0, j)), {.mode = m}); },
              name(v) + " asum of " + std::to_string(rows) + " rows");
        }
      }
    }
  }
}

/// The unrolled lane folds that a GPU thread runs over a strided line of few rows (order/trees.hpp; the lines of
/// detred::nccl's column sums) give the root of the whole halving lane tree over W lanes, the lanes past the line's
/// length holding the identity, as the strided pass forms it: for every length up to the array's size and every
/// value class, bit for bit after finish.
template <class Op, unsigned N>
void expect_unrolled_folds_match_the_lane_tree() {
  using V = typename Op::value;
  using S = typename Op::state;
  constexpr std::uint64_t W = order::lanes<V>;
  for (values v : batch_classes()) {
    const std::vector<typename Op::input> x = generate<typename Op::input>(v, N, 29);
    for (std::uint64_t live = 1; live <= N; ++live) {
      std::vector<S> tree(W, Op::template identity<V>());
      S lanes[N];
      for (unsigned q = 0; q < N; ++q) {
        lanes[q] = Op::template identity<V>();
        if (q < live) lanes[q] = tree[q] = Op::accumulate(Op::template identity<V>(), x[q]);
      }
      order::fold_lanes<Op>(tree.data(), W);
      const auto expected = order::finish<Op>(order::to_node<Op>(tree[0], 0), live);
      const std::string what = name(v) + ", " + std::to_string(live) + " of " + std::to_string(N) + " lanes";
      S before_identity[N];
      std::copy(std::begin(lanes), std::end(lanes), std::begin(before_identity));
      order::fold_lanes_before_identity_unrolled<Op, W>(before_identity, live);
      EXPECT_TRUE(same_bits(order::finish<Op>(order::to_node<Op>(before_identity[0], 0), live), expected))
          << "fold_lanes_before_identity_unrolled, " << what;
      if constexpr (order::neutral_identity<Op>) {
        order::fold_live_lanes_unrolled<Op, W>(lanes, live);
        EXPECT_TRUE(same_bits(order::finish<Op>(order::to_node<Op>(lanes[0], 0), live), expected))
            << "fold_live_lanes_unrolled, " << what;
      }
    }
  }
}

TYPED_TEST(Batched, UnrolledLaneFoldsOfShortLinesGiveTheLaneTreesRoot) {
  using T = TypeParam;
  expect_unrolled_folds_match_the_lane_tree<order::sum_tree<T>, 8>();
  expect_unrolled_folds_match_the_lane_tree<order::sum_tree<T>, 32>();
  expect_unrolled_folds_match_the_lane_tree<order::sum_compensated<T>, 8>();
  expect_unrolled_folds_match_the_lane_tree<order::sum_compensated<T>, 32>();
  expect_unrolled_folds_match_the_lane_tree<order::asum_op<T, order::compensated_sums>, 32>();
  expect_unrolled_folds_match_the_lane_tree<order::sumsq_op<T, order::plain_sums>, 32>();
}

}  // namespace
}  // namespace detred::testing
