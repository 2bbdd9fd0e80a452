// SPDX-License-Identifier: BSD-3-Clause
// Invariance: every instruction set, every thread count, every alignment gives the reference's bits, for sizes
// around every boundary of the order and for every class of adversarial values.
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <set>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "detred/detred.hpp"
#include "paths.hpp"
#include "test_data.hpp"

namespace detred {
// Parameterized test names and values print as the instruction set's name.
inline void PrintTo(isa i, std::ostream* os) { *os << to_string(i); }
}  // namespace detred

namespace detred::testing {
namespace {

template <class T>
class Invariance : public ::testing::Test {};
using Types = ::testing::Types<double, float>;
TYPED_TEST_SUITE(Invariance, Types);

/// 0, 1, 2, W-1, W, W+1, L-1, L, L+1, 2^k-1, 2^k, 2^k+1 up to 2^24, and a few multiples of L around the block sizes
/// of the threaded driver. DETRED_TEST_MAX_LOG2 lowers the largest k: the aarch64 run under qemu, where every
/// floating-point operation is emulated, stops at 2^21 (still past the driver's 1024 blocks; docs/arm.md).
template <class T>
std::vector<std::uint64_t> boundary_sizes() {
  constexpr std::uint64_t W = order::lanes<T>;
  constexpr std::uint64_t L = order::leaf_size<T>;
  std::set<std::uint64_t> s = {0, 1, 2, W - 1, W, W + 1, L - 1, L, L + 1, 3 * L + W + 1, 1024 * L + 1};
  const char* max_log2 = std::getenv("DETRED_TEST_MAX_LOG2");
  const int largest = max_log2 != nullptr && *max_log2 != '\0' ? std::atoi(max_log2) : 24;
  for (int k = 1; k <= largest && k <= 24; ++k) {
    const std::uint64_t p = std::uint64_t{1} << k;
    s.insert({p - 1, p, p + 1});
  }
  return {s.begin(), s.end()};
}

TYPED_TEST(Invariance, PathsPrintedForTheLog) {
  std::string names;
  for (isa i : supported_isas()) names += std::string(to_string(i)) + " ";
  std::string skipped;
  for (isa i : unsupported_isas()) skipped += std::string(to_string(i)) + " ";
  std::cout << "[ paths    ] instruction sets on this machine: " << names << "; automatic resolves to "
            << to_string(resolved_isa(isa::automatic)) << "\n";
  std::cout << "[ paths    ] skipped (not on this machine or not in this build): " << skipped << "\n";
  EXPECT_FALSE(supported_isas().empty());
}

// One test per instruction set, so the ctest log lists each one as passed or skipped (the x86 sets on aarch64, neon
// on x86-64). Every other test of this file runs all supported sets in each comparison.
class EveryIsa : public ::testing::TestWithParam<isa> {};

TEST_P(EveryIsa, MatchesTheReferenceOrIsSkipped) {
  const isa i = GetParam();
  if (!isa_supported(i)) GTEST_SKIP() << to_string(i) << " is not available on this machine or in this build";
  for (std::uint64_t n : {std::uint64_t{1}, std::uint64_t{1000}, std::uint64_t{100003}}) {
    const std::vector<double> d = generate<double>(values::dynamic_range, n, 6000 + n);
    const std::vector<float> f = generate<float>(values::dynamic_range, n, 6000 + n);
    for (mode m : {mode::tree, mode::compensated}) {
      for (int t : {1, 3}) {
        EXPECT_EQ(bits(detred::sum(std::span<const double>(d), {.mode = m, .threads = t, .isa = i})),
                  bits(reference::sum(std::span<const double>(d), {.mode = m})))
            << to_string(i) << " double n=" << n << " mode=" << to_string(m) << " threads=" << t;
        EXPECT_EQ(bits(detred::sum(std::span<const float>(f), {.mode = m, .threads = t, .isa = i})),
                  bits(reference::sum(std::span<const float>(f), {.mode = m})))
            << to_string(i) << " float n=" << n << " mode=" << to_string(m) << " threads=" << t;
        comparisons() += 2;
      }
    }
  }
}

std::string isa_name(const ::testing::TestParamInfo<isa>& p) { return to_string(p.param); }

INSTANTIATE_TEST_SUITE_P(Isa, EveryIsa, ::testing::ValuesIn(all_isas()), isa_name);

TYPED_TEST(Invariance, BoundarySizes) {
  using T = TypeParam;
  for (std::uint64_t n : boundary_sizes<T>()) {
    const std::vector<T> x = generate<T>(values::uniform, n, 1000 + n);
    for (mode m : {mode::tree, mode::compensated}) expect_every_path_matches_reference<T>(x, m, "uniform");
  }
}

TYPED_TEST(Invariance, RandomSizes) {
  using T = TypeParam;
  rng r(7);
  for (int k = 0; k < 24; ++k) {
    const std::uint64_t n = 1 + r.below(std::uint64_t{1} << (4 + r.below(17)));
    const std::vector<T> x = generate<T>(values::dynamic_range, n, 2000 + k);
    for (mode m : {mode::tree, mode::compensated}) expect_every_path_matches_reference<T>(x, m, "random size");
  }
}

TYPED_TEST(Invariance, MisalignedStarts) {
  using T = TypeParam;
  constexpr std::uint64_t W = order::lanes<T>;
  constexpr std::uint64_t L = order::leaf_size<T>;
  for (std::uint64_t n : {std::uint64_t{1}, W + 3, L + W + 5, 5 * L + 17, std::uint64_t{1} << 17}) {
    const std::vector<T> buffer = generate<T>(values::uniform, n + 16, 3000 + n);
    for (std::uint64_t offset = 0; offset < 16; ++offset) {
      const std::span<const T> x(buffer.data() + offset, n);
      for (mode m : {mode::tree, mode::compensated}) {
        expect_every_path_matches_reference<T>(x, m, "offset " + std::to_string(offset));
      }
    }
  }
}

TYPED_TEST(Invariance, EveryValueClass) {
  using T = TypeParam;
  constexpr std::uint64_t L = order::leaf_size<T>;
  for (values v : all_value_classes()) {
    for (std::uint64_t n :
         {std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{100}, L + 1, 37 * L + 11, std::uint64_t{1} << 18}) {
      const std::vector<T> x = generate<T>(v, n, 4000 + n);
      for (mode m : {mode::tree, mode::compensated}) expect_every_path_matches_reference<T>(x, m, name(v));
    }
  }
}

// The values the special classes must produce, not only agree on.
TYPED_TEST(Invariance, SpecialValuesGiveTheDocumentedResult) {
  using T = TypeParam;
  const T inf = std::numeric_limits<T>::infinity();
  const auto canonical_nan = bits(order::canonical_nan<T>());
  EXPECT_EQ(canonical_nan, sizeof(T) == 8 ? bits_of<T>(0x7ff8000000000000ULL) : bits_of<T>(0x7fc00000U));
  for (mode m : {mode::tree, mode::compensated}) {
    for (std::uint64_t n : {std::uint64_t{1}, std::uint64_t{1000}, std::uint64_t{1} << 18}) {
      auto run = [&](values v) {
        const std::vector<T> x = generate<T>(v, n, 5000 + n);
        return expect_every_path_matches_reference<T>(x, m, name(v));
      };
      EXPECT_EQ(bits(run(values::negative_zeros)), bits(T(-0.0))) << "a sum of -0.0s is -0.0";
      EXPECT_EQ(bits(run(values::with_inf)), bits(inf));
      EXPECT_EQ(bits(run(values::with_nan)), canonical_nan);
      if (n > 1) {
        EXPECT_EQ(bits(run(values::with_both_infs)), canonical_nan);
        EXPECT_EQ(bits(run(values::overflowing)), bits(inf)) << "a finite sum past the largest value overflows";
      }
    }
  }
}

TYPED_TEST(Invariance, EmptyInputIsTheIdentity) {
  using T = TypeParam;
  for (mode m : {mode::tree, mode::compensated}) {
    EXPECT_EQ(bits(detred::sum(std::span<const T>(), {.mode = m})), bits(T(-0.0)));
    EXPECT_EQ(bits(reference::sum(std::span<const T>(), {.mode = m})), bits(T(-0.0)));
  }
}

}  // namespace
}  // namespace detred::testing

// Print how many bit comparisons ran, so a log shows the tests did real work.
class ComparisonCount : public ::testing::Environment {
 public:
  void TearDown() override {
    std::cout << "[ compared ] " << detred::testing::comparisons().load() << " result bit patterns\n";
  }
};
[[maybe_unused]] static ::testing::Environment* const comparison_count =
    ::testing::AddGlobalTestEnvironment(new ComparisonCount);
