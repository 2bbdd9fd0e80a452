// SPDX-License-Identifier: BSD-3-Clause
// Exact mode's kernel: blocks of up to 1024 elements split exactly into two levels of per-lane double sums, which
// are added to the superaccumulator once per block. Written once and compiled once per instruction set
// (kernels_<isa>.cpp). The includer, inside a namespace of its own and after defining DETRED_ORDER_ABI and including
// <cstdint>, <cstring> and "detred/exact/superaccumulator.hpp" and "detred/order/lane_values.hpp", defines
//   inline constexpr std::uint64_t vector_bytes   bytes per vector register (16, 32 or 64)
//
// One block (docs/exact.md has the proof):
//   1. One pass finds the largest |x| and the smallest nonzero |x| (integer max/min of the magnitude bits). From the
//      largest, |x| < 2^E; the levels have quanta 2^b1 and 2^b2 with b1 = E - W, b2 = b1 - W (W = split_bits).
//   2. The second pass splits every x exactly: with S a lane sum started at 1.5 * 2^(b1 + 52), t = S + x rounds x to
//      a multiple of 2^b1, p = t - S is that multiple and r = x - p the rest, both exact; S = t keeps the level's sum
//      and a plain lane sum A += r the rest's. Every p is a multiple of 2^b1 and every r one of 2^b2 as long as x's
//      last place is at least 2^b2 (x >= 2^(b2 + precision - 1), or b2 at the smallest subnormal's place), and the
//      block is short enough that no lane sum ever needs more than 53 bits: all additions are exact.
//   3. The lanes of each level add up exactly (still multiples of one quantum, still below 2^53 quanta), and the two
//      doubles go to the superaccumulator.
// Elements too small for the two levels go to the superaccumulator one by one; blocks with Inf or NaN, all zeros or
// values beyond 2^1012 are added element by element.

template <class T, std::uint64_t bytes>
struct sized_vector {
  typedef T type __attribute__((vector_size(bytes)));
};

using dvec = sized_vector<double, vector_bytes>::type;
using uvec = sized_vector<std::uint64_t, vector_bytes>::type;
inline constexpr std::uint64_t lanes = vector_bytes / sizeof(double);
/// Independent lane sums per level: enough to hide the latency of the dependent additions of S.
inline constexpr std::uint64_t unroll = 4;
inline constexpr std::uint64_t step = lanes * unroll;

inline constexpr std::uint64_t block = 1024;
/// Bits per level. Each lane sum S receives at most block / step <= 128 pieces below 2^(b1 + W) + 2^b1: they move S
/// by less than 2^(b1 + 49) from 1.5 * 2^(b1 + 52), so S keeps its binade and its last place 2^b1 (W <= 42 keeps the
/// margin on the narrowest vectors). Two levels then cover x down to 2^(E - 2W + precision - 1).
inline constexpr int split_bits = 42;
static_assert(block / step * (std::uint64_t{1} << (split_bits + 1)) < (std::uint64_t{1} << 51));

inline constexpr std::uint64_t magnitude_mask = ~(std::uint64_t{1} << 63);
inline constexpr std::uint64_t infinity_bits = std::uint64_t{0x7ff} << 52;
/// Largest block exponent bound E the fast path takes: S = 1.5 * 2^(E - W + 52) must stay finite with room to move.
inline constexpr int max_fast_exponent = 1012;

inline dvec load(const double* p) {
  dvec v;
  std::memcpy(&v, p, sizeof v);  // unaligned: x may start anywhere
  return v;
}

inline dvec load(const float* p) {
  typename sized_vector<float, vector_bytes / 2>::type v;
  std::memcpy(&v, p, sizeof v);
  return __builtin_convertvector(v, dvec);  // exact: every float is a double
}

inline uvec bits(dvec v) {
  uvec u;
  std::memcpy(&u, &v, sizeof u);
  return u;
}

inline dvec from_bits(uvec u) {
  dvec v;
  std::memcpy(&v, &u, sizeof v);
  return v;
}

/// 2^e as a double, for -1074 <= e <= 1023.
inline double power_of_two(int e) {
  const std::uint64_t b = e >= -1022 ? static_cast<std::uint64_t>(e + 1023) << 52 : std::uint64_t{1} << (e + 1074);
  return exact::from_bits<double>(b);
}

