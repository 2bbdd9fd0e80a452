// SPDX-License-Identifier: BSD-3-Clause
// Exact mode's state: a fixed-point superaccumulator that holds any sum of doubles and of products of doubles
// without rounding, and the one rounding step that turns it into the correctly rounded double or float.
//
// The value is sum_k word[k] * 2^(min_exponent + 32 k): 136 signed 64-bit words of 32-bit digits, covering the
// bits from 2^-2176 (below the smallest product of two subnormal doubles, 2^-2148) to far above the largest exact
// sum of 2^64 products of doubles (< 2^2113). Every add touches a few words with changes below 2^35, so words may
// go un-normalized for 2^26 adds (2^26 * 2^35 + 2^32 < 2^63); `pending` counts them and normalize() propagates the
// carries. Nothing is ever lost: the capacity is any 64-bit count of terms (docs/exact.md).
//
// The state is a trivially copyable aggregate with no pointers, so a thread, a block, a GPU or a rank can hold one
// and send it anywhere; merge() is exact, and since it leaves the state normalized, the merged state's bits depend
// only on the exact value and the flags: merging is associative and commutative bit for bit. All functions are
// host and device code (DETRED_HOST_DEVICE) and use no library calls.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "detred/config.hpp"

namespace detred::exact {

// Compiled into kernels built with different target flags: a name of its own per instruction set, as the order
// headers do (detred/order/shape.hpp).
#ifndef DETRED_ORDER_ABI
#define DETRED_ORDER_ABI portable
#endif
inline namespace DETRED_ORDER_ABI {

/// Bits of IEEE binary64 / binary32, as needed by the exact conversion and the final rounding.
template <class T>
struct float_format;
template <>
struct float_format<double> {
  using bits = std::uint64_t;
  static constexpr int mantissa_bits = 52;    // stored fraction bits
  static constexpr int exponent_bias = 1075;  // value = significand * 2^(field - bias), significand an integer
  static constexpr int min_ulp_exponent = -1074;
  static constexpr int max_exponent = 1024;  // values >= 2^max_exponent overflow
};
template <>
struct float_format<float> {
  using bits = std::uint32_t;
  static constexpr int mantissa_bits = 23;
  static constexpr int exponent_bias = 150;
  static constexpr int min_ulp_exponent = -149;
  static constexpr int max_exponent = 128;
};

template <class T>
DETRED_HOST_DEVICE inline typename float_format<T>::bits bits_of(T x) {
  typename float_format<T>::bits b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

template <class T>
DETRED_HOST_DEVICE inline T from_bits(typename float_format<T>::bits b) {
  T x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}

struct superaccumulator {
  static constexpr int digit_bits = 32;
  static constexpr int words = 136;
  static constexpr int min_exponent = -2176;  // weight of word 0's lowest bit
  static constexpr std::uint32_t normalize_every = std::uint32_t{1} << 26;

  // Flags: what the non-finite terms force, and whether every term so far was -0.0 (the IEEE sum of only -0.0 terms,
  // and the empty sum, is -0.0; any other term makes an exactly zero sum +0.0).
  static constexpr std::uint32_t has_nan = 1;
  static constexpr std::uint32_t has_positive_infinity = 2;
  static constexpr std::uint32_t has_negative_infinity = 4;
  static constexpr std::uint32_t not_only_negative_zeros = 8;

  std::int64_t word[words];
  std::uint32_t pending;  // adds since the last normalize()
  std::uint32_t flags;
};
static_assert(std::is_trivially_copyable_v<superaccumulator> && std::is_standard_layout_v<superaccumulator>,
              "states travel as bytes: between threads, to other ranks, to and from a GPU");

/// The empty sum (value 0, every term -0.0).
DETRED_HOST_DEVICE inline superaccumulator empty_superaccumulator() {
  superaccumulator a;
  for (int k = 0; k < superaccumulator::words; ++k) a.word[k] = 0;
  a.pending = 0;
  a.flags = 0;
  return a;
}

/// Propagates the carries: afterwards every word but the last lies in [0, 2^32) and the last holds the sign.
DETRED_HOST_DEVICE inline void normalize(superaccumulator& a) {
  std::int64_t carry = 0;
  for (int k = 0; k + 1 < superaccumulator::words; ++k) {
    const std::int64_t v = a.word[k] + carry;
    carry = v >> superaccumulator::digit_bits;  // arithmetic shift: floor division by 2^32
    a.word[k] = v - carry * (std::int64_t{1} << superaccumulator::digit_bits);
  }
  a.word[superaccumulator::words - 1] += carry;
  a.pending = 0;
}

namespace detail {

/// Adds (or subtracts) u * 2^position, u < 2^32, position in bits above 2^min_exponent: two words change by < 2^32.
DETRED_HOST_DEVICE inline void add_digit(superaccumulator& a, std::uint64_t u, int position, bool negative) {
  const int w = position / superaccumulator::digit_bits;
  const int s = position % superaccumulator::digit_bits;
  const std::uint64_t t = u << s;  // < 2^63
  const auto low = static_cast<std::int64_t>(t & 0xffffffffu);
  const auto high = static_cast<std::int64_t>(t >> 32);
  a.word[w] += negative ? -low : low;
  a.word[w + 1] += negative ? -high : high;
}

/// Adds (or subtracts) the 64-bit integer m times 2^exponent.
DETRED_HOST_DEVICE inline void add_integer(superaccumulator& a, std::uint64_t m, int exponent, bool negative) {
  const int position = exponent - superaccumulator::min_exponent;
  add_digit(a, m & 0xffffffffu, position, negative);
  add_digit(a, m >> 32, position + 32, negative);
}

DETRED_HOST_DEVICE inline void count_add(superaccumulator& a) {
  if (++a.pending >= superaccumulator::normalize_every) normalize(a);
}

/// A finite nonzero double as significand * 2^exponent, significand a 53-bit (or, subnormal, shorter) integer.
struct decomposed {
  std::uint64_t significand;
  int exponent;
  bool negative;
};

DETRED_HOST_DEVICE inline decomposed decompose(double x) {
  const std::uint64_t b = bits_of(x);
  const int field = static_cast<int>((b >> 52) & 0x7ff);
  const std::uint64_t fraction = b & ((std::uint64_t{1} << 52) - 1);
  return {field == 0 ? fraction : fraction | (std::uint64_t{1} << 52), (field == 0 ? 1 : field) - 1075, (b >> 63) != 0};
}

/// Records a non-finite term in the flags.
DETRED_HOST_DEVICE inline void add_special(superaccumulator& a, double x) {
  if (x != x) {
    a.flags |= superaccumulator::has_nan;
  } else {
    a.flags |= x > 0 ? superaccumulator::has_positive_infinity : superaccumulator::has_negative_infinity;
  }
}

}  // namespace detail

/// Adds x * 2^scale exactly (x any double; scale shifts finite nonzero x only, and x * 2^scale must lie within the
/// accumulator's range: |scale| <= 1000 keeps every double inside).
DETRED_HOST_DEVICE inline void add(superaccumulator& a, double x, int scale = 0) {
  if (x == 0) {
    if (bits_of(x) == 0) a.flags |= superaccumulator::not_only_negative_zeros;
    return;
  }
  a.flags |= superaccumulator::not_only_negative_zeros;
  if (x - x != 0) {  // Inf or NaN
    detail::add_special(a, x);
    return;
  }
  const detail::decomposed d = detail::decompose(x);
  detail::add_integer(a, d.significand, d.exponent + scale, d.negative);
  detail::count_add(a);
}

/// Adds the exact product x * y (IEEE's rules for Inf * 0, NaN, and the sign of a zero product): the 106-bit product
/// of the significands in integer arithmetic, so products that overflow or underflow double are exact too.
DETRED_HOST_DEVICE inline void add_product(superaccumulator& a, double x, double y) {
  if (x - x != 0 || y - y != 0) {  // an operand is Inf or NaN: the IEEE product decides
    const double p = x * y;
    a.flags |= superaccumulator::not_only_negative_zeros;
    detail::add_special(a, p);
    return;
  }
  if (x == 0 || y == 0) {
    if (((bits_of(x) ^ bits_of(y)) >> 63) == 0) a.flags |= superaccumulator::not_only_negative_zeros;
    return;
  }
  a.flags |= superaccumulator::not_only_negative_zeros;
  const detail::decomposed dx = detail::decompose(x);
  const detail::decomposed dy = detail::decompose(y);
  const bool negative = dx.negative != dy.negative;
  const int exponent = dx.exponent + dy.exponent;
  const std::uint64_t x0 = dx.significand & 0xffffffffu, x1 = dx.significand >> 32;
  const std::uint64_t y0 = dy.significand & 0xffffffffu, y1 = dy.significand >> 32;
  detail::add_integer(a, x0 * y0, exponent, negative);
  detail::add_integer(a, x0 * y1, exponent + 32, negative);
  detail::add_integer(a, x1 * y0, exponent + 32, negative);
  detail::add_integer(a, x1 * y1, exponent + 64, negative);
  // Four adds of up to four digit changes each: counted as four.
  a.pending += 3;
  detail::count_add(a);
}

/// a += b, exactly; a is left normalized (b is taken by value: normalizing it does not touch the caller's copy).
DETRED_HOST_DEVICE inline void merge(superaccumulator& a, superaccumulator b) {
  normalize(a);
  normalize(b);
  for (int k = 0; k < superaccumulator::words; ++k) a.word[k] += b.word[k];
  a.flags |= b.flags;
  normalize(a);
}

namespace detail {

/// Digit k of the magnitude of the value held, normalized, in words[lo..top] (every other word zero): the words
/// themselves for a nonnegative value; for a negative one, 2^(32 (top + 1)) minus them, whose digits are 0 below the
/// lowest nonzero word k0, 2^32 - w at k0 and 2^32 - 1 - w above.
struct magnitude {
  const std::int64_t* w;
  int lo, top, k0;
  bool negative;
  DETRED_HOST_DEVICE std::uint64_t digit(int k) const {
    if (k < lo || k > top) return 0;
    const auto d = static_cast<std::uint64_t>(w[k]);
    if (!negative) return d;
    if (k < k0) return 0;
    return (k == k0 ? (std::uint64_t{1} << 32) : (std::uint64_t{1} << 32) - 1) - d;
  }
  /// The 64 bits of the magnitude from bit position p (p >= 0, counted from 2^min_exponent) upward.
  DETRED_HOST_DEVICE std::uint64_t bits_from(int p) const {
    const int k = p / 32;
    const int s = p % 32;
    std::uint64_t r = (digit(k) >> s) | (digit(k + 1) << (32 - s));
    if (s != 0) r |= digit(k + 2) << (64 - s);
    return r;
  }
};

}  // namespace detail

/// The rounding step on the words w[lo..hi] (every word outside them zero; lo > hi for none), which it normalizes in
/// place, with the flags of a superaccumulator: the correctly rounded value, as round_to. Touching only the nonzero
/// words keeps it cheap where one thread rounds a GPU's accumulator. Needs hi + 2 < words or a sum below
/// 2^(32 * 135 + min_exponent) (any sum of products of doubles is).
template <class T>
DETRED_HOST_DEVICE inline T round_words(std::int64_t* w, int lo, int hi, std::uint32_t f) {
  using F = float_format<T>;
  using B = typename F::bits;
  constexpr int words = superaccumulator::words;
  if ((f & superaccumulator::has_nan) != 0 ||
      ((f & superaccumulator::has_positive_infinity) != 0 && (f & superaccumulator::has_negative_infinity) != 0)) {
    return std::numeric_limits<T>::quiet_NaN();
  }
  if ((f & superaccumulator::has_positive_infinity) != 0) return std::numeric_limits<T>::infinity();
  if ((f & superaccumulator::has_negative_infinity) != 0) return -std::numeric_limits<T>::infinity();
  const T zero = (f & superaccumulator::not_only_negative_zeros) != 0 ? T(0) : -T(0);
  if (lo > hi) return zero;

  // Normalize w[lo..top]: each word below 2^63 in magnitude, so two more words above hi take every carry, and what
  // is left beyond top is the sign: 0, or -1 for a negative value.
  const int top = hi + 2 < words ? hi + 2 : words - 1;
  std::int64_t carry = 0;
  for (int k = lo; k <= top; ++k) {
    const std::int64_t v = w[k] + carry;
    carry = v >> superaccumulator::digit_bits;  // arithmetic shift: floor division by 2^32
    w[k] = v - carry * (std::int64_t{1} << superaccumulator::digit_bits);
  }
  detail::magnitude m{w, lo, top, lo, carry < 0};
  if (m.negative) {
    while (m.k0 <= top && w[m.k0] == 0) ++m.k0;
  }
  int lead_word = top;
  while (lead_word >= lo && m.digit(lead_word) == 0) --lead_word;
  if (lead_word < lo) return zero;
  const std::uint64_t lead_digit = m.digit(lead_word);
  int leading = 31;
  while (((lead_digit >> leading) & 1) == 0) --leading;
  const int lead_exponent = superaccumulator::min_exponent + 32 * lead_word + leading;

  // The bit of T's last place: 2^q, q = lead_exponent - mantissa_bits, but no finer than the smallest subnormal.
  int q = lead_exponent - F::mantissa_bits;
  if (q < F::min_ulp_exponent) q = F::min_ulp_exponent;
  const int p = q - superaccumulator::min_exponent;  // > 1000: every position below is inside the accumulator
  // Bits kept: up to mantissa_bits + 1; none when the value lies below 2^q (it rounds to zero or to 2^q).
  const int kept = lead_exponent - q + 1;
  std::uint64_t significand = kept > 0 ? m.bits_from(p) & ((std::uint64_t{1} << kept) - 1) : 0;
  const std::uint64_t guard = m.bits_from(p - 1) & 1;
  bool sticky = (m.digit((p - 1) / 32) & ((std::uint64_t{1} << ((p - 1) % 32)) - 1)) != 0;
  for (int k = lo; k < (p - 1) / 32 && !sticky; ++k) sticky = m.digit(k) != 0;
  if (guard != 0 && (sticky || (significand & 1) != 0)) ++significand;
  if (significand == (std::uint64_t{2} << F::mantissa_bits)) {  // rounded up to the next power of two
    significand >>= 1;
    ++q;
  }
  B result;
  if (q + F::mantissa_bits >= F::max_exponent) {
    result = bits_of(std::numeric_limits<T>::infinity());
  } else {
    // significand < 2^(mantissa_bits + 1); for significand >= 2^mantissa_bits its leading bit adds one to the
    // exponent field, so one formula covers normal and subnormal results.
    result = static_cast<B>(significand + (static_cast<std::uint64_t>(q - F::min_ulp_exponent) << F::mantissa_bits));
  }
  if (m.negative) result |= B{1} << (sizeof(B) * 8 - 1);
  return from_bits<T>(result);
}

/// The exact sum rounded once, to nearest with ties to even, to T (double or float): +-Inf beyond T's range, the
/// sign of a tiny nonzero sum kept on the zero it rounds to, -0.0 for an exactly zero sum of only -0.0 terms (and the
/// empty sum), +0.0 for any other exactly zero sum. NaN (canonical) for a NaN term or both infinities.
template <class T>
DETRED_HOST_DEVICE inline T round_to(superaccumulator a) {
  int lo = 0;
  while (lo < superaccumulator::words && a.word[lo] == 0) ++lo;
  int hi = superaccumulator::words - 1;
  while (hi >= lo && a.word[hi] == 0) --hi;
  return round_words<T>(a.word, lo, hi, a.flags);
}

}  // namespace DETRED_ORDER_ABI
}  // namespace detred::exact
