// SPDX-License-Identifier: BSD-3-Clause
// See moments.hpp.
#include "moments.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

#include <mpfr.h>

#include "detred/order/shape.hpp"
#include "detred/order/variance_bound.hpp"
#include "exact_products.hpp"
#include "mpfr_helpers.hpp"

namespace detred::verify {
namespace {

template <class T>
exact_moments moments_of(std::span<const T> x) {
  exact_moments m{exact_sum(x), exact_sum_of_squares(x)};
  for (const T v : x) {  // NaN compares false: the data's kind (not finite) decides those cases anyway
    if (!(v >= m.min)) m.min = v;
    if (!(v <= m.max)) m.max = v;
  }
  return m;
}

template <class T>
assessment assess_mean_of(const exact_sums& sums, T result, mode m) {
  assessment a;
  a.factors = detred::bound<T>(bounded_op::mean, sums.n, m);
  mpfr_set_prec(a.error.get(), detail::exact_precision);
  mpfr_set_prec(a.bound.get(), detail::bound_precision);
  mpfr_set_zero(a.error.get(), 1);
  if (sums.n == 0) {
    a.status = std::isnan(result) ? verdict::special_match : verdict::special_mismatch;
    return a;
  }
  mpfr_number n(64);
  detail::set_count(n, sums.n);

  // n * bound = result_factor |S| + abs_sum_factor sum|x_i| + n absolute, every step upward.
  mpfr_number scaled_bound(detail::bound_precision), term(detail::bound_precision);
  int inexact = mpfr_mul_d(scaled_bound.get(), sums.abs_sum.get(), a.factors.abs_sum_factor, MPFR_RNDU);
  inexact |= mpfr_abs(term.get(), sums.sum.get(), MPFR_RNDU);
  inexact |= mpfr_mul_d(term.get(), term.get(), a.factors.result_factor, MPFR_RNDU);
  inexact |= mpfr_add(scaled_bound.get(), scaled_bound.get(), term.get(), MPFR_RNDU);
  inexact |= mpfr_mul_d(term.get(), n.get(), a.factors.absolute, MPFR_RNDU);
  inexact |= mpfr_add(scaled_bound.get(), scaled_bound.get(), term.get(), MPFR_RNDU);
  inexact |= mpfr_div(a.bound.get(), scaled_bound.get(), n.get(), MPFR_RNDU);
  a.bound_exact = inexact == 0;
  a.bound_upper = mpfr_get_d(a.bound.get(), MPFR_RNDU);

  if (detail::judged_non_finite(sums, result, a)) return a;

  // |S - n result| exactly: S has at most 2163 bits, n result at most 117, both multiples of 2^-1074 * 2^-75.
  mpfr_number scaled_error(detail::exact_precision), product(128);
  detail::require_exact(mpfr_mul_d(product.get(), n.get(), static_cast<double>(result), MPFR_RNDN), "n * result");
  detail::require_exact(mpfr_sub(scaled_error.get(), sums.sum.get(), product.get(), MPFR_RNDN), "S - n result");
  mpfr_abs(scaled_error.get(), scaled_error.get(), MPFR_RNDN);
  mpfr_div(a.error.get(), scaled_error.get(), n.get(), MPFR_RNDU);
  mpfr_number mean(detail::exact_precision);
  mpfr_div(mean.get(), sums.sum.get(), n.get(), MPFR_RNDN);
  detail::set_figures(a, mean, result);
  a.status = mpfr_lessequal_p(scaled_error.get(), scaled_bound.get()) ? verdict::within_bound : verdict::bound_violated;
  return a;
}

template <class T>
T correctly_rounded_mean_of(const exact_sums& sums) {
  if (sums.n == 0 || sums.kind == exact_kind::nan) return std::numeric_limits<T>::quiet_NaN();
  if (sums.kind == exact_kind::positive_infinity) return std::numeric_limits<T>::infinity();
  if (sums.kind == exact_kind::negative_infinity) return -std::numeric_limits<T>::infinity();
  if (mpfr_zero_p(sums.sum.get())) return sums.negative_zero ? T(-0.0) : T(0.0);
  mpfr_number n(64), mean(detail::exact_precision);
  detail::set_count(n, sums.n);
  mpfr_div(mean.get(), sums.sum.get(), n.get(), MPFR_RNDN);
  return detail::to_type<T>(mean);
}

// The exact moment at 9400 bits, or nothing when the rules require NaN. n sum x^2 and (sum x)^2 are exact there
// (each below 4400 bits of range), so only the quotient (and the square root) round.
std::optional<mpfr_number> exact_moment(moment which, const exact_moments& m) {
  const std::uint64_t n = m.sums.n;
  const bool sample = which == moment::sample_variance || which == moment::sample_stddev;
  if (n == 0 || (sample && n == 1) || m.sums.kind != exact_kind::finite) return std::nullopt;
  mpfr_number count(64), numerator(detail::bound_precision), square(detail::bound_precision);
  detail::set_count(count, n);
  detail::require_exact(mpfr_mul(numerator.get(), m.squares.sum.get(), count.get(), MPFR_RNDN), "n sum x^2");
  detail::require_exact(mpfr_sqr(square.get(), m.sums.sum.get(), MPFR_RNDN), "(sum x)^2");
  detail::require_exact(mpfr_sub(numerator.get(), numerator.get(), square.get(), MPFR_RNDN), "numerator");
  mpfr_number denominator(128);
  detail::set_count(denominator, sample ? n - 1 : n);
  detail::require_exact(mpfr_mul(denominator.get(), denominator.get(), count.get(), MPFR_RNDN), "denominator");
  mpfr_number value(detail::bound_precision);
  mpfr_div(value.get(), numerator.get(), denominator.get(), MPFR_RNDN);
  if (which == moment::stddev || which == moment::sample_stddev) mpfr_sqrt(value.get(), value.get(), MPFR_RNDN);
  return value;
}

// The bound of a variance (sample or not) or standard deviation (docs/error-bounds.md), upward at bound_precision.
template <class T>
void set_moment_bound(moment which, const exact_moments& m, const mpfr_number& variance, mpfr_number& bound) {
  constexpr double u = detred::order::unit_roundoff<T>;
  // nu = half the smallest subnormal of T: 2^-1075 is below double's range, so it lives in MPFR.
  mpfr_number nu(8);
  mpfr_set_ui_2exp(nu.get(), 1, std::numeric_limits<T>::min_exponent - std::numeric_limits<T>::digits - 1, MPFR_RNDN);
  const std::uint64_t n = m.sums.n;
  const bool sample = which == moment::sample_variance || which == moment::sample_stddev;
  const auto terms = static_cast<double>(detred::order::variance_error_terms<T>(n));  // exact: far below 2^53
  constexpr mpfr_prec_t p = detail::bound_precision;
  mpfr_number gamma(p), one_minus(p), count(64), divisor(64), range(p), e_m2(p), term(p), phi(p), e_v(p);
  // gamma_K = K u / (1 - K u), phi = (1 + u) / (1 - u)^2, upward.
  mpfr_set_d(one_minus.get(), -terms * u, MPFR_RNDD);  // K u is exact: a small integer times a power of two
  mpfr_add_ui(one_minus.get(), one_minus.get(), 1, MPFR_RNDD);
  mpfr_set_d(gamma.get(), terms * u, MPFR_RNDU);
  mpfr_div(gamma.get(), gamma.get(), one_minus.get(), MPFR_RNDU);
  mpfr_set_d(one_minus.get(), 1.0 - u, MPFR_RNDD);  // exact
  mpfr_set_d(phi.get(), 1.0 + u, MPFR_RNDU);        // exact
  mpfr_div(phi.get(), phi.get(), one_minus.get(), MPFR_RNDU);
  mpfr_div(phi.get(), phi.get(), one_minus.get(), MPFR_RNDU);
  // E_M2 = gamma_K n R^2 + K n nu.
  detail::set_count(count, n);
  detail::set_count(divisor, sample ? n - 1 : n);
  mpfr_set_d(range.get(), m.max, MPFR_RNDU);
  mpfr_sub_d(range.get(), range.get(), m.min, MPFR_RNDU);  // exact at this precision
  mpfr_sqr(e_m2.get(), range.get(), MPFR_RNDU);
  mpfr_mul(e_m2.get(), e_m2.get(), count.get(), MPFR_RNDU);
  mpfr_mul(e_m2.get(), e_m2.get(), gamma.get(), MPFR_RNDU);
  mpfr_mul_d(term.get(), count.get(), terms, MPFR_RNDU);
  mpfr_mul(term.get(), term.get(), nu.get(), MPFR_RNDU);
  mpfr_add(e_m2.get(), e_m2.get(), term.get(), MPFR_RNDU);
  // E_V = (phi - 1) V + phi E_M2 / divisor + nu.
  mpfr_sub_ui(e_v.get(), phi.get(), 1, MPFR_RNDU);
  mpfr_mul(e_v.get(), e_v.get(), variance.get(), MPFR_RNDU);
  mpfr_div(term.get(), e_m2.get(), divisor.get(), MPFR_RNDU);
  mpfr_mul(term.get(), term.get(), phi.get(), MPFR_RNDU);
  mpfr_add(e_v.get(), e_v.get(), term.get(), MPFR_RNDU);
  mpfr_add(e_v.get(), e_v.get(), nu.get(), MPFR_RNDU);
  if (which == moment::variance || which == moment::sample_variance) {
    mpfr_set(bound.get(), e_v.get(), MPFR_RNDU);
    return;
  }
  // u sigma + (1 + u) min(sqrt(E_V), E_V / sigma) + nu: |sqrt(a) - sqrt(b)| <= sqrt(|a - b|), and <= |a - b| / sqrt(b)
  // for b > 0.
  mpfr_number sigma(p);
  mpfr_sqrt(bound.get(), e_v.get(), MPFR_RNDU);
  mpfr_sqrt(sigma.get(), variance.get(), MPFR_RNDD);
  if (mpfr_sgn(sigma.get()) > 0) {
    mpfr_div(term.get(), e_v.get(), sigma.get(), MPFR_RNDU);
    mpfr_min(bound.get(), bound.get(), term.get(), MPFR_RNDU);
  }
  mpfr_mul_d(bound.get(), bound.get(), 1.0 + u, MPFR_RNDU);
  mpfr_sqrt(term.get(), variance.get(), MPFR_RNDU);
  mpfr_mul_d(term.get(), term.get(), u, MPFR_RNDU);
  mpfr_add(bound.get(), bound.get(), term.get(), MPFR_RNDU);
  mpfr_add(bound.get(), bound.get(), nu.get(), MPFR_RNDU);
}

template <class T>
assessment assess_moment_of(moment which, const exact_moments& m, T result) {
  assessment a;
  mpfr_set_prec(a.error.get(), detail::bound_precision);
  mpfr_set_prec(a.bound.get(), detail::bound_precision);
  mpfr_set_zero(a.error.get(), 1);
  mpfr_set_zero(a.bound.get(), 1);
  a.bound_exact = false;
  a.error_over_bound = std::numeric_limits<double>::quiet_NaN();
  a.factors.depth = detred::order::depth<T>(m.sums.n);
  const std::optional<mpfr_number> exact = exact_moment(which, m);
  if (!exact) {
    a.status = std::isnan(result) ? verdict::special_match : verdict::special_mismatch;
    return a;
  }
  if (!std::isfinite(result)) {
    a.status = verdict::overflow;
    return a;
  }
  mpfr_sub_d(a.error.get(), exact->get(), static_cast<double>(result), MPFR_RNDN);
  mpfr_abs(a.error.get(), a.error.get(), MPFR_RNDN);
  if (std::isnan(m.min) || std::isnan(m.max)) {
    detail::set_figures(a, *exact, result);
    a.error_over_bound = std::numeric_limits<double>::quiet_NaN();
    a.status = verdict::measured;
    return a;
  }
  const bool sample = which == moment::sample_variance || which == moment::sample_stddev;
  const std::optional<mpfr_number> variance = exact_moment(sample ? moment::sample_variance : moment::variance, m);
  set_moment_bound<T>(which, m, *variance, a.bound);
  a.bound_upper = mpfr_get_d(a.bound.get(), MPFR_RNDU);
  detail::set_figures(a, *exact, result);
  a.status = mpfr_lessequal_p(a.error.get(), a.bound.get()) ? verdict::within_bound : verdict::bound_violated;
  return a;
}

template <class T>
T correctly_rounded_moment_of(moment which, const exact_moments& m) {
  const std::optional<mpfr_number> exact = exact_moment(which, m);
  if (!exact) return std::numeric_limits<T>::quiet_NaN();
  return mpfr_zero_p(exact->get()) ? T(0) : detail::to_type<T>(*exact);
}

}  // namespace

exact_moments exact_moments_of(std::span<const double> x) { return moments_of(x); }
exact_moments exact_moments_of(std::span<const float> x) { return moments_of(x); }
assessment assess_mean(const exact_sums& sums, double result, mode m) { return assess_mean_of(sums, result, m); }
assessment assess_mean(const exact_sums& sums, float result, mode m) { return assess_mean_of(sums, result, m); }
double correctly_rounded_mean_f64(const exact_sums& sums) { return correctly_rounded_mean_of<double>(sums); }
float correctly_rounded_mean_f32(const exact_sums& sums) { return correctly_rounded_mean_of<float>(sums); }
assessment assess_moment(moment which, const exact_moments& m, double result) {
  return assess_moment_of(which, m, result);
}
assessment assess_moment(moment which, const exact_moments& m, float result) {
  return assess_moment_of(which, m, result);
}
double correctly_rounded_moment_f64(moment which, const exact_moments& m) {
  return correctly_rounded_moment_of<double>(which, m);
}
float correctly_rounded_moment_f32(moment which, const exact_moments& m) {
  return correctly_rounded_moment_of<float>(which, m);
}

}  // namespace detred::verify