/// The largest and smallest nonzero magnitude bits of a block (an all-zero block: largest 0).
struct extent {
  std::uint64_t largest;
  std::uint64_t smallest_nonzero;
};

template <class In, bool absolute>
inline extent measure(const In* x, std::uint64_t count) {
  uvec hi[unroll] = {};
  uvec lo[unroll];
  for (std::uint64_t u = 0; u < unroll; ++u) lo[u] = hi[u] - 1;  // all ones
  for (std::uint64_t i = 0; i < count; i += step) {
    for (std::uint64_t u = 0; u < unroll; ++u) {
      const uvec m = bits(load(x + i + u * lanes)) & magnitude_mask;
      hi[u] = hi[u] > m ? hi[u] : m;
      const uvec z = m - 1;  // a zero wraps to the largest value and drops out of the minimum
      lo[u] = lo[u] < z ? lo[u] : z;
    }
  }
  extent e{0, ~std::uint64_t{0}};
  for (std::uint64_t u = 0; u < unroll; ++u) {
    for (std::uint64_t k = 0; k < lanes; ++k) {
      if (hi[u][k] > e.largest) e.largest = hi[u][k];
      if (lo[u][k] < e.smallest_nonzero) e.smallest_nonzero = lo[u][k];
    }
  }
  ++e.smallest_nonzero;
  return e;
}

/// Floats measure in their own lanes, twice as many per register, with no widening; the extents are then given as
/// the bits of the same magnitudes in double (Inf and NaN as infinity_bits).
template <>
inline extent measure<float, false>(const float* x, std::uint64_t count) {
  using fbits = sized_vector<std::uint32_t, vector_bytes>::type;
  constexpr std::uint64_t per = vector_bytes / sizeof(float);
  fbits hi[2] = {}, lo[2];
  for (fbits& l : lo) l = hi[0] - 1;
  for (std::uint64_t i = 0; i < count; i += 2 * per) {
    for (std::uint64_t u = 0; u < 2; ++u) {
      fbits m;
      std::memcpy(&m, x + i + u * per, sizeof m);
      m &= 0x7fffffffu;
      hi[u] = hi[u] > m ? hi[u] : m;
      const fbits z = m - 1;
      lo[u] = lo[u] < z ? lo[u] : z;
    }
  }
  std::uint32_t largest = 0, smallest = ~std::uint32_t{0};
  for (std::uint64_t u = 0; u < 2; ++u) {
    for (std::uint64_t k = 0; k < per; ++k) {
      if (hi[u][k] > largest) largest = hi[u][k];
      if (lo[u][k] < smallest) smallest = lo[u][k];
    }
  }
  ++smallest;
  const auto widened = [](std::uint32_t b) {
    return b >= 0x7f800000u ? infinity_bits : exact::bits_of(static_cast<double>(exact::from_bits<float>(b)));
  };
  return {widened(largest), widened(smallest)};
}

template <>
inline extent measure<float, true>(const float* x, std::uint64_t count) {
  return measure<float, false>(x, count);
}

template <bool absolute>
inline double term(double x) {
  return absolute ? exact::from_bits<double>(exact::bits_of(x) & magnitude_mask) : x;
}

/// Adds x[0..count) one by one.
template <bool absolute, class In>
inline void add_each(superaccumulator& acc, const In* x, std::uint64_t count) {
  for (std::uint64_t i = 0; i < count; ++i) add(acc, term<absolute>(static_cast<double>(x[i])));
}

