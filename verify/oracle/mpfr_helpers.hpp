// SPDX-License-Identifier: BSD-3-Clause
// Helpers the oracle's translation units share (not part of its interface): exact conversions into MPFR and the
// checks that make a silent rounding impossible.
#pragma once

#include <bit>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <gmp.h>
#include <mpfr.h>

#include "exact_accumulator.hpp"
#include "mpfr_number.hpp"
#include "oracle.hpp"

namespace detred::verify::detail {

/// Precision of every exact difference and sum the oracle forms. Products of doubles are multiples of 2^-2148 and
/// sums of up to 2^64 of them stay below 2^2113, so 4300 bits hold any of them; the margin is free.
inline constexpr mpfr_prec_t exact_precision = 4600;
/// Precision of a bound: a 53-bit factor times an exact value of at most exact_precision bits, and their sum.
inline constexpr mpfr_prec_t bound_precision = 9400;

/// Throws std::logic_error if an operation that must be exact rounded (its ternary value is nonzero).
inline void require_exact(int ternary, const char* what) {
  if (ternary != 0) throw std::logic_error(std::string("oracle: an exact operation rounded: ") + what);
}

/// Sets out to the exact value of a fixed-point sum, with exactly as many bits as the value has.
inline void to_mpfr(fixed_point_sum fixed, mpfr_number& out) {
  mpz_t z;
  mpz_init(z);
  fixed.to_mpz(z);
  const auto bits = static_cast<mpfr_prec_t>(mpz_sizeinbase(z, 2));
  mpfr_set_prec(out.get(), bits < MPFR_PREC_MIN ? MPFR_PREC_MIN : bits);
  const int ternary = mpfr_set_z_2exp(out.get(), z, fixed_point_sum::unit_exponent, MPFR_RNDN);
  mpz_clear(z);
  require_exact(ternary, "integer to MPFR");
}

/// out = n exactly (out gets 64 bits of precision).
inline void set_count(mpfr_number& out, std::uint64_t n) {
  mpfr_set_prec(out.get(), 64);
  require_exact(mpfr_set_ui_2exp(out.get(), static_cast<unsigned long>(n >> 32), 32, MPFR_RNDN), "count, high");
  require_exact(mpfr_add_ui(out.get(), out.get(), static_cast<unsigned long>(n & 0xffffffffU), MPFR_RNDN),
                "count, low");
}

/// The exponent of one unit in the last place of the finite value r (subnormals and zero share the spacing of the
/// smallest normal binade).
template <class T>
long ulp_exponent(T r) {
  constexpr int digits = std::numeric_limits<T>::digits;
  constexpr int bias = std::numeric_limits<T>::max_exponent - 1;
  using bits_t = std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>;
  const auto bits = std::bit_cast<bits_t>(r);
  const long biased = static_cast<long>((bits >> (digits - 1)) & static_cast<bits_t>(2 * bias + 1));
  return (biased == 0 ? 1 : biased) - bias - (digits - 1);
}

/// x rounded to nearest in T (mpfr_get_d or mpfr_get_flt; both round subnormals and overflow as IEEE does).
template <class T>
T to_type(const mpfr_number& x) {
  if constexpr (std::is_same_v<T, double>) {
    return mpfr_get_d(x.get(), MPFR_RNDN);
  } else {
    return mpfr_get_flt(x.get(), MPFR_RNDN);
  }
}

/// The non-finite cases of a check: true (and a.status set) when the exact result (s.kind) or the result is not
/// finite: the IEEE special value it requires, a mismatch, or an overflow of a finite exact result.
template <class T>
bool judged_non_finite(const exact_sums& s, T result, assessment& a);

/// Sets error_ulps, error_over_bound and relative_error from a.error, a.bound and the exact result.
template <class T>
void set_figures(assessment& a, const mpfr_number& exact, T result);

}  // namespace detred::verify::detail
