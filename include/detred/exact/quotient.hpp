// SPDX-License-Identifier: BSD-3-Clause
// Exact mode's mean: the exact sum held in a superaccumulator divided by the count n, rounded once.
//
// The accumulator's value is the integer M times 2^min_exponent (2^-2176). Long division of M by n, 32-bit digit by
// digit from the top, gives the integer quotient Q and a remainder; the mean M / n lies in [Q, Q + 1) units of
// 2^-2176. Every rounding position of a double or a float (its last place, no finer than the smallest subnormal,
// 2^-1074) lies more than a thousand bits above that unit, so M / n rounds as Q with a sticky bit for the remainder:
// Q with its lowest bit set when the remainder is not zero lies strictly between the same two neighbours, halfway
// points included. The division stops a few digits below the quotient's leading one (the rounding needs at most
// 54 bits below it), folding whatever is left into that sticky bit, so a line's division costs a handful of steps.
#pragma once

#include <cstdint>
#include <limits>

#include "detred/config.hpp"
#include "detred/exact/superaccumulator.hpp"

namespace detred::exact {
inline namespace DETRED_ORDER_ABI {

namespace detail {

/// (r * 2^32 + digit) / n and its remainder, for r < n: the quotient is below 2^32. Two 64-bit steps when n < 2^32,
/// otherwise restoring division one bit at a time (its running value stays below 2n, the carry out of bit 63 included).
DETRED_HOST_DEVICE inline std::uint64_t divide_digit(std::uint64_t& r, std::uint64_t digit, std::uint64_t n) {
  if (n <= 0xffffffffu) {
    const std::uint64_t current = (r << 32) | digit;
    r = current % n;
    return current / n;
  }
  std::uint64_t q = 0;
  for (int b = 31; b >= 0; --b) {
    const bool carry = (r >> 63) != 0;
    r = (r << 1) | ((digit >> b) & 1);
    if (carry || r >= n) {
      r -= n;
      q |= std::uint64_t{1} << b;
    }
  }
  return q;
}

}  // namespace detail

/// The exact sum in `a` divided by n, rounded once to T (double or float), to nearest with ties to even: NaN for
/// n = 0 (the mean of nothing) and for a NaN term or both infinities, +-Inf for an infinite sum, otherwise the zero
/// and the sign rules of round_to (a zero sum keeps its sign: the mean of -0.0 terms is -0.0).
template <class T>
DETRED_HOST_DEVICE inline T quotient_to(superaccumulator a, std::uint64_t n) {
  constexpr int words = superaccumulator::words;
  if (n == 0) return std::numeric_limits<T>::quiet_NaN();
  constexpr std::uint32_t non_finite =
      superaccumulator::has_nan | superaccumulator::has_positive_infinity | superaccumulator::has_negative_infinity;
  if (n == 1 || (a.flags & non_finite) != 0) return round_to<T>(a);  // the sum itself, or NaN or +-Inf
  normalize(a);  // every word a digit in [0, 2^32) but the last, which holds the sign (0 or -1)
  const bool negative = a.word[words - 1] < 0;
  int lowest = 0;
  while (lowest < words - 1 && a.word[lowest] == 0) ++lowest;
  detail::magnitude m{a.word, 0, words - 2, lowest, negative};
  int top = words - 2;
  while (top >= 0 && m.digit(top) == 0) --top;
  if (top < 0) return round_to<T>(a);  // zero: the flags give its sign
  std::int64_t q[words] = {};
  std::uint64_t r = 0;
  int k = top;
  int lead = -1;  // the quotient's leading word, once found
  for (; k >= 0 && (lead < 0 || k >= lead - 3); --k) {
    const std::uint64_t digit = detail::divide_digit(r, m.digit(k), n);
    q[k] = static_cast<std::int64_t>(digit);
    if (lead < 0 && digit != 0) lead = k;
  }
  // Below the digits computed: the remainder and the dividend's digits not divided yet decide only the sticky bit.
  bool rest = r != 0;
  for (int j = k; j >= 0 && !rest; --j) rest = m.digit(j) != 0;
  if (rest) q[0] |= 1;
  if (negative) {
    for (int j = 0; j < words; ++j) q[j] = -q[j];
  }
  int lo = 0;
  while (lo < words && q[lo] == 0) ++lo;
  int hi = words - 1;
  while (hi >= lo && q[hi] == 0) --hi;
  return round_words<T>(q, lo, hi, a.flags);
}

}  // namespace DETRED_ORDER_ABI
}  // namespace detred::exact