/// The two-level split of a block whose extent passed the checks in sum_block; `masked`: elements with magnitude
/// bits below `small` are left out (sum_block adds them one by one).
template <bool absolute, bool masked, class In>
inline void split_block(superaccumulator& acc, const In* x, std::uint64_t count, int b1, std::uint64_t small) {
  const double start = 1.5 * power_of_two(b1 + 52);
  dvec s[unroll], rest[unroll];
  for (std::uint64_t u = 0; u < unroll; ++u) {
    s[u] = dvec{} + start;
    rest[u] = dvec{};
  }
  for (std::uint64_t i = 0; i < count; i += step) {
    for (std::uint64_t u = 0; u < unroll; ++u) {
      dvec v = load(x + i + u * lanes);
      if constexpr (absolute) v = from_bits(bits(v) & magnitude_mask);
      if constexpr (masked) v = from_bits(bits(v) & uvec((bits(v) & magnitude_mask) >= small));
      const dvec t = s[u] + v;
      const dvec piece = t - s[u];
      rest[u] += v - piece;
      s[u] = t;
    }
  }
  double high = 0, low = 0;  // exact: multiples of 2^b1 and 2^b2 below 2^53 quanta
  for (std::uint64_t u = 0; u < unroll; ++u) {
    for (std::uint64_t k = 0; k < lanes; ++k) {
      high += s[u][k] - start;
      low += rest[u][k];
    }
  }
  add(acc, high);
  add(acc, low);
}

/// The one-level sum of a block whose terms are all multiples of 2^g with |x| < 2^bound and bound - g <= 43: the
/// lane sums and their total stay below 2^(bound + 10) (1024 terms), 53 bits of quanta 2^g, so plain additions are
/// exact. Floats whose magnitudes span less than 2^20 qualify: half the arithmetic of the split.
template <bool absolute, class In>
inline void plain_block(superaccumulator& acc, const In* x, std::uint64_t count) {
  dvec s[unroll] = {};
  for (std::uint64_t i = 0; i < count; i += step) {
    for (std::uint64_t u = 0; u < unroll; ++u) {
      dvec v = load(x + i + u * lanes);
      if constexpr (absolute) v = from_bits(bits(v) & magnitude_mask);
      s[u] += v;
    }
  }
  double total = 0;
  for (std::uint64_t u = 0; u < unroll; ++u) {
    for (std::uint64_t k = 0; k < lanes; ++k) total += s[u][k];
  }
  add(acc, total);
}

/// Adds x[0..count) (count <= block) exactly; `precision`: significant bits of the terms (53 for doubles, 24 for
/// floats, 48 for products of floats); `zero_signs`: whether -0.0 and +0.0 terms count (false for the error terms of
/// TwoProduct, which are +0.0 even where the product is -0.0).
template <bool absolute, class In>
inline void sum_block(superaccumulator& acc, const In* x, std::uint64_t count, int precision, bool zero_signs = true) {
  const std::uint64_t whole = count - count % step;
  const extent e = measure<In, absolute>(x, whole);
  if (e.largest >= infinity_bits || e.largest == 0) {
    if (zero_signs || e.largest != 0) add_each<absolute>(acc, x, whole);
  } else {
    acc.flags |= superaccumulator::not_only_negative_zeros;
    const int field = static_cast<int>(e.largest >> 52);
    const int bound = (field == 0 ? 1 : field) - 1022;  // |x| < 2^bound
    int b2 = bound - 2 * split_bits;
    if (b2 < -1074) b2 = -1074;
    const int b1 = b2 + split_bits;
    if (b1 + split_bits > max_fast_exponent) {
      add_each<absolute>(acc, x, whole);
    } else {
      // Terms of magnitude 2^(b2 + precision - 1) and above have their last place at 2^b2 or higher; with b2 at the
      // smallest subnormal's place, every term has.
      const std::uint64_t small = b2 == -1074 ? 0 : exact::bits_of(power_of_two(b2 + precision - 1));
      // The one-level sum needs every term's last place at 2^(bound - 43) or above.
      const int plain_exponent = bound - 43 + precision - 1;
      if (plain_exponent <= 1023 &&
          (bound - 43 <= -1074 ||
           e.smallest_nonzero >= exact::bits_of(power_of_two(plain_exponent < -1074 ? -1074 : plain_exponent)))) {
        plain_block<absolute>(acc, x, whole);
      } else if (e.smallest_nonzero >= small) {
        split_block<absolute, false>(acc, x, whole, b1, small);
      } else {
        split_block<absolute, true>(acc, x, whole, b1, small);
        for (std::uint64_t i = 0; i < whole; ++i) {
          const double v = term<absolute>(static_cast<double>(x[i]));
          if ((exact::bits_of(v) & magnitude_mask) < small) add(acc, v);
        }
      }
    }
  }
  if (zero_signs) {
    add_each<absolute>(acc, x + whole, count - whole);
  } else {
    for (std::uint64_t i = whole; i < count; ++i) {
      if (x[i] != 0) add(acc, term<absolute>(static_cast<double>(x[i])));
    }
  }
}

