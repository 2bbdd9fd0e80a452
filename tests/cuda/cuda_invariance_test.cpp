// SPDX-License-Identifier: BSD-3-Clause
// The GPU returns the CPU reference's bits: sizes around every boundary of the order and of the launch plans,
// misaligned device pointers, every class of adversarial values, both modes and both types, and every forced
// launch plan (thread-count-free by construction: the plan is the GPU's only degree of freedom).
#include <cstdint>
#include <iostream>
#include <limits>
#include <set>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cuda/gpu_paths.hpp"
#include "detred/detred.hpp"
#include "test_data.hpp"

namespace detred::testing {
namespace {

using Types = ::testing::Types<double, float>;
TYPED_TEST_SUITE(TypedGpu, Types);

constexpr mode both_modes[] = {mode::tree, mode::compensated};

/// The CPU suite's boundary sizes (0, 1, W +- 1, L +- 1, 2^k +- 1 up to 2^24), plus whole and ragged leaf counts
/// around the GPU's plan boundaries: one warp, 32 warps of one block (the largest single-block plan), and the
/// multi-block plans above it, whose blocks widen from 1 to 8 warps up to 2048 leaves.
template <class T>
std::vector<std::uint64_t> gpu_boundary_sizes() {
  constexpr std::uint64_t W = order::lanes<T>;
  constexpr std::uint64_t L = order::leaf_size<T>;
  std::set<std::uint64_t> s = {0,           1, 2, 3, 4, 5, W - 1, W, W + 1, 2 * W + 3, L - 1, L, L + 1, 3 * L + W + 1,
                               1024 * L + 1};
  for (int k = 1; k <= 24; ++k) {
    const std::uint64_t p = std::uint64_t{1} << k;
    s.insert({p - 1, p, p + 1});
  }
  for (std::uint64_t leaves :
       {2, 3, 5, 7, 8, 9, 31, 32, 33, 63, 64, 65, 255, 256, 257, 511, 513, 1023, 1024, 1025, 2047, 2049}) {
    s.insert({leaves * L, leaves * L - 1, (leaves - 1) * L + W + 1});
  }
  return {s.begin(), s.end()};
}

TYPED_TEST(TypedGpu, BoundarySizes) {
  using T = TypeParam;
  for (std::uint64_t n : gpu_boundary_sizes<T>()) {
    const std::vector<T> x = generate<T>(values::uniform, n, 1000 + n);
    for (mode m : both_modes) expect_gpu_matches_reference<T>(x, m, "uniform");
  }
}

TYPED_TEST(TypedGpu, EveryLeafCountUpTo70) {
  using T = TypeParam;
  constexpr std::uint64_t L = order::leaf_size<T>;
  for (std::uint64_t leaves = 1; leaves <= 70; ++leaves) {
    const std::uint64_t n = (leaves - 1) * L + 1 + (leaves * 977) % L;
    const std::vector<T> x = generate<T>(values::dynamic_range, n, 1500 + leaves);
    for (mode m : both_modes) expect_gpu_matches_reference<T>(x, m, "leaves=" + std::to_string(leaves));
  }
}

TYPED_TEST(TypedGpu, RandomSizes) {
  using T = TypeParam;
  rng r(7);
  for (int k = 0; k < 24; ++k) {
    const std::uint64_t n = 1 + r.below(std::uint64_t{1} << (4 + r.below(19)));
    const std::vector<T> x = generate<T>(values::dynamic_range, n, 2000 + k);
    for (mode m : both_modes) expect_gpu_matches_reference<T>(x, m, "random size");
  }
}

TYPED_TEST(TypedGpu, MisalignedDevicePointers) {
  using T = TypeParam;
  constexpr std::uint64_t W = order::lanes<T>;
  constexpr std::uint64_t L = order::leaf_size<T>;
  for (std::uint64_t n : {std::uint64_t{1}, W + 3, L + W + 5, 5 * L + 17, std::uint64_t{1} << 17, 300 * L + 9}) {
    const std::vector<T> x = generate<T>(values::uniform, n, 3000 + n);
    for (std::uint64_t offset = 0; offset < 16; ++offset) {
      for (mode m : both_modes) expect_gpu_matches_reference<T>(x, m, "misaligned", offset);
    }
  }
}

TYPED_TEST(TypedGpu, EveryValueClass) {
  using T = TypeParam;
  constexpr std::uint64_t L = order::leaf_size<T>;
  for (values v : all_value_classes()) {
    for (std::uint64_t n : {std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{100}, L + 1, 37 * L + 11,
                            std::uint64_t{1} << 18, 2000 * L + 5}) {
      const std::vector<T> x = generate<T>(v, n, 4000 + n);
      for (mode m : both_modes) expect_gpu_matches_reference<T>(x, m, name(v));
    }
  }
}

// Several folding passes: a forced plan of one leaf per block makes one leaf-pass value per leaf, so 8193 leaves
// need two folding passes.
TYPED_TEST(TypedGpu, SeveralFoldingPasses) {
  using T = TypeParam;
  constexpr std::uint64_t L = order::leaf_size<T>;
  const std::uint64_t n = 8193 * L + 77;
  const std::vector<T> x = generate<T>(values::ill_conditioned, n, 4500);
  for (mode m : both_modes) expect_gpu_matches_reference<T>(x, m, "two folding passes");
}

// The values the special classes must produce, not only agree on.
TYPED_TEST(TypedGpu, SpecialValuesGiveTheDocumentedResult) {
  using T = TypeParam;
  const T inf = std::numeric_limits<T>::infinity();
  const auto canonical_nan = bits(order::canonical_nan<T>());
  for (mode m : both_modes) {
    for (std::uint64_t n : {std::uint64_t{1}, std::uint64_t{1000}, std::uint64_t{1} << 18}) {
      auto run = [&](values v) { return expect_gpu_matches_reference<T>(generate<T>(v, n, 5000 + n), m, name(v)); };
      EXPECT_EQ(bits(run(values::negative_zeros)), bits(T(-0.0))) << "a sum of -0.0s is -0.0";
      EXPECT_EQ(bits(run(values::with_inf)), bits(inf));
      EXPECT_EQ(bits(run(values::with_nan)), canonical_nan);
      if (n > 1) {
        EXPECT_EQ(bits(run(values::with_both_infs)), canonical_nan);
        EXPECT_EQ(bits(run(values::overflowing)), bits(inf));
      }
    }
  }
}

TYPED_TEST(TypedGpu, EmptyInputIsTheIdentity) {
  using T = TypeParam;
  for (mode m : both_modes) {
    EXPECT_EQ(bits(cuda::sum(std::span<const T>(), {.mode = m, .workspace = &test_workspace()})), bits(T(-0.0)));
    EXPECT_EQ(bits(detred::sum(std::span<const T>(), {.mode = m, .backend = backend::cuda})), bits(T(-0.0)));
    gpu_comparisons() += 2;
  }
}

}  // namespace
}  // namespace detred::testing

// Print how many comparisons ran, so a log shows the GPU tests did real work (or that they were skipped).
class GpuComparisonCount : public ::testing::Environment {
 public:
  void TearDown() override {
    std::cout << "[ compared ] " << detred::testing::gpu_inputs().load() << " inputs, "
              << detred::testing::gpu_comparisons().load() << " GPU result bit patterns against the CPU reference\n";
  }
};
[[maybe_unused]] static ::testing::Environment* const gpu_comparison_count =
    ::testing::AddGlobalTestEnvironment(new GpuComparisonCount);
