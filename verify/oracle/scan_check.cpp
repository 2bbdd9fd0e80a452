// SPDX-License-Identifier: BSD-3-Clause
// See scan_check.hpp. The running prefix sums are MPFR numbers wide enough that adding any double is exact (the
// ternary value is checked); the bounds are rounded upward, so `within bound` is a proof for each output.
#include "scan_check.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <type_traits>

#include <mpfr.h>

#include "detred/scan.hpp"
#include "mpfr_helpers.hpp"

namespace detred::verify {
namespace {

/// Sums of up to 2^64 doubles are multiples of 2^-1074 below 2^1088: 2162 bits hold any of them exactly.
constexpr mpfr_prec_t prefix_precision = 2400;
/// A 128-bit factor times a prefix sum, and the sum of two such products (rounded upward where they do not fit).
constexpr mpfr_prec_t scan_bound_precision = prefix_precision + 300;
/// Elements between progress reports.
constexpr std::uint64_t progress_chunk = std::uint64_t{1} << 16;

/// γ_k = k u / (1 - k u), rounded upward (the denominator rounded downward).
void gamma_upward(mpfr_number& out, int k, double u) {
  mpfr_number ku(128);
  mpfr_number denominator(128);
  detail::require_exact(mpfr_set_d(ku.get(), u, MPFR_RNDN), "u");
  detail::require_exact(mpfr_mul_ui(ku.get(), ku.get(), static_cast<unsigned long>(k), MPFR_RNDN), "k u");
  mpfr_ui_sub(denominator.get(), 1, ku.get(), MPFR_RNDD);
  mpfr_div(out.get(), ku.get(), denominator.get(), MPFR_RNDU);
}

/// The documented bound's factors for one pair of depths, evaluated in MPFR and rounded upward.
struct bound_factors {
  int depth = -1;
  int correction_depth = -1;
  mpfr_number result{128};
  mpfr_number abs_sum{128};

