// SPDX-License-Identifier: BSD-3-Clause
// See exact_products.hpp for why every addition here is exact.
#include "exact_products.hpp"

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <span>
#include <stdexcept>

#include <mpfr.h>

#include "mpfr_helpers.hpp"

namespace detred::verify {
namespace {

constexpr std::uint64_t sign_bit = std::uint64_t{1} << 63;
constexpr std::uint64_t fraction_mask = (std::uint64_t{1} << 52) - 1;
// Each pair adds at most two doubles to each fixed-point sum, three limbs of less than 2^32 each, so a limb absorbs
// 2^29 pairs before carries are due (fixed_point_sum allows 2^30 single additions); propagate well before that.
constexpr std::uint64_t pairs_between_carries = std::uint64_t{1} << 28;
// Below this, TwoProduct may round (docs/error-bounds.md): such products take the MPFR path.
constexpr double smallest_two_product = 0x1p-967;

// Adds the finite double v to a fixed-point sum: m * 2^(q - 1074), as exact_accumulator does.
void add_double(fixed_point_sum& sum, double v) {
  const auto bits = std::bit_cast<std::uint64_t>(v);
  const std::uint64_t biased = (bits >> 52) & 0x7ff;
  const std::uint64_t is_normal = biased != 0 ? 1 : 0;
  sum.add((bits & fraction_mask) | (is_normal << 52), biased - is_normal, (bits & sign_bit) != 0);
}

}  // namespace

product_accumulator::product_accumulator()
    : slow_sum_(detail::exact_precision), slow_abs_sum_(detail::exact_precision) {
  mpfr_set_zero(slow_sum_.get(), 1);
  mpfr_set_zero(slow_abs_sum_.get(), 1);
}

void product_accumulator::add_exact_double(double v, double magnitude_term) {
  add_double(sum_, v);
  add_double(abs_sum_, magnitude_term);
}

void product_accumulator::add_slow(double x, double y) {
  mpfr_number product(106);  // 53 + 53 bits: the product of two doubles is exact
  detail::require_exact(mpfr_set_d(product.get(), x, MPFR_RNDN), "x to MPFR");
  detail::require_exact(mpfr_mul_d(product.get(), product.get(), y, MPFR_RNDN), "x * y");
  detail::require_exact(mpfr_add(slow_sum_.get(), slow_sum_.get(), product.get(), MPFR_RNDN), "sum of products");
  mpfr_abs(product.get(), product.get(), MPFR_RNDN);
  detail::require_exact(mpfr_add(slow_abs_sum_.get(), slow_abs_sum_.get(), product.get(), MPFR_RNDN),
                        "sum of |products|");
}

void product_accumulator::add_pair(double x, double y) {
  if (std::isnan(x) || std::isnan(y)) {
    ++nans_;
    all_negative_zero_ = false;
    return;
  }
  if (std::isinf(x) || std::isinf(y)) {
    if (x == 0 || y == 0) {
      ++nans_;  // Inf * 0
    } else if (std::signbit(x) != std::signbit(y)) {
      ++negative_infinities_;
    } else {
      ++positive_infinities_;
    }
    all_negative_zero_ = false;
    return;
  }
  if (x == 0 || y == 0) {  // an exact zero: it adds nothing, only its sign matters
    if (std::signbit(x) == std::signbit(y)) all_negative_zero_ = false;
    return;
  }
  all_negative_zero_ = false;
  const double p = x * y;
  if (std::isfinite(p) && std::fabs(p) >= smallest_two_product) {
    const double t = std::fma(x, y, -p);  // exactly x y - p here
    add_exact_double(p, std::fabs(p));
    if (t != 0) add_exact_double(t, std::signbit(p) ? -t : t);  // |x y| = |p| + sign(p) t, as |t| < |p|
  } else {
    add_slow(x, y);
  }
}

void product_accumulator::count(std::uint64_t added) {
  n_ += added;
  since_carry_ += added;
  if (since_carry_ >= pairs_between_carries) {
    sum_.propagate_carries();
    abs_sum_.propagate_carries();
    since_carry_ = 0;
  }
}

void product_accumulator::add(std::span<const double> x, std::span<const double> y) {
  if (x.size() != y.size()) throw std::invalid_argument("exact_dot: x and y differ in length");
  constexpr std::size_t block = std::size_t{1} << 16;
  for (std::size_t start = 0; start < x.size(); start += block) {
    const std::size_t end = x.size() - start < block ? x.size() : start + block;
    for (std::size_t i = start; i < end; ++i) add_pair(x[i], y[i]);
    count(end - start);
  }
}

void product_accumulator::add(std::span<const float> x, std::span<const float> y) {
  if (x.size() != y.size()) throw std::invalid_argument("exact_dot: x and y differ in length");
  constexpr std::size_t block = std::size_t{1} << 16;
  for (std::size_t start = 0; start < x.size(); start += block) {
    const std::size_t end = x.size() - start < block ? x.size() : start + block;
    // float -> double is exact, and so is the product of two floats in double (the fma then returns 0).
    for (std::size_t i = start; i < end; ++i) add_pair(static_cast<double>(x[i]), static_cast<double>(y[i]));
    count(end - start);
  }
}

exact_sums product_accumulator::totals() const {
  exact_sums s;
  s.n = n_;
  s.negative_zero = all_negative_zero_;
  mpfr_number fixed(2);
  mpfr_set_prec(s.sum.get(), detail::exact_precision);
  detail::to_mpfr(sum_, fixed);
  detail::require_exact(mpfr_add(s.sum.get(), fixed.get(), slow_sum_.get(), MPFR_RNDN), "fixed + slow sums");
  mpfr_set_prec(s.abs_sum.get(), detail::exact_precision);
  detail::to_mpfr(abs_sum_, fixed);
  detail::require_exact(mpfr_add(s.abs_sum.get(), fixed.get(), slow_abs_sum_.get(), MPFR_RNDN),
                        "fixed + slow magnitudes");
  if (nans_ > 0 || (positive_infinities_ > 0 && negative_infinities_ > 0)) {
    s.kind = exact_kind::nan;
  } else if (positive_infinities_ > 0) {
    s.kind = exact_kind::positive_infinity;
  } else if (negative_infinities_ > 0) {
    s.kind = exact_kind::negative_infinity;
  }
  return s;
}

namespace {

// 16-bit elements widened to float block by block (exact), so that the oracle never holds a float copy of the data.
template <class H>
exact_sums widened_dot(std::span<const H> x, std::span<const H> y) {
  if (x.size() != y.size()) throw std::invalid_argument("exact_dot: x and y differ in length");
  product_accumulator acc;
  constexpr std::size_t block = 4096;
  std::array<float, block> xf{};
  std::array<float, block> yf{};
  for (std::size_t start = 0; start < x.size(); start += block) {
    const std::size_t count = x.size() - start < block ? x.size() - start : block;
    for (std::size_t i = 0; i < count; ++i) {
      xf[i] = detred::to_float(x[start + i]);
      yf[i] = detred::to_float(y[start + i]);
    }
    acc.add(std::span<const float>(xf.data(), count), std::span<const float>(yf.data(), count));
  }
  return acc.totals();
}

template <class T>
exact_sums dot_of(std::span<const T> x, std::span<const T> y) {
  product_accumulator acc;
  acc.add(x, y);
  return acc.totals();
}

}  // namespace

exact_sums exact_dot(std::span<const double> x, std::span<const double> y) { return dot_of(x, y); }
exact_sums exact_dot(std::span<const float> x, std::span<const float> y) { return dot_of(x, y); }
exact_sums exact_dot(std::span<const float16> x, std::span<const float16> y) { return widened_dot(x, y); }
exact_sums exact_dot(std::span<const bfloat16> x, std::span<const bfloat16> y) { return widened_dot(x, y); }
exact_sums exact_sum_of_squares(std::span<const double> x) { return dot_of(x, x); }
exact_sums exact_sum_of_squares(std::span<const float> x) { return dot_of(x, x); }

}  // namespace detred::verify
