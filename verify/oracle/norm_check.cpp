// SPDX-License-Identifier: BSD-3-Clause
// See norm_check.hpp.
#include "norm_check.hpp"

#include <cmath>
#include <limits>

#include <mpfr.h>

#include "mpfr_helpers.hpp"

namespace detred::verify {
namespace {

template <class T>
assessment assess_of(const exact_sums& squares, T result, mode m) {
  assessment a;
  a.factors = detred::bound<T>(bounded_op::nrm2, squares.n, m);
  mpfr_set_prec(a.error.get(), detail::exact_precision);
  mpfr_set_prec(a.bound.get(), detail::bound_precision);
  mpfr_set_zero(a.error.get(), 1);

  // N enclosed: low <= N <= high.
  mpfr_number low(detail::exact_precision), high(detail::exact_precision);
  int inexact = mpfr_sqrt(low.get(), squares.sum.get(), MPFR_RNDD);
  mpfr_sqrt(high.get(), squares.sum.get(), MPFR_RNDU);
  // The reported bound: result_factor * high + absolute, upward; the bound the check uses: at low, downward.
  inexact |= mpfr_mul_d(a.bound.get(), high.get(), a.factors.result_factor, MPFR_RNDU);
  inexact |= mpfr_add_d(a.bound.get(), a.bound.get(), a.factors.absolute, MPFR_RNDU);
  a.bound_exact = inexact == 0;
  a.bound_upper = mpfr_get_d(a.bound.get(), MPFR_RNDU);
  mpfr_number proven(detail::bound_precision);
  mpfr_mul_d(proven.get(), low.get(), a.factors.result_factor, MPFR_RNDD);
  mpfr_add_d(proven.get(), proven.get(), a.factors.absolute, MPFR_RNDD);

  // Inf * 0 cannot occur in a sum of squares: its kinds are finite, NaN and +Inf.
  if (detail::judged_non_finite(squares, result, a)) return a;

  // error <= max(|low - r|, |high - r|), each rounded upward.
  mpfr_number other(detail::exact_precision);
  mpfr_sub_d(a.error.get(), low.get(), static_cast<double>(result), MPFR_RNDU);
  mpfr_abs(a.error.get(), a.error.get(), MPFR_RNDU);
  mpfr_sub_d(other.get(), high.get(), static_cast<double>(result), MPFR_RNDU);
  mpfr_abs(other.get(), other.get(), MPFR_RNDU);
  mpfr_max(a.error.get(), a.error.get(), other.get(), MPFR_RNDU);
  detail::set_figures(a, high, result);
  a.status = mpfr_lessequal_p(a.error.get(), proven.get()) ? verdict::within_bound : verdict::bound_violated;
  return a;
}

template <class T>
T correctly_rounded_of(const exact_sums& squares) {
  switch (squares.kind) {
    case exact_kind::nan:
      return std::numeric_limits<T>::quiet_NaN();
    case exact_kind::positive_infinity:
    case exact_kind::negative_infinity:
      return std::numeric_limits<T>::infinity();
    case exact_kind::finite:
      break;
  }
  mpfr_number root(detail::exact_precision);
  mpfr_sqrt(root.get(), squares.sum.get(), MPFR_RNDN);
  return mpfr_zero_p(root.get()) ? T(0) : detail::to_type<T>(root);
}

}  // namespace

assessment assess_nrm2(const exact_sums& squares, double result, mode m) { return assess_of(squares, result, m); }
assessment assess_nrm2(const exact_sums& squares, float result, mode m) { return assess_of(squares, result, m); }
double correctly_rounded_nrm2_f64(const exact_sums& squares) { return correctly_rounded_of<double>(squares); }
float correctly_rounded_nrm2_f32(const exact_sums& squares) { return correctly_rounded_of<float>(squares); }

}  // namespace detred::verify