  void set(int d, int dc, mode m, double u) {
    depth = d;
    correction_depth = dc;
    if (d == 0) {  // the empty sum of an exclusive output 0: exact
      mpfr_set_zero(result.get(), 1);
      mpfr_set_zero(abs_sum.get(), 1);
      return;
    }
    gamma_upward(abs_sum, d, u);
    if (m == mode::tree) {
      mpfr_set_zero(result.get(), 1);
      return;
    }
    detail::require_exact(mpfr_set_d(result.get(), u, MPFR_RNDN), "u");
    mpfr_number g(128);
    gamma_upward(g, dc, u);
    mpfr_mul(abs_sum.get(), abs_sum.get(), g.get(), MPFR_RNDU);
    mpfr_number one_plus_u(128);
    mpfr_add_ui(one_plus_u.get(), result.get(), 1, MPFR_RNDU);
    mpfr_mul(abs_sum.get(), abs_sum.get(), one_plus_u.get(), MPFR_RNDU);
  }
};

/// The order of badness of one output's verdict: failures first, then the bound-checked outputs by error/bound,
/// then the outputs no bound applies to.
int rank_of(verdict v) {
  if (is_failure(v)) return 2;
  return v == verdict::within_bound ? 1 : 0;
}

template <class In>
double widened(In v) {
  if constexpr (std::is_same_v<In, float16> || std::is_same_v<In, bfloat16>) {
    return static_cast<double>(detred::to_float(v));
  } else {
    return static_cast<double>(v);
  }
}

template <class In, class Out>
scan_assessment check(std::span<const In> x, std::span<const Out> y, mode m, bool exclusive,
                      const progress_callback& progress) {
  if (x.size() != y.size()) throw std::invalid_argument("check_scan: y must have x's length");
  if (m != mode::tree && m != mode::compensated) throw std::invalid_argument("check_scan: tree or compensated mode");
  const double u = std::numeric_limits<Out>::epsilon() / 2;
  scan_assessment out;
  out.outputs = x.size();

  exact_sums prefix;  // kind and running sums of the elements an output covers
  mpfr_set_prec(prefix.sum.get(), prefix_precision);
  mpfr_set_prec(prefix.abs_sum.get(), prefix_precision);
  mpfr_set_zero(prefix.sum.get(), 1);
  mpfr_set_zero(prefix.abs_sum.get(), 1);
  std::uint64_t nans = 0, positive_infinities = 0, negative_infinities = 0;
  bool all_negative_zero = true;  // the empty sum is -0.0
  const auto add = [&](In element) {
    const double v = widened(element);
    if (std::isnan(v)) {
      ++nans;
    } else if (std::isinf(v)) {
      ++(v > 0 ? positive_infinities : negative_infinities);
    } else {
      detail::require_exact(mpfr_add_d(prefix.sum.get(), prefix.sum.get(), v, MPFR_RNDN), "prefix sum");
      detail::require_exact(mpfr_add_d(prefix.abs_sum.get(), prefix.abs_sum.get(), std::fabs(v), MPFR_RNDN),
                            "prefix sum of magnitudes");
    }
    all_negative_zero = all_negative_zero && v == 0 && std::signbit(v);
    prefix.kind = nans > 0 || (positive_infinities > 0 && negative_infinities > 0) ? exact_kind::nan
                  : positive_infinities > 0                                        ? exact_kind::positive_infinity
                  : negative_infinities > 0                                        ? exact_kind::negative_infinity
                                                                                   : exact_kind::finite;
  };

  bound_factors factors;
  assessment current;
  mpfr_set_prec(current.error.get(), prefix_precision);
  mpfr_set_prec(current.bound.get(), scan_bound_precision);
  mpfr_number term(scan_bound_precision);
  int worst_rank = -1;
  double worst_ratio = -1;

  for (std::uint64_t i = 0; i < x.size(); ++i) {
    if (!exclusive) add(x[i]);
    const std::uint64_t covered = exclusive ? i : i + 1;  // elements x_0 .. x_{covered - 1}
    const Out result = y[i];
    int d = 0, dc = 0;
    if (covered > 0) {
      const scan_bound b = detred::cumsum_bound<Out>(covered - 1, m);
      d = b.depth;
      dc = b.correction_depth;
    }
    if (d != factors.depth || dc != factors.correction_depth) factors.set(d, dc, m, u);

    double ratio = 0;
    if (detail::judged_non_finite(prefix, result, current)) {
      mpfr_set_zero(current.error.get(), 1);  // no error or bound applies
      mpfr_set_zero(current.bound.get(), 1);
      current.error_ulps = current.bound_upper = current.error_over_bound = current.relative_error = 0;
      if (current.status == verdict::special_match) ++out.specials;
      if (current.status == verdict::overflow) ++out.overflows;
      ratio = is_failure(current.status) ? std::numeric_limits<double>::infinity() : 0;
    } else {
      detail::require_exact(mpfr_sub_d(current.error.get(), prefix.sum.get(), static_cast<double>(result), MPFR_RNDN),
                            "S - y");
      mpfr_abs(current.error.get(), current.error.get(), MPFR_RNDN);
      mpfr_mul(current.bound.get(), prefix.abs_sum.get(), factors.abs_sum.get(), MPFR_RNDU);
      mpfr_abs(term.get(), prefix.sum.get(), MPFR_RNDU);
      mpfr_mul(term.get(), term.get(), factors.result.get(), MPFR_RNDU);
      mpfr_add(current.bound.get(), current.bound.get(), term.get(), MPFR_RNDU);
      current.status =
          mpfr_lessequal_p(current.error.get(), current.bound.get()) ? verdict::within_bound : verdict::bound_violated;
      // To rank the outputs; the worst one's figures are computed exactly below.
      const double e = mpfr_get_d(current.error.get(), MPFR_RNDN);
      const double bound = mpfr_get_d(current.bound.get(), MPFR_RNDN);
      ratio = bound > 0 ? e / bound : (e > 0 ? std::numeric_limits<double>::infinity() : 0);
    }
    if (is_failure(current.status)) ++out.failures;

    const int rank = rank_of(current.status);
    if (rank > worst_rank || (rank == worst_rank && ratio > worst_ratio)) {
      worst_rank = rank;
      worst_ratio = ratio;
      out.worst = i;
      out.depth = d;
      out.correction_depth = dc;
      if (prefix.kind != exact_kind::finite || std::isnan(result) || std::isinf(result)) {
        out.correctly_rounded = prefix.kind == exact_kind::nan ? std::numeric_limits<double>::quiet_NaN()
                                : prefix.kind == exact_kind::negative_infinity
                                    ? -std::numeric_limits<double>::infinity()
                                : prefix.kind == exact_kind::positive_infinity ? std::numeric_limits<double>::infinity()
                                                                               : detail::to_type<Out>(prefix.sum);
      } else {
        detail::set_figures(current, prefix.sum, result);
        current.bound_upper = mpfr_get_d(current.bound.get(), MPFR_RNDU);
        const bool zero = mpfr_zero_p(prefix.sum.get()) != 0;
        out.correctly_rounded = zero ? (all_negative_zero ? -0.0 : 0.0) : detail::to_type<Out>(prefix.sum);
      }
      out.at_worst = current;
    }
    if (exclusive) add(x[i]);
    if (progress && ((i + 1) % progress_chunk == 0 || i + 1 == x.size())) progress(i + 1);
  }
  return out;
}

// GCC's 128-bit integers (__extension__: not ISO C++); exact for every prefix of up to 2^63 64-bit elements.
__extension__ typedef __int128 signed_128;
__extension__ typedef unsigned __int128 unsigned_128;

template <class In, class Out>
integer_scan_assessment check_integers(std::span<const In> x, std::optional<std::span<const Out>> y, bool exclusive) {
  using wide = std::conditional_t<std::is_signed_v<In>, signed_128, unsigned_128>;
  if (y && y->size() != x.size()) throw std::invalid_argument("check_integer_scan: y must have x's length");
  integer_scan_assessment out;
  out.outputs = x.size();
  wide sum = 0;
  for (std::uint64_t i = 0; i < x.size(); ++i) {
    if (!exclusive) sum += static_cast<wide>(x[i]);
    const bool fits = sum >= static_cast<wide>(std::numeric_limits<Out>::min()) &&
                      sum <= static_cast<wide>(std::numeric_limits<Out>::max());
    if (!fits && !out.first_unfit) out.first_unfit = i;
    if (y && !out.first_difference && (!fits || static_cast<wide>((*y)[i]) != sum)) out.first_difference = i;
    if (exclusive) sum += static_cast<wide>(x[i]);
  }
  return out;
}

}  // namespace

scan_assessment check_scan(std::span<const double> x, std::span<const double> y, mode m, bool exclusive,
                           const progress_callback& progress) {
  return check(x, y, m, exclusive, progress);
}
scan_assessment check_scan(std::span<const float> x, std::span<const float> y, mode m, bool exclusive,
                           const progress_callback& progress) {
  return check(x, y, m, exclusive, progress);
}
scan_assessment check_scan(std::span<const float16> x, std::span<const float> y, mode m, bool exclusive,
                           const progress_callback& progress) {
  return check(x, y, m, exclusive, progress);
}
scan_assessment check_scan(std::span<const bfloat16> x, std::span<const float> y, mode m, bool exclusive,
                           const progress_callback& progress) {
  return check(x, y, m, exclusive, progress);
}

integer_scan_assessment check_integer_scan(std::span<const std::int32_t> x,
                                           std::optional<std::span<const std::int64_t>> y, bool exclusive) {
  return check_integers(x, y, exclusive);
}
integer_scan_assessment check_integer_scan(std::span<const std::int64_t> x,
                                           std::optional<std::span<const std::int64_t>> y, bool exclusive) {
  return check_integers(x, y, exclusive);
}
integer_scan_assessment check_integer_scan(std::span<const std::uint32_t> x,
                                           std::optional<std::span<const std::uint64_t>> y, bool exclusive) {
  return check_integers(x, y, exclusive);
}
integer_scan_assessment check_integer_scan(std::span<const std::uint64_t> x,
                                           std::optional<std::span<const std::uint64_t>> y, bool exclusive) {
  return check_integers(x, y, exclusive);
}

}  // namespace detred::verify
