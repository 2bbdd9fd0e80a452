// SPDX-License-Identifier: BSD-3-Clause
// Exact mode's device arithmetic, shared by the one-array kernel (exact.cu) and the batched kernels (exact_batch.cu):
// a thread's running sum as a floating-point expansion updated by error-free TwoSum steps, and a superaccumulator in
// shared memory (the block's or a line's) that takes, as integer digits added with atomics, every term the expansion
// cannot hold. The expansion plus what it spilled is always the exact sum of the thread's terms, so any split of the
// terms among threads, and any order of the atomics, gives the same exact value (docs/exact.md, "On the GPU").
#pragma once

#include <cstdint>
#include <type_traits>

#include <cuda_runtime.h>

#include "exact_enqueue.hpp"

namespace detred::cuda::detail {
// Internal linkage: each kernel file compiles its own copy (the library has no device link step).
namespace {

using exact::superaccumulator;

constexpr int expansion_size = 3;
/// Terms at or above this magnitude skip the expansion: its components then stay below 2^1000 for any n < 2^40,
/// so no TwoSum step overflows.
constexpr double expansion_limit = 0x1p960;
/// A product at or above this magnitude has an error term (fma(x, y, -p)) that is a normal or exact subnormal
/// double: the exact product's lowest bit is at least 2^(-969 - 105) = 2^-1074.
constexpr double product_error_floor = 0x1p-969;
constexpr std::uint64_t negative_zero_bits = std::uint64_t{1} << 63;

/// A superaccumulator in shared memory: a block's (exact.cu), or a line's (exact_batch.cu).
struct block_accumulator {
  unsigned long long word[superaccumulator::words];
  unsigned int flags;
};

/// Adds +-(hi * 2^64 + lo) * 2^exponent to the block's words (hi < 2^42: a product of two 53-bit significands).
/// Out of line: it is the rare path, and the loops' registers are better spent on the fast one.
__device__ __noinline__ void deposit(block_accumulator& acc, std::uint64_t hi, std::uint64_t lo, int exponent,
                                     bool negative) {
  const int position = exponent - superaccumulator::min_exponent;  // >= 28 for any product of doubles
  const int w = position / superaccumulator::digit_bits;
  const int s = position % superaccumulator::digit_bits;
  const std::uint64_t t0 = lo << s;
  const std::uint64_t t1 = s == 0 ? hi : (hi << s) | (lo >> (64 - s));
  const std::uint64_t t2 = s == 0 ? 0 : hi >> (64 - s);
  const std::uint64_t digits[5] = {t0 & 0xffffffffu, t0 >> 32, t1 & 0xffffffffu, t1 >> 32, t2};
#pragma unroll
  for (int k = 0; k < 5; ++k) {
    if (digits[k] != 0) atomicAdd(&acc.word[w + k], negative ? 0ull - digits[k] : digits[k]);
  }
}

/// Adds the finite nonzero double x to the block's words.
__device__ void deposit(block_accumulator& acc, double x) {
  const exact::detail::decomposed d = exact::detail::decompose(x);
  deposit(acc, 0, d.significand, d.exponent, d.negative);
}

/// The flags a non-finite term sets (x is Inf or NaN).
__device__ unsigned special_flags(double x) {
  if (x != x) return superaccumulator::has_nan;
  return x > 0 ? superaccumulator::has_positive_infinity : superaccumulator::has_negative_infinity;
}

/// A thread's running exact sum: expansion components a[0..) plus what went to the block's words; and its flags.
struct thread_sum {
  double a[expansion_size];
  unsigned flags;
};

/// TwoSum (Knuth): s + e == a + b exactly, for any a and b whose sum does not overflow.
__device__ double two_sum(double& a, double b) {
  const double s = __dadd_rn(a, b);
  const double bv = __dsub_rn(s, a);
  const double e = __dadd_rn(__dsub_rn(a, __dsub_rn(s, bv)), __dsub_rn(b, bv));
  a = s;
  return e;
}

/// Adds x to the expansion's components from `first` on by TwoSum steps; an error left after the last step is
/// spilled. No step overflows: the terms are below expansion_limit, and the components are sums of fewer than 2^40
/// of them.
__device__ void insert(thread_sum& t, double x, block_accumulator& acc, int first = 0) {
#pragma unroll
  for (int k = 0; k < expansion_size; ++k) {
    if (k < first) continue;
    x = two_sum(t.a[k], x);
    if (x == 0) return;
  }
  deposit(acc, x);
}

/// One term of a sum: the expansion for moderate finite values, the words for huge ones, the flags for Inf and NaN.
__device__ void add_term(thread_sum& t, double x, block_accumulator& acc) {
  if (__double_as_longlong(x) != static_cast<long long>(negative_zero_bits)) {
    t.flags |= superaccumulator::not_only_negative_zeros;
  }
  if (fabs(x) < expansion_limit) {
    insert(t, x, acc);
  } else if (x - x == 0) {
    deposit(acc, x);
  } else {
    t.flags |= special_flags(x);
  }
}

/// One product of double operands: p + e by a correctly rounded fma where that is exact, the 106-bit integer
/// product otherwise (overflowing or tiny products), IEEE's rules for Inf, NaN and the sign of a zero product.
__device__ void add_product(thread_sum& t, double x, double y, block_accumulator& acc) {
  const double p = __dmul_rn(x, y);
  const double ap = fabs(p);
  if (ap >= product_error_floor && ap < expansion_limit) {
    t.flags |= superaccumulator::not_only_negative_zeros;
    insert(t, p, acc);
    const double e = __fma_rn(x, y, -p);
    if (e != 0) insert(t, e, acc);
    return;
  }
  if (x - x != 0 || y - y != 0) {
    t.flags |= superaccumulator::not_only_negative_zeros | special_flags(p);
    return;
  }
  if (x == 0 || y == 0) {
    if (((__double_as_longlong(x) ^ __double_as_longlong(y)) >> 63) == 0) {
      t.flags |= superaccumulator::not_only_negative_zeros;
    }
    return;
  }
  t.flags |= superaccumulator::not_only_negative_zeros;
  const exact::detail::decomposed dx = exact::detail::decompose(x);
  const exact::detail::decomposed dy = exact::detail::decompose(y);
  deposit(acc, __umul64hi(dx.significand, dy.significand), dx.significand * dy.significand, dx.exponent + dy.exponent,
          dx.negative != dy.negative);
}

/// Element i's terms for the operation.
template <exact_kind Kind, class T>
__device__ void add_element(thread_sum& t, T x, T y, block_accumulator& acc) {
  if constexpr (Kind == exact_kind::sum) {
    add_term(t, static_cast<double>(x), acc);
  } else if constexpr (Kind == exact_kind::asum) {
    add_term(t, fabs(static_cast<double>(x)), acc);
  } else if constexpr (std::is_same_v<T, float>) {
    // The product of two floats is exact in double (48 significant bits, exponents within double's range).
    add_term(t, __dmul_rn(static_cast<double>(x), static_cast<double>(y)), acc);
  } else {
    add_product(t, x, y, acc);
  }
}

/// The float sum's fast path over one chunk: the terms are added to a[0] with one double addition each, and the
/// chunk's bounds, kept in integer registers, show afterwards whether every addition was exact. If all terms and
/// a[0] are multiples of 2^L and below 2^(M+1), every partial sum of the chunk (at most 1 + E <= 32 terms) is a
/// multiple of 2^L below 2^(M+6): exact in double when M + 6 - L <= 53. Floats are multiples of 2^(exponent - 23),
/// so for data of moderate range this holds for nearly every chunk. Otherwise the chunk is added again, term by
/// term, through the expansion, and a[0] is then cut back to 27 significant bits (the rest goes one component
/// down) so that the next chunks pass again.
template <bool Absolute, int E>
__device__ void float_chunk(thread_sum& t, const float (&x)[E], block_accumulator& acc) {
  static_assert(E <= 31);
  const double start = t.a[0];
  double a = start;
  unsigned largest = 0;            // the largest |x| << 1 (its exponent field in the top byte)
  unsigned smallest = ~0u;         // the smallest nonzero |x| << 1, minus 1 (a zero becomes ~0u: no constraint)
  unsigned not_negative_zero = 0;  // nonzero once a term is not -0.0
#pragma unroll
  for (int j = 0; j < E; ++j) {
    unsigned b = __float_as_uint(x[j]);
    if (Absolute) b &= 0x7fffffffu;
    const unsigned u = b << 1;
    largest = ::max(largest, u);
    smallest = ::min(smallest, u - 1);
    not_negative_zero |= b ^ 0x80000000u;
    a = __dadd_rn(a, static_cast<double>(__uint_as_float(b)));
  }
  const int largest_field = static_cast<int>(largest >> 24);
  bool exact = largest_field != 255;                           // no Inf or NaN
  int high = largest_field == 0 ? -127 : largest_field - 127;  // every |x| < 2^(high + 1)
  int low = 1 << 20;                                           // every x a multiple of 2^low
  if (smallest != ~0u) {
    const int field = static_cast<int>((smallest + 1) >> 24);
    low = (field == 0 ? 1 : field) - 150;
  }
  if (start != 0) {  // a sum of floats: a normal double
    const auto bits = static_cast<unsigned long long>(__double_as_longlong(start));
    const int field = static_cast<int>((bits >> 52) & 0x7ff);
    high = ::max(high, field - 1023);
    const unsigned long long significand = (bits & ((1ull << 52) - 1)) | (1ull << 52);
    low = ::min(low, field - 1075 + __ffsll(static_cast<long long>(significand)) - 1);
  }
  if (exact && low >= high - 47) {
    t.a[0] = a;
    if (not_negative_zero != 0) t.flags |= superaccumulator::not_only_negative_zeros;
    return;
  }
#pragma unroll
  for (int j = 0; j < E; ++j) add_term(t, Absolute ? fabs(static_cast<double>(x[j])) : static_cast<double>(x[j]), acc);
  const double before = t.a[0];
  const double kept = __longlong_as_double(__double_as_longlong(before) & ~((1ll << 26) - 1));
  t.a[0] = kept;
  const double rest = __dsub_rn(before, kept);  // exact: the cleared low bits of `before`
  if (rest != 0) insert(t, rest, acc, 1);
}

/// The other chunks' fast path: each term goes through two TwoSum steps, unconditionally, and the errors of the
/// second (almost always zero) are kept and spilled further once per chunk. Checked once per chunk in integer
/// registers: no term is 2^960 or more, Inf or NaN (so no step overflows), and, for a dot of doubles, no product is
/// below 2^-969 (so fma(x, y, -p) is its exact error). A chunk that fails is added again, term by term, from the
/// state before it.
template <exact_kind Kind, class T, int E>
__device__ void two_level_chunk(thread_sum& t, const T (&x)[E], const T (&y)[E], block_accumulator& acc) {
  constexpr bool double_products = Kind == exact_kind::dot && std::is_same_v<T, double>;
  constexpr int per_element = double_products ? 2 : 1;
  double a0 = t.a[0], a1 = t.a[1];
  double spill[E * per_element];
  unsigned largest = 0, smallest_product = 0x7ff, not_negative_zero = 0, any_spill = 0;
#pragma unroll
  for (int j = 0; j < E; ++j) {
    double term[per_element];
    if constexpr (Kind == exact_kind::sum) {
      term[0] = static_cast<double>(x[j]);
    } else if constexpr (Kind == exact_kind::asum) {
      term[0] = fabs(static_cast<double>(x[j]));
    } else if constexpr (!double_products) {
      term[0] = __dmul_rn(static_cast<double>(x[j]), static_cast<double>(y[j]));  // exact for floats
    } else {
      term[0] = __dmul_rn(x[j], y[j]);
      term[per_element - 1] = __fma_rn(x[j], y[j], -term[0]);
    }
    const auto high = static_cast<unsigned>(__double2hiint(term[0]));
    largest = ::max(largest, high & 0x7fffffffu);
    if constexpr (double_products) smallest_product = ::min(smallest_product, (high >> 20) & 0x7ffu);
    not_negative_zero |= (high ^ 0x80000000u) | static_cast<unsigned>(__double2loint(term[0]));
#pragma unroll
    for (int k = 0; k < per_element; ++k) {
      const double e = two_sum(a0, term[k]);
      spill[j * per_element + k] = two_sum(a1, e);
      any_spill |= static_cast<unsigned>(__double2hiint(spill[j * per_element + k])) |
                   static_cast<unsigned>(__double2loint(spill[j * per_element + k]));
    }
  }
  // 2^960 has the exponent field 1983; 2^-969 has 54. A zero product (field 0) also takes the careful path, which
  // applies IEEE's sign rule to it.
  const bool fast = largest < (1983u << 20) && (!double_products || smallest_product >= 54);
  if (fast) {
    t.a[0] = a0;
    t.a[1] = a1;
    if (not_negative_zero != 0) t.flags |= superaccumulator::not_only_negative_zeros;
    if (any_spill != 0) {
#pragma unroll
      for (int k = 0; k < E * per_element; ++k) {
        if (spill[k] != 0) insert(t, spill[k], acc, 2);
      }
    }
    return;
  }
#pragma unroll
  for (int j = 0; j < E; ++j) add_element<Kind, T>(t, x[j], y[j], acc);
}

template <class T>
struct vector_of;
template <>
struct vector_of<double> {
  using type = double2;
  static constexpr int width = 2;
};
template <>
struct vector_of<float> {
  using type = float4;
  static constexpr int width = 4;
};

template <class V>
__device__ auto element(const V& v, int k) {
  if constexpr (sizeof(V) / sizeof(v.x) == 2) {
    return k == 0 ? v.x : v.y;
  } else {
    return k == 0 ? v.x : k == 1 ? v.y : k == 2 ? v.z : v.w;
  }
}

}  // namespace
}  // namespace detred::cuda::detail
