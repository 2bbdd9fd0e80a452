// SPDX-License-Identifier: BSD-3-Clause
// Invariance of every operator other than the sum: each instruction set and thread count gives the reference
// engine's bits, for sizes around every boundary of the order, misaligned pointers, and every class of adversarial
// values (the sum has its own, longer suite in invariance_test.cpp).
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "op_paths.hpp"

namespace detred::testing {
namespace {

using order::compensated_sums;
using order::plain_sums;

template <class T>
class FloatOperators : public ::testing::Test {};
using FloatTypes = ::testing::Types<double, float>;
TYPED_TEST_SUITE(FloatOperators, FloatTypes);

/// Every operator over one array of T, on x[0..n) and on the same data one element off its alignment.
template <class T>
void expect_one_array_ops(std::span<const T> x, const std::string& what) {
  const auto run = [&]<class Op>(const std::string& name) {
    expect_every_cpu_path<Op>(order::operands<Op>{{x.data()}, 0}, x.size(), what + " " + name);
  };
  run.template operator()<order::asum_op<T, plain_sums>>("asum tree");
  run.template operator()<order::asum_op<T, compensated_sums>>("asum compensated");
  run.template operator()<order::nrm2_op<T, plain_sums>>("nrm2 tree");
  run.template operator()<order::nrm2_op<T, compensated_sums>>("nrm2 compensated");
  run.template operator()<order::min_op<T>>("min");
  run.template operator()<order::max_op<T>>("max");
  run.template operator()<order::argmin_op<T>>("argmin");
  run.template operator()<order::argmax_op<T>>("argmax");
  run.template operator()<order::moments_op<T>>("stats");
  run.template operator()<order::mean_op<T, plain_sums>>("mean tree");
  run.template operator()<order::mean_op<T, compensated_sums>>("mean compensated");
}

template <class T>
void expect_dot_ops(std::span<const T> x, std::span<const T> y, const std::string& what) {
  expect_every_cpu_path<order::dot_op<T, plain_sums>>({{x.data(), y.data()}, 0}, x.size(), what + " dot tree");
  expect_every_cpu_path<order::dot_op<T, compensated_sums>>({{x.data(), y.data()}, 0}, x.size(),
                                                            what + " dot compensated");
}

TYPED_TEST(FloatOperators, EveryPathMatchesTheReference) {
  using T = TypeParam;
  for (values v : all_value_classes()) {
    for (std::uint64_t n : op_sizes<T>(v == values::uniform)) {
      const std::vector<T> x = generate<T>(v, n + 1, 900 + n);
      const std::vector<T> y = generate<T>(v, n + 1, 901 + n);
      const std::string what = name(v) + " n=" + std::to_string(n);
      expect_one_array_ops<T>(std::span<const T>(x).first(n), what);
      expect_dot_ops<T>(std::span<const T>(x).first(n), std::span<const T>(y).first(n), what);
      if (n > 0 && n % 3 == 1) {  // misaligned: one element past a 16-byte boundary
        expect_one_array_ops<T>(std::span<const T>(x).subspan(1), what + " misaligned");
        expect_dot_ops<T>(std::span<const T>(x).subspan(1), std::span<const T>(y).first(n), what + " misaligned");
      }
    }
  }
}

TYPED_TEST(FloatOperators, DotOfProductsNearTheSubnormalRange) {
  // Products that round into the subnormals (and their fma error terms): the CPU's vector fma and the scalar one
  // must agree, and so must every path.
  using T = TypeParam;
  for (std::uint64_t n : op_sizes<T>(false)) {
    std::vector<T> x = generate<T>(values::uniform, n, 70 + n);
    std::vector<T> y = generate<T>(values::uniform, n, 71 + n);
    const T tiny = std::numeric_limits<T>::min();
    for (std::uint64_t i = 0; i < n; ++i) {
      x[i] *= T(0.75) * tiny * T(1 << 10);
      y[i] *= T(1) / T(1 << 12);
    }
    expect_dot_ops<T>(x, y, "subnormal products n=" + std::to_string(n));
  }
}

template <class H>
class HalfOperators : public ::testing::Test {};
using HalfTypes = ::testing::Types<float16, bfloat16>;
TYPED_TEST_SUITE(HalfOperators, HalfTypes);

TYPED_TEST(HalfOperators, EveryPathMatchesTheReference) {
  using H = TypeParam;
  for (bool finite : {true, false}) {
    for (std::uint64_t n : op_sizes<float>(finite)) {
      const std::vector<H> x = random_halves<H>(n + 1, 300 + n, finite);
      const std::vector<H> y = random_halves<H>(n + 1, 301 + n, finite);
      const std::string what = std::string(finite ? "finite" : "any bits") + " n=" + std::to_string(n);
      for (std::uint64_t offset : {std::uint64_t{0}, std::uint64_t{1}}) {
        if (offset > n) continue;
        const H* xs = x.data() + offset;
        expect_every_cpu_path<order::sum_op<H, plain_sums>>({{xs}, 0}, n, what + " sum tree");
        expect_every_cpu_path<order::sum_op<H, compensated_sums>>({{xs}, 0}, n, what + " sum compensated");
        expect_every_cpu_path<order::dot_op<H, plain_sums>>({{xs, y.data()}, 0}, n, what + " dot tree");
        expect_every_cpu_path<order::dot_op<H, compensated_sums>>({{xs, y.data()}, 0}, n, what + " dot compensated");
        expect_every_cpu_path<order::mean_op<H, plain_sums>>({{xs}, 0}, n, what + " mean tree");
      }
    }
  }
}

template <class I>
class IntegerOperators : public ::testing::Test {};
using IntegerTypes = ::testing::Types<std::int32_t, std::int64_t, std::uint32_t, std::uint64_t>;
TYPED_TEST_SUITE(IntegerOperators, IntegerTypes);

TYPED_TEST(IntegerOperators, EveryPathMatchesTheReference) {
  using I = TypeParam;
  for (int kind : {0, 1, 2}) {
    for (std::uint64_t n : op_sizes<I>(kind == 0)) {
      const std::vector<I> x = random_integers<I>(n + 1, 500 + n, kind);
      const std::string what = "kind " + std::to_string(kind) + " n=" + std::to_string(n);
      for (std::uint64_t offset : {std::uint64_t{0}, std::uint64_t{1}}) {
        if (offset > n) continue;
        const I* xs = x.data() + offset;
        expect_every_cpu_path<order::integer_sum_op<I>>({{xs}, 0}, n, what + " sum");
        expect_every_cpu_path<order::min_op<I>>({{xs}, 0}, n, what + " min");
        expect_every_cpu_path<order::max_op<I>>({{xs}, 0}, n, what + " max");
        expect_every_cpu_path<order::argmin_op<I>>({{xs}, 0}, n, what + " argmin");
        expect_every_cpu_path<order::argmax_op<I>>({{xs}, 0}, n, what + " argmax");
      }
    }
  }
}

}  // namespace
}  // namespace detred::testing
