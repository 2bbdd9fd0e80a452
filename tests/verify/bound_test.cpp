// SPDX-License-Identifier: BSD-3-Clause
// The documented error bound (detred/bounds.hpp) holds against the exact sum, for both types and both modes, on
// random and adversarial inputs; and it is not vacuous: results a few ulps off are caught.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <mpfr.h>

#include "../test_data.hpp"
#include "detred/detred.hpp"
#include "oracle.hpp"

namespace detred::verify {
namespace {

using detred::testing::values;

const std::vector<values>& classes() {
  static const std::vector<values> all = {values::uniform, values::same_sign, values::dynamic_range,
                                          values::ill_conditioned, values::subnormal};
  return all;
}

// Sizes around every structural boundary of the canonical order (lanes, leaves, powers of two of leaves).
const std::vector<std::uint64_t>& sizes() {
  static const std::vector<std::uint64_t> all = {1,
                                                 2,
                                                 3,
                                                 63,
                                                 64,
                                                 65,
                                                 127,
                                                 129,
                                                 1000,
                                                 2047,
                                                 2048,
                                                 2049,
                                                 4095,
                                                 4097,
                                                 12289,
                                                 65537,
                                                 100003,
                                                 (1u << 18) + 3,
                                                 (1u << 20) - 1,
                                                 1u << 20};
  return all;
}

struct worst_case {
  double ratio = 0;
  std::string where;
};

template <class T>
void check_all(worst_case worst[2]) {
  for (values v : classes()) {
    for (std::uint64_t n : sizes()) {
      const std::vector<T> x = detred::testing::generate<T>(v, n, 1000 + n);
      const exact_sums exact = exact_sum(std::span<const T>(x));
      for (mode m : {mode::tree, mode::compensated}) {
        const T result = detred::sum(std::span<const T>(x), {.mode = m});
        const assessment a = assess(exact, result, m);
        const std::string where = std::string(sizeof(T) == 4 ? "float" : "double") + " " + to_string(m) + " " +
                                  detred::testing::name(v) + " n=" + std::to_string(n);
        EXPECT_EQ(a.status, verdict::within_bound)
            << where << ": error " << to_decimal(a.error) << " bound " << to_decimal(a.bound) << " result " << result
            << " exact " << to_decimal(exact.sum, 25);
        const int k = m == mode::tree ? 0 : 1;
        if (a.error_over_bound > worst[k].ratio) worst[k] = {a.error_over_bound, where};
      }
    }
  }
}

TEST(Bound, HoldsForBothTypesAndModesAgainstTheExactSum) {
  worst_case worst[2];
  check_all<double>(worst);
  check_all<float>(worst);
  std::printf("largest error/bound: tree %.3g (%s), compensated %.3g (%s)\n", worst[0].ratio, worst[0].where.c_str(),
              worst[1].ratio, worst[1].where.c_str());
  // Not vacuous: somewhere the error comes within a factor 1000 of each mode's bound.
  EXPECT_GT(worst[0].ratio, 1e-3) << "tree-mode bound never approached";
  EXPECT_GT(worst[1].ratio, 1e-3) << "compensated-mode bound never approached";
}

TEST(Bound, TreeModeErrsOnIllConditionedDataAndTheCheckCatchesAFewUlpsMore) {
  // Tree mode is not exact on ill-conditioned data: the error is nonzero, so a wrong bound could be caught.
  const auto x = detred::testing::generate<double>(values::ill_conditioned, 100003, 5);
  const exact_sums exact = exact_sum(std::span<const double>(x));
  const double tree = detred::sum(std::span<const double>(x));
  const assessment a = assess(exact, tree, mode::tree);
  EXPECT_FALSE(mpfr_zero_p(a.error.get()));
  EXPECT_EQ(a.status, verdict::within_bound);
  // Compensated mode's bound is tight near u|S|: moving its result by a few ulps must break it.
  const auto y = detred::testing::generate<double>(values::uniform, 100003, 6);
  const exact_sums exact_y = exact_sum(std::span<const double>(y));
  double result = detred::sum(std::span<const double>(y), {.mode = mode::compensated});
  EXPECT_EQ(assess(exact_y, result, mode::compensated).status, verdict::within_bound);
  for (int k = 0; k < 4; ++k) result = std::nextafter(result, 1e300);
  EXPECT_EQ(assess(exact_y, result, mode::compensated).status, verdict::bound_violated);
}

TEST(Bound, LibraryFactorsAreAtLeastTheExactGammas) {
  // gamma_k = k u / (1 - k u) in MPFR, rounded downward: the library's upward-rounded factors must not be smaller.
  auto gamma_down = [](int k, double u, mpfr_number& out) {
    mpfr_number ku(200), denominator(200);
    mpfr_set_d(ku.get(), u, MPFR_RNDN);
    mpfr_mul_si(ku.get(), ku.get(), k, MPFR_RNDN);  // exact: 200 bits
    mpfr_ui_sub(denominator.get(), 1, ku.get(), MPFR_RNDN);
    mpfr_div(out.get(), ku.get(), denominator.get(), MPFR_RNDD);
  };
  for (std::uint64_t n : sizes()) {
    for (mode m : {mode::tree, mode::compensated}) {
      const error_bound b = detred::bound<double>(n, m);
      mpfr_number g(200), g2(200), product(200);
      gamma_down(b.depth, b.unit_roundoff, g);
      if (m == mode::tree) {
        EXPECT_LE(mpfr_cmp_d(g.get(), b.abs_sum_factor), 0) << "gamma_D above the library's factor, n=" << n;
      } else {
        gamma_down(b.correction_depth, b.unit_roundoff, g2);
        mpfr_mul(product.get(), g.get(), g2.get(), MPFR_RNDD);
        EXPECT_LE(mpfr_cmp_d(product.get(), b.abs_sum_factor), 0) << "gamma_D gamma_D' above the factor, n=" << n;
        EXPECT_EQ(b.result_factor, b.unit_roundoff);
      }
    }
  }
}

}  // namespace
}  // namespace detred::verify
