// See oracle.hpp. Every MPFR operation here is either exact (the precision is chosen so that it cannot round, and
// the ternary value is checked) or rounded upward on purpose (the bound).
#include "oracle.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>

#include <gmp.h>
#include <mpfr.h>

#include "exact_accumulator.hpp"

namespace detred::verify {
namespace {

// Elements between progress reports.
constexpr std::size_t progress_chunk = std::size_t{1} << 22;

// |S - result|: both are integer multiples of 2^-1074 below 2^(1024 + 64) in magnitude, so the difference needs at
// most 2098 + 65 bits; with this precision the subtraction cannot round.
constexpr mpfr_prec_t error_precision = 2400;
// The bound's products (a 53-bit factor times an exact sum of at most 2163 bits) and their sum fit in far fewer
// bits; rounding upward covers any case this reasoning missed.
constexpr mpfr_prec_t bound_precision = 4800;

void require_exact(int ternary, const char* what) {
  if (ternary != 0) throw std::logic_error(std::string("oracle: an exact operation rounded: ") + what);
}

// Sets out to the exact value of a fixed-point sum, with exactly as many bits as the value has.
void to_mpfr(fixed_point_sum fixed, mpfr_number& out) {
  mpz_t z;
  mpz_init(z);
  fixed.to_mpz(z);
  const auto bits = static_cast<mpfr_prec_t>(mpz_sizeinbase(z, 2));
  mpfr_set_prec(out.get(), bits < MPFR_PREC_MIN ? MPFR_PREC_MIN : bits);
  const int ternary = mpfr_set_z_2exp(out.get(), z, fixed_point_sum::unit_exponent, MPFR_RNDN);
  mpz_clear(z);
  require_exact(ternary, "integer to MPFR");
}

template <class T>
exact_sums exact_sum_of(std::span<const T> x, const progress_callback& progress) {
  exact_accumulator acc;
  for (std::size_t start = 0; start < x.size(); start += progress_chunk) {
    const std::size_t count = x.size() - start < progress_chunk ? x.size() - start : progress_chunk;
    acc.add(x.subspan(start, count));
    if (progress) progress(start + count);
  }
  exact_sums s;
  s.n = acc.count();
  to_mpfr(acc.sum(), s.sum);
  to_mpfr(acc.abs_sum(), s.abs_sum);
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

template <class T>
T rounded(const exact_sums& s);
template <>
double rounded<double>(const exact_sums& s) {
  return mpfr_get_d(s.sum.get(), MPFR_RNDN);
}
template <>
float rounded<float>(const exact_sums& s) {
  return mpfr_get_flt(s.sum.get(), MPFR_RNDN);
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
  return rounded<T>(s);
}

// The exponent of one unit in the last place of the finite value r.
template <class T>
long ulp_exponent(T r) {
  constexpr int digits = std::numeric_limits<T>::digits;
  constexpr int bias = std::numeric_limits<T>::max_exponent - 1;
  using bits_t = std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>;
  const auto bits = std::bit_cast<bits_t>(r);
  const long biased = static_cast<long>((bits >> (digits - 1)) & static_cast<bits_t>(2 * bias + 1));
  // Subnormals and zero share the spacing of the smallest normal binade.
  return (biased == 0 ? 1 : biased) - bias - (digits - 1);
}

template <class T>
assessment assess_of(const exact_sums& s, T result, mode m) {
  assessment a;
  a.factors = detred::bound<T>(s.n, m);
  mpfr_set_prec(a.error.get(), error_precision);
  mpfr_set_prec(a.bound.get(), bound_precision);
  mpfr_set_zero(a.error.get(), 1);

  // The bound: result_factor * |S| + abs_sum_factor * sum|x_i|, every step rounded upward.
  mpfr_number term(bound_precision);
  int inexact = mpfr_mul_d(a.bound.get(), s.abs_sum.get(), a.factors.abs_sum_factor, MPFR_RNDU);
  inexact |= mpfr_abs(term.get(), s.sum.get(), MPFR_RNDU);
  inexact |= mpfr_mul_d(term.get(), term.get(), a.factors.result_factor, MPFR_RNDU);
  inexact |= mpfr_add(a.bound.get(), a.bound.get(), term.get(), MPFR_RNDU);
  a.bound_exact = inexact == 0;
  a.bound_upper = mpfr_get_d(a.bound.get(), MPFR_RNDU);

  const bool result_nan = std::isnan(result);
  const bool result_inf = std::isinf(result);
  switch (s.kind) {
    case exact_kind::nan:
      a.status = result_nan ? verdict::special_match : verdict::special_mismatch;
      return a;
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
      return a;
    }
    case exact_kind::finite:
      break;
  }
  if (result_nan || result_inf) {
    a.status = verdict::overflow;
    return a;
  }

  require_exact(mpfr_sub_d(a.error.get(), s.sum.get(), static_cast<double>(result), MPFR_RNDN), "S - result");
  mpfr_abs(a.error.get(), a.error.get(), MPFR_RNDN);
  mpfr_number scaled(error_precision);
  mpfr_mul_2si(scaled.get(), a.error.get(), -ulp_exponent(result), MPFR_RNDN);
  a.error_ulps = mpfr_get_d(scaled.get(), MPFR_RNDN);
  if (!mpfr_zero_p(a.bound.get())) {
    mpfr_div(scaled.get(), a.error.get(), a.bound.get(), MPFR_RNDN);
    a.error_over_bound = mpfr_get_d(scaled.get(), MPFR_RNDN);
  } else if (!mpfr_zero_p(a.error.get())) {
    a.error_over_bound = std::numeric_limits<double>::infinity();
  }
  a.status = mpfr_lessequal_p(a.error.get(), a.bound.get()) ? verdict::within_bound : verdict::bound_violated;
  return a;
}

}  // namespace

exact_sums exact_sum(std::span<const double> x, const progress_callback& progress) { return exact_sum_of(x, progress); }
exact_sums exact_sum(std::span<const float> x, const progress_callback& progress) { return exact_sum_of(x, progress); }

double correctly_rounded_f64(const exact_sums& s) { return correctly_rounded_of<double>(s); }
float correctly_rounded_f32(const exact_sums& s) { return correctly_rounded_of<float>(s); }

assessment assess(const exact_sums& s, double result, mode m) { return assess_of(s, result, m); }
assessment assess(const exact_sums& s, float result, mode m) { return assess_of(s, result, m); }

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
