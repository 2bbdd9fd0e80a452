// SPDX-License-Identifier: BSD-3-Clause
// See oracle.hpp. Every MPFR operation here is either exact (the precision is chosen so that it cannot round, and
// the ternary value is checked) or rounded upward on purpose (the bound).
#include "oracle.hpp"

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string>

#include <mpfr.h>

#include "exact_accumulator.hpp"
#include "mpfr_helpers.hpp"

namespace detred::verify {
namespace {

// Elements between progress reports.
constexpr std::size_t progress_chunk = std::size_t{1} << 22;

template <class T>
exact_accumulator accumulate(std::span<const T> x, const progress_callback& progress) {
  exact_accumulator acc;
  for (std::size_t start = 0; start < x.size(); start += progress_chunk) {
    const std::size_t count = x.size() - start < progress_chunk ? x.size() - start : progress_chunk;
    acc.add(x.subspan(start, count));
    if (progress) progress(start + count);
  }
  return acc;
}

// 16-bit elements widened exactly to float, a block at a time.
template <class H>
exact_accumulator accumulate_widened(std::span<const H> x, const progress_callback& progress) {
  exact_accumulator acc;
  constexpr std::size_t block = 4096;
  std::array<float, block> widened{};
  for (std::size_t start = 0; start < x.size(); start += block) {
    const std::size_t count = x.size() - start < block ? x.size() - start : block;
    for (std::size_t i = 0; i < count; ++i) widened[i] = detred::to_float(x[start + i]);
    acc.add(std::span<const float>(widened.data(), count));
    if (progress && ((start + count) % progress_chunk == 0 || start + count == x.size())) progress(start + count);
  }
  return acc;
}

exact_sums sums_of(const exact_accumulator& acc) {
  exact_sums s;
  s.n = acc.count();
  detail::to_mpfr(acc.sum(), s.sum);
  detail::to_mpfr(acc.abs_sum(), s.abs_sum);
  s.negative_zero = acc.all_negative_zero();
  if (acc.nan_count() > 0 || (acc.positive_infinities() > 0 && acc.negative_infinities() > 0)) {
    s.kind = exact_kind::nan;
  } else if (acc.positive_infinities() > 0) {
    s.kind = exact_kind::positive_infinity;
  } else if (acc.negative_infinities() > 0) {
    s.kind = exact_kind::negative_infinity;
  }
  return s;
}

exact_sums asum_of(const exact_accumulator& acc) {
  exact_sums s;
  s.n = acc.count();
  detail::to_mpfr(acc.abs_sum(), s.sum);
  detail::to_mpfr(acc.abs_sum(), s.abs_sum);
  s.negative_zero = acc.count() == 0;
  if (acc.nan_count() > 0) {
    s.kind = exact_kind::nan;
  } else if (acc.positive_infinities() > 0 || acc.negative_infinities() > 0) {
    s.kind = exact_kind::positive_infinity;
  }
  return s;
}

template <class T>
T correctly_rounded_of(const exact_sums& s) {
  switch (s.kind) {
    case exact_kind::nan:
      return std::numeric_limits<T>::quiet_NaN();
    case exact_kind::positive_infinity:
      return std::numeric_limits<T>::infinity();
    case exact_kind::negative_infinity:
      return -std::numeric_limits<T>::infinity();
    case exact_kind::finite:
      break;
  }
  if (mpfr_zero_p(s.sum.get())) return s.negative_zero ? T(-0.0) : T(0.0);
  return detail::to_type<T>(s.sum);
}

}  // namespace

exact_sums sum_totals(const exact_accumulator& acc) { return sums_of(acc); }
exact_sums asum_totals(const exact_accumulator& acc) { return asum_of(acc); }

namespace detail {

template <class T>
bool judged_non_finite(const exact_sums& s, T result, assessment& a) {
  const bool result_nan = std::isnan(result);
  const bool result_inf = std::isinf(result);
  switch (s.kind) {
    case exact_kind::nan:
      a.status = result_nan ? verdict::special_match : verdict::special_mismatch;
      return true;
    case exact_kind::positive_infinity:
    case exact_kind::negative_infinity: {
      const T expected = s.kind == exact_kind::positive_infinity ? std::numeric_limits<T>::infinity()
                                                                 : -std::numeric_limits<T>::infinity();
      if (result == expected) {
        a.status = verdict::special_match;
      } else {
        // NaN is possible when finite terms overflowed to the opposite infinity before meeting the input's Inf.
        a.status = result_nan ? verdict::overflow : verdict::special_mismatch;
      }
      return true;
    }
    case exact_kind::finite:
      break;
  }
  if (result_nan || result_inf) {
    a.status = verdict::overflow;
    return true;
  }
  return false;
}
template bool judged_non_finite<double>(const exact_sums& s, double result, assessment& a);
template bool judged_non_finite<float>(const exact_sums& s, float result, assessment& a);

}  // namespace detail

namespace {

// |R - result| exactly, then the figures and the verdict against a.bound.
template <class T>
void judge_error(const mpfr_number& exact, T result, assessment& a) {
  mpfr_set_prec(a.error.get(), detail::exact_precision);
  detail::require_exact(mpfr_sub_d(a.error.get(), exact.get(), static_cast<double>(result), MPFR_RNDN), "R - result");
  mpfr_abs(a.error.get(), a.error.get(), MPFR_RNDN);
  detail::set_figures(a, exact, result);
  a.status = mpfr_lessequal_p(a.error.get(), a.bound.get()) ? verdict::within_bound : verdict::bound_violated;
}

template <class T>
assessment assess_linear(bounded_op op, const exact_sums& s, T result, mode m) {
  assessment a;
  a.factors = detred::bound<T>(op, s.n, m);
  mpfr_set_prec(a.error.get(), detail::exact_precision);
  mpfr_set_prec(a.bound.get(), detail::bound_precision);
  mpfr_set_zero(a.error.get(), 1);

  // The bound: result_factor * |R| + abs_sum_factor * A + absolute, every step rounded upward.
  mpfr_number term(detail::bound_precision);
  int inexact = mpfr_mul_d(a.bound.get(), s.abs_sum.get(), a.factors.abs_sum_factor, MPFR_RNDU);
  inexact |= mpfr_abs(term.get(), s.sum.get(), MPFR_RNDU);
  inexact |= mpfr_mul_d(term.get(), term.get(), a.factors.result_factor, MPFR_RNDU);
  inexact |= mpfr_add(a.bound.get(), a.bound.get(), term.get(), MPFR_RNDU);
  inexact |= mpfr_add_d(a.bound.get(), a.bound.get(), a.factors.absolute, MPFR_RNDU);
  a.bound_exact = inexact == 0;
  a.bound_upper = mpfr_get_d(a.bound.get(), MPFR_RNDU);

  if (detail::judged_non_finite(s, result, a)) return a;
  judge_error(s.sum, result, a);
  return a;
}

}  // namespace

namespace detail {

template <class T>
void set_figures(assessment& a, const mpfr_number& exact, T result) {
  mpfr_number scaled(exact_precision);
  mpfr_mul_2si(scaled.get(), a.error.get(), -ulp_exponent(result), MPFR_RNDN);
  a.error_ulps = mpfr_get_d(scaled.get(), MPFR_RNDN);
  a.error_over_bound = 0;
  if (!mpfr_zero_p(a.bound.get())) {
    mpfr_div(scaled.get(), a.error.get(), a.bound.get(), MPFR_RNDN);
    a.error_over_bound = mpfr_get_d(scaled.get(), MPFR_RNDN);
  } else if (!mpfr_zero_p(a.error.get())) {
    a.error_over_bound = std::numeric_limits<double>::infinity();
  }
  a.relative_error = 0;
  if (!mpfr_zero_p(exact.get())) {
    mpfr_div(scaled.get(), a.error.get(), exact.get(), MPFR_RNDN);
    a.relative_error = std::fabs(mpfr_get_d(scaled.get(), MPFR_RNDN));
  } else if (!mpfr_zero_p(a.error.get())) {
    a.relative_error = std::numeric_limits<double>::infinity();
  }
}
template void set_figures<double>(assessment& a, const mpfr_number& exact, double result);
template void set_figures<float>(assessment& a, const mpfr_number& exact, float result);

}  // namespace detail

exact_sums exact_sum(std::span<const double> x, const progress_callback& progress) {
  return sums_of(accumulate(x, progress));
}
exact_sums exact_sum(std::span<const float> x, const progress_callback& progress) {
  return sums_of(accumulate(x, progress));
}
exact_sums exact_sum(std::span<const float16> x, const progress_callback& progress) {
  return sums_of(accumulate_widened(x, progress));
}
exact_sums exact_sum(std::span<const bfloat16> x, const progress_callback& progress) {
  return sums_of(accumulate_widened(x, progress));
}
exact_sums exact_asum(std::span<const double> x, const progress_callback& progress) {
  return asum_of(accumulate(x, progress));
}
exact_sums exact_asum(std::span<const float> x, const progress_callback& progress) {
  return asum_of(accumulate(x, progress));
}

double correctly_rounded_f64(const exact_sums& s) { return correctly_rounded_of<double>(s); }
float correctly_rounded_f32(const exact_sums& s) { return correctly_rounded_of<float>(s); }

assessment assess(const exact_sums& s, double result, mode m) { return assess_linear(bounded_op::sum, s, result, m); }
assessment assess(const exact_sums& s, float result, mode m) { return assess_linear(bounded_op::sum, s, result, m); }
assessment assess(bounded_op op, const exact_sums& s, double result, mode m) { return assess_linear(op, s, result, m); }
assessment assess(bounded_op op, const exact_sums& s, float result, mode m) { return assess_linear(op, s, result, m); }

bool is_failure(verdict v) { return v == verdict::bound_violated || v == verdict::special_mismatch; }

const char* to_string(verdict v) {
  switch (v) {
    case verdict::within_bound:
      return "within bound";
    case verdict::bound_violated:
      return "BOUND VIOLATED";
    case verdict::overflow:
      return "overflow (no bound applies)";
    case verdict::special_match:
      return "non-finite, as IEEE requires";
    case verdict::special_mismatch:
      return "NON-FINITE MISMATCH";
    case verdict::measured:
      return "measured (no bound)";
  }
  return "unknown";
}

std::string to_decimal(const mpfr_number& x, int digits) {
  char* text = nullptr;
  if (mpfr_asprintf(&text, "%.*Rg", digits, x.get()) < 0 || text == nullptr) return "?";
  std::string out(text);
  mpfr_free_str(text);
  return out;
}

}  // namespace detred::verify