/// Adds sum x[i] (or |x[i]|) for i < n.
template <bool absolute, class In>
void sum_range(superaccumulator& acc, const In* x, std::uint64_t n) {
  constexpr int precision = sizeof(In) == sizeof(double) ? 53 : 24;
  for (std::uint64_t i = 0; i < n; i += block)
    sum_block<absolute>(acc, x + i, n - i < block ? n - i : block, precision);
}

/// Products of doubles in a block: TwoProduct h + l = x y, exact where no product can overflow or fall below 2^-967
/// (docs/error-bounds.md, "When TwoProduct is exact"), which the block's extents of x and y decide; then h and l are
/// summed as two blocks. Other blocks go through add_product, exact for every pair.
inline void dot_block(superaccumulator& acc, const double* x, const double* y, std::uint64_t count) {
  const std::uint64_t whole = count - count % step;
  const extent ex = measure<double, false>(x, whole);
  const extent ey = measure<double, false>(y, whole);
  const auto exponent = [](std::uint64_t b) { return static_cast<int>(b >> 52) - 1023; };  // floor(log2) if normal
  const bool fast = ex.largest < infinity_bits && ey.largest < infinity_bits && ex.largest != 0 && ey.largest != 0 &&
                    exponent(ex.largest) + exponent(ey.largest) + 2 <= max_fast_exponent &&
                    exponent(ex.smallest_nonzero) + exponent(ey.smallest_nonzero) >= -967 &&
                    (ex.smallest_nonzero >> 52) != 0 && (ey.smallest_nonzero >> 52) != 0;
  if (fast) {
    alignas(64) double high[block];
    alignas(64) double low[block];
    for (std::uint64_t i = 0; i < whole; i += lanes) {
      const dvec a = load(x + i), b = load(y + i);
      const dvec h = a * b;
      const dvec l = order::fused_multiply_add(a, b, -h);
      std::memcpy(high + i, &h, sizeof h);
      std::memcpy(low + i, &l, sizeof l);
    }
// GCC 12 for aarch64 warns that the buffers may be read uninitialized: it cannot see that sum_block reads exactly
// the `whole` elements the loop above wrote. Zeroing 16 KiB per block to quiet it would cost more than the warning.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
    sum_block<false>(acc, high, whole, 53);
    sum_block<false>(acc, low, whole, 53, false);
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
  } else {
    for (std::uint64_t i = 0; i < whole; ++i) add_product(acc, x[i], y[i]);
  }
  for (std::uint64_t i = whole; i < count; ++i) add_product(acc, x[i], y[i]);
}

/// Products of floats are exact in double (at most 48 significant bits, between 2^-298 and 2^256).
inline void dot_block(superaccumulator& acc, const float* x, const float* y, std::uint64_t count) {
  alignas(64) double products[block];
  const std::uint64_t whole = count - count % lanes;
  for (std::uint64_t i = 0; i < whole; i += lanes) {
    const dvec p = load(x + i) * load(y + i);
    std::memcpy(products + i, &p, sizeof p);
  }
  for (std::uint64_t i = whole; i < count; ++i) products[i] = static_cast<double>(x[i]) * static_cast<double>(y[i]);
  sum_block<false>(acc, products, count, 48);
}

template <class In>
void dot_range(superaccumulator& acc, const In* x, const In* y, std::uint64_t n) {
  for (std::uint64_t i = 0; i < n; i += block) {
    const std::uint64_t c = n - i < block ? n - i : block;
    dot_block(acc, x + i, y + i, c);
  }
}

/// This instruction set's entry points.
inline constexpr exact_kernels make_exact_kernels(const char* name) {
  return {name,
          &sum_range<false, double>,
          &sum_range<false, float>,
          &sum_range<true, double>,
          &sum_range<true, float>,
          &dot_range<double>,
          &dot_range<float>};
}
