// SPDX-License-Identifier: BSD-3-Clause
// sum_by_key and stats_by_key on the CPU: the streaming engine (cpu::reduce_by_key, lib/cpu/by_key.cpp), called
// directly on every input whatever the front door would route where, and the public calls: every bin has the bits
// of the single-array call on its values gathered in index order, on both of the engine's paths (the input streamed
// straight through the bins' lanes, or partitioned by the keys' high bits first), for bins of every size around a
// lane row and a leaf, special values, both key types, both modes and every thread count; and the first key that is
// not a bin is the one reported.
#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "batch_cases.hpp"
#include "cpu/by_key.hpp"
#include "detred/detred.hpp"
#include "op_paths.hpp"

namespace detred::testing {
namespace {

template <class T>
class ByKey : public ::testing::Test {};
using FloatTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(ByKey, FloatTypes);

/// Bin b's values, in index order.
template <class T, class K>
std::vector<std::vector<T>> gather(const std::vector<T>& x, const std::vector<K>& keys, std::uint64_t bins) {
  std::vector<std::vector<T>> groups(bins);
  for (std::uint64_t i = 0; i < x.size(); ++i) groups[static_cast<std::uint64_t>(keys[i])].push_back(x[i]);
  return groups;
}

/// The engine's results for Op on these keys.
template <class Op, class K>
std::vector<typename Op::result> engine(const std::vector<typename Op::input>& x, const std::vector<K>& keys,
                                        std::uint64_t bins, int threads) {
  std::vector<typename Op::result> r(bins);
  const std::uint64_t bad =
      cpu::reduce_by_key<Op>(x.data(), keys.data(), x.size(), bins, r.data(), {.threads = threads});
  EXPECT_EQ(bad, x.size());
  return r;
}

/// sum_by_key with both key types and stats_by_key (tree mode only), the engine's and the public calls', against the
/// single-array calls on every bin.
template <class T>
void expect_bins(const std::vector<T>& x, const std::vector<std::uint32_t>& keys, std::uint64_t bins, mode m,
                 int threads, const std::string& what) {
  const std::vector<std::vector<T>> groups = gather(x, keys, bins);
  const std::vector<std::int64_t> wide(keys.begin(), keys.end());
  const options o{.mode = m, .threads = threads};
  const std::string where = what + " " + to_string(m) + " threads " + std::to_string(threads);
  std::vector<T> r(bins, T(7));
  sum_by_key(std::span<const T>(x), std::span<const std::uint32_t>(keys), std::span<T>(r), o);
  const auto sums = [&]<class Policy>(Policy) {
    using Op = order::sum_op<T, Policy>;
    return std::pair{engine<Op>(x, keys, bins, threads), engine<Op>(x, wide, bins, threads)};
  };
  const auto [streamed, streamed64] = m == mode::tree ? sums(order::plain_sums{}) : sums(order::compensated_sums{});
  for (std::uint64_t b = 0; b < bins; ++b) {
    const T expected = sum(std::span<const T>(groups[b]), {.mode = m});
    ASSERT_TRUE(same_bits(streamed[b], expected)) << where << " bin " << b << " of " << groups[b].size() << " values";
    ASSERT_TRUE(same_bits(streamed64[b], expected)) << where << " int64 keys, bin " << b;
    ASSERT_TRUE(same_bits(r[b], expected)) << where << " sum_by_key, bin " << b;
  }
  if (m != mode::tree) return;
  const std::vector<statistics<T>> st = engine<order::moments_op<T>>(x, keys, bins, threads);
  std::vector<statistics<T>> public_st(bins);
  stats_by_key(std::span<const T>(x), std::span<const std::uint32_t>(keys), std::span<statistics<T>>(public_st),
               {.threads = threads});
  for (std::uint64_t b = 0; b < bins; ++b) {
    const statistics<T> expected = stats(std::span<const T>(groups[b]));
    ASSERT_TRUE(same_bits(st[b], expected)) << where << " stats, bin " << b;
    ASSERT_TRUE(same_bits(public_st[b], expected)) << where << " stats_by_key, bin " << b;
  }
}

/// Keys giving bin b exactly sizes[b] values, spread over the input in a shuffled order.
std::vector<std::uint32_t> keys_of_sizes(const std::vector<std::uint64_t>& sizes, std::uint64_t seed) {
  std::vector<std::uint32_t> keys;
  for (std::uint64_t b = 0; b < sizes.size(); ++b) keys.insert(keys.end(), sizes[b], static_cast<std::uint32_t>(b));
  rng r(seed);
  for (std::uint64_t i = keys.size(); i > 1; --i) std::swap(keys[i - 1], keys[r.below(i)]);
  return keys;
}

// Bins of 0, 1 and 2 values, one lane row and a leaf either side, several leaves: a bin finishes a leaf in the
// middle of the stream, and its ragged last leaf at the end.
TYPED_TEST(ByKey, BinsOfEverySizeAroundARowAndALeaf) {
  using T = TypeParam;
  constexpr std::uint64_t W = order::lanes<T>, L = order::leaf_size<T>;
  const std::vector<std::uint64_t> sizes = {0,     1,     2, W - 1,     W,         W + 1, 2 * W + 3, L - 1, L,
                                            L + 1, 2 * L, 0, 2 * L + 1, 3 * L - 1, 5,     0,         1,     W / 2};
  const std::vector<std::uint32_t> keys = keys_of_sizes(sizes, 5);
  for (values v : {values::uniform, values::ill_conditioned, values::signed_zeros, values::negative_zeros,
                   values::with_nan, values::with_both_infs, values::overflowing}) {
    const std::vector<T> x = generate<T>(v, keys.size(), 31);
    for (mode m : {mode::tree, mode::compensated}) {
      for (int threads : {1, 2, 3, 5}) expect_bins(x, keys, sizes.size(), m, threads, name(v));
    }
  }
}

// A bin's leaf folds its live lanes level by level (bin_streams::fold): every count of live lanes, 0 to W, in a
// ragged first leaf and in a ragged leaf after a full one, with the special values (subnormals, zeros of both signs,
// infinities, NaNs).
TYPED_TEST(ByKey, EveryCountOfLiveLanesFolds) {
  using T = TypeParam;
  constexpr std::uint64_t W = order::lanes<T>, L = order::leaf_size<T>;
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t k = 0; k <= W + 1; ++k) sizes.push_back(k);
  for (std::uint64_t k : {std::uint64_t{1}, std::uint64_t{3}, W / 2 + 1, W - 1, W + 7}) sizes.push_back(L + k);
  const std::vector<std::uint32_t> keys = keys_of_sizes(sizes, 59);
  for (values v : {values::dynamic_range, values::subnormal, values::signed_zeros, values::negative_zeros,
                   values::with_inf, values::with_both_infs, values::with_nan}) {
    const std::vector<T> x = generate<T>(v, keys.size(), 61);
    for (mode m : {mode::tree, mode::compensated}) {
      for (int threads : {1, 2}) expect_bins(x, keys, sizes.size(), m, threads, name(v));
    }
  }
}

// One bin (every value), a few long bins, bins that need several partitions, and far more bins than values (most
// empty or of one value), uniform and skewed (one hot bin), with up to eight threads.
TYPED_TEST(ByKey, EveryShapeOfBinsOnEveryThreadCount) {
  using T = TypeParam;
  const std::uint64_t n = (std::uint64_t{1} << 17) + 29;
  for (std::uint64_t bins : {std::uint64_t{1}, std::uint64_t{3}, std::uint64_t{2000}, std::uint64_t{70001}}) {
    for (bool skewed : {false, true}) {
      const std::vector<std::uint32_t> keys = random_keys<std::uint32_t>(n, bins, skewed, bins + 11);
      for (values v : {values::dynamic_range, values::with_nan}) {
        const std::vector<T> x = generate<T>(v, n, 37);
        const std::string what = name(v) + " bins " + std::to_string(bins) + (skewed ? " skewed" : " uniform");
        for (mode m : {mode::tree, mode::compensated}) {
          for (int threads : {1, 2, 4, 8}) expect_bins(x, keys, bins, m, threads, what);
        }
      }
    }
  }
}

// The same bits for 1 to 9 threads, on an input large enough that every thread partitions a part of its own and
// that the public call streams it (cpu::streams_by_key).
TYPED_TEST(ByKey, TheThreadsDecideNoBit) {
  using T = TypeParam;
  const std::uint64_t n = std::uint64_t{1} << 21, bins = std::uint64_t{1} << 16;
  ASSERT_TRUE(cpu::streams_by_key(n, bins, sizeof(T) + sizeof(std::int64_t), 9));
  const std::vector<T> x = generate<T>(values::ill_conditioned, n, 41);
  const std::vector<std::int64_t> keys = random_keys<std::int64_t>(n, bins, true, 43);
  for (mode m : {mode::tree, mode::compensated}) {
    std::vector<T> first(bins);
    sum_by_key(std::span<const T>(x), std::span<const std::int64_t>(keys), std::span<T>(first),
               {.mode = m, .threads = 1});
    const std::vector<std::vector<T>> groups = gather(x, keys, bins);
    for (std::uint64_t b : {std::uint64_t{0}, std::uint64_t{1}, bins / 2, bins - 1}) {
      ASSERT_TRUE(same_bits(first[b], sum(std::span<const T>(groups[b]), {.mode = m}))) << to_string(m) << " bin " << b;
    }
    for (int threads = 2; threads <= 9; ++threads) {
      std::vector<T> r(bins);
      sum_by_key(std::span<const T>(x), std::span<const std::int64_t>(keys), std::span<T>(r),
                 {.mode = m, .threads = threads});
      for (std::uint64_t b = 0; b < bins; ++b) {
        ASSERT_TRUE(same_bits(r[b], first[b])) << to_string(m) << " threads " << threads << " bin " << b;
      }
    }
  }
}

// A key that is not a bin: the first one (lowest index) is named on both paths, whichever thread's part holds it,
// and no result is written.
TYPED_TEST(ByKey, TheFirstKeyThatIsNotABinIsNamed) {
  using T = TypeParam;
  const std::uint64_t n = (std::uint64_t{1} << 17) + 3;
  const std::vector<T> x = generate<T>(values::uniform, n, 47);
  for (std::uint64_t bins : {std::uint64_t{5}, std::uint64_t{50000}}) {
    std::vector<std::int64_t> keys = random_keys<std::int64_t>(n, bins, false, 53);
    keys[n - 3] = static_cast<std::int64_t>(bins);
    keys[n / 2 + 1] = -2;
    for (int threads : {1, 2, 3, 8}) {
      std::vector<T> r(bins, T(7));
      try {
        sum_by_key(std::span<const T>(x), std::span<const std::int64_t>(keys), std::span<T>(r), {.threads = threads});
        ADD_FAILURE() << "no error, bins " << bins << " threads " << threads;
      } catch (const error& e) {
        EXPECT_NE(std::string(e.what()).find("key -2 at index " + std::to_string(n / 2 + 1) + " is not a bin"),
                  std::string::npos)
            << e.what();
      }
      EXPECT_TRUE(std::all_of(r.begin(), r.end(), [](T v) { return v == T(7); })) << "threads " << threads;
      EXPECT_EQ((cpu::reduce_by_key<order::sum_op<T, order::plain_sums>>(x.data(), keys.data(), n, bins, r.data(),
                                                                         {.threads = threads})),
                n / 2 + 1)
          << "bins " << bins << " threads " << threads;
      EXPECT_TRUE(std::all_of(r.begin(), r.end(), [](T v) { return v == T(7); })) << "threads " << threads;
    }
  }
}

}  // namespace
}  // namespace detred::testing
