// SPDX-License-Identifier: BSD-3-Clause
// The correctly rounded square root of a superaccumulator's exact value: exact mode's nrm2, sqrt(sum x_i^2) rounded
// once. Rounding the sum first and taking a rounded square root of that would round twice, and a sum of squares can
// lie as close to the square of a rounding midpoint as it likes; so a first estimate from the leading bits is
// corrected by exact comparisons of the sum with the squares of the midpoints around it (each an exact sum of a few
// products of doubles, added to a copy of the state). Host and device code, no library calls (docs/exact.md).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "detred/config.hpp"
#include "detred/exact/superaccumulator.hpp"

namespace detred::exact {
inline namespace DETRED_ORDER_ABI {
namespace detail {

/// 2^e as a double, for -1022 <= e <= 1023.
DETRED_HOST_DEVICE inline double power_of_two(int e) {
  return from_bits<double>(static_cast<std::uint64_t>(e + 1023) << 52);
}

/// x * 2^e for any e, in steps that neither overflow nor underflow before the last.
DETRED_HOST_DEVICE inline double scaled(double x, int e) {
  while (e > 1000) {
    x *= power_of_two(1000);
    e -= 1000;
  }
  while (e < -1000) {
    x *= power_of_two(-1000);
    e += 1000;
  }
  return x * power_of_two(e);
}

/// The sign (-1, 0, 1) of a normalized state's value.
DETRED_HOST_DEVICE inline int sign_of(const superaccumulator& a) {
  if (a.word[superaccumulator::words - 1] < 0) return -1;
  for (int k = 0; k < superaccumulator::words; ++k) {
    if (a.word[k] != 0) return 1;
  }
  return 0;
}

/// The sign of s - m^2, where m = a + 2^(g - 1) is the midpoint between a >= 0 and the next value 2^g above it:
/// m^2 = a^2 + a 2^g + 2^(2g - 2), every term exact in the state (2g - 2 >= 2 * -1074 - 2 lies inside its range).
DETRED_HOST_DEVICE inline int compare_with_midpoint(const superaccumulator& s, double a, int g) {
  superaccumulator d = s;
  add_product(d, -a, a);
  add(d, -a, g);
  add_integer(d, 1, 2 * g - 2, true);
  normalize(d);
  return sign_of(d);
}

/// The exponent g of the gap 2^g between a finite T value r >= 0 and the next one above it.
template <class T>
DETRED_HOST_DEVICE inline int gap_exponent(T r) {
  using F = float_format<T>;
  constexpr unsigned field_bits = sizeof(T) * 8 - 1 - F::mantissa_bits;
  const auto field = static_cast<int>((bits_of(r) >> F::mantissa_bits) & ((1u << field_bits) - 1));
  return (field == 0 ? 1 : field) - F::exponent_bias;
}

template <class T>
DETRED_HOST_DEVICE inline T next_up(T r) {
  return from_bits<T>(bits_of(r) + 1);  // r >= 0 finite: the next value up (max's successor is +Inf)
}

/// A first estimate of sqrt(value) for a normalized state with a positive value: the leading 96 bits as a double
/// times a power of two, the square root taken on an even exponent. Within a few units of the last place of T.
template <class T>
DETRED_HOST_DEVICE inline T square_root_estimate(const superaccumulator& s) {
  int k = superaccumulator::words - 1;
  while (s.word[k] == 0) --k;
  const double top = static_cast<double>(s.word[k]);
  const double next = k > 0 ? static_cast<double>(s.word[k - 1]) : 0.0;
  const double third = k > 1 ? static_cast<double>(s.word[k - 2]) : 0.0;
  double m = (top * 4294967296.0 + next) + third / 4294967296.0;  // value = m * 2^e
  int e = superaccumulator::min_exponent + 32 * (k - 1);
  if (e % 2 != 0) {
    m *= 2;
    e -= 1;
  }
  const double r = scaled(std::sqrt(m), e / 2);
  const T largest = std::numeric_limits<T>::max();
  if (!(r < static_cast<double>(largest))) return largest;
  const T t = static_cast<T>(r);
  return t > T(0) ? t : std::numeric_limits<T>::denorm_min();
}

}  // namespace detail

/// The square root of the exact value, rounded once to nearest with ties to even, to T (double or float). A NaN
/// term, both infinities or a negative value give the canonical NaN; +Inf gives +Inf; a zero value +0.0; a root
/// past T's range +Inf. (The states of nrm2 hold squares, so their value is never negative.)
template <class T>
DETRED_HOST_DEVICE inline T square_root_to(superaccumulator s) {
  const std::uint32_t f = s.flags;
  if ((f & (superaccumulator::has_nan | superaccumulator::has_negative_infinity)) != 0) {
    return std::numeric_limits<T>::quiet_NaN();
  }
  if ((f & superaccumulator::has_positive_infinity) != 0) return std::numeric_limits<T>::infinity();
  normalize(s);
  const int sign = detail::sign_of(s);
  if (sign < 0) return std::numeric_limits<T>::quiet_NaN();
  if (sign == 0) return T(0);
  T r = detail::square_root_estimate<T>(s);
  // r is within a few places of the root: step toward it until the root lies between r's two midpoints. Each step
  // is one exact comparison; the bound on the steps only guards against a wrong estimate.
  for (int step = 0; step < 64; ++step) {
    const int g = detail::gap_exponent(r);
    const int above = detail::compare_with_midpoint(s, static_cast<double>(r), g);
    const T up = detail::next_up(r);
    if (above > 0) {  // root above the upper midpoint
      if (!(up < std::numeric_limits<T>::infinity())) return up;
      r = up;
      continue;
    }
    if (above == 0) return (bits_of(r) & 1) == 0 ? r : up;  // a tie: the even neighbour (past max: +Inf)
    if (r == T(0)) return r;
    const T down = from_bits<T>(bits_of(r) - 1);
    const int below = detail::compare_with_midpoint(s, static_cast<double>(down), detail::gap_exponent(down));
    if (below < 0) {  // root below the lower midpoint
      r = down;
      continue;
    }
    if (below == 0) return (bits_of(down) & 1) == 0 ? down : r;
    return r;
  }
  return r;
}

}  // namespace DETRED_ORDER_ABI
}  // namespace detred::exact
