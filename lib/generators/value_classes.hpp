// SPDX-License-Identifier: BSD-3-Clause
// Classes of adversarial test input (special values, signed zeros, overflow, ill-conditioning), bit-identical on
// every machine: our own PRNG and bit-level transforms, never std::*_distribution and no libm. The golden vectors
// (tests/golden_vectors.inc) are frozen results of these inputs: any change here must leave their bits alone.
#pragma once

#include <bit>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "portable_random.hpp"

namespace detred::generators {

template <class T>
bits_of<T> bits(T x) {
  return std::bit_cast<bits_of<T>>(x);
}

/// The classes of input the invariance tests run over.
enum class values {
  uniform,          // [-1, 1)
  same_sign,        // [0, 1)
  dynamic_range,    // random sign, exponent spread over most of the finite range, sums stay finite
  ill_conditioned,  // large terms that cancel, plus small ones: sum near 0, condition number huge
  subnormal,        // subnormals only, both signs
  signed_zeros,     // +0.0 and -0.0 mixed
  negative_zeros,   // only -0.0: the sum must be -0.0
  with_inf,         // uniform plus a few +Inf
  with_both_infs,   // uniform plus +Inf and -Inf: NaN
  with_nan,         // uniform plus NaNs of assorted payloads and signs: the canonical NaN
  overflowing,      // terms near the largest finite value whose sum overflows
};

inline const std::vector<values>& all_value_classes() {
  static const std::vector<values> all = {values::uniform,         values::same_sign,  values::dynamic_range,
                                          values::ill_conditioned, values::subnormal,  values::signed_zeros,
                                          values::negative_zeros,  values::with_inf,   values::with_both_infs,
                                          values::with_nan,        values::overflowing};
  return all;
}

inline std::string name(values v) {
  switch (v) {
    case values::uniform:
      return "uniform";
    case values::same_sign:
      return "same_sign";
    case values::dynamic_range:
      return "dynamic_range";
    case values::ill_conditioned:
      return "ill_conditioned";
    case values::subnormal:
      return "subnormal";
    case values::signed_zeros:
      return "signed_zeros";
    case values::negative_zeros:
      return "negative_zeros";
    case values::with_inf:
      return "with_inf";
    case values::with_both_infs:
      return "with_both_infs";
    case values::with_nan:
      return "with_nan";
    case values::overflowing:
      return "overflowing";
  }
  return "?";
}

/// n values of class v from seed. The random draws of one element are sequenced by hand (mantissa, exponent, then
/// sign), never left to the order in which a call's arguments are evaluated: that order is unspecified, GCC takes
/// them right to left on x86-64 and left to right on aarch64, and this one keeps the values (and so the golden
/// vectors) that x86-64 builds have always generated.
template <class T>
std::vector<T> generate(values v, std::uint64_t n, std::uint64_t seed) {
  rng r(seed);
  constexpr std::uint64_t max_exponent = sizeof(T) == 8 ? 2046 : 254;
  constexpr std::uint64_t bias = sizeof(T) == 8 ? 1023 : 127;
  std::vector<T> x(n);
  auto uniform = [&] { return r.template unit<T>() * 2 - 1; };
  switch (v) {
    case values::uniform:
    case values::with_inf:
    case values::with_both_infs:
    case values::with_nan:
      for (auto& e : x) e = uniform();
      break;
    case values::same_sign:
      for (auto& e : x) e = r.template unit<T>();
      break;
    case values::dynamic_range: {
      // Exponents within +-(bias/2) of 1: a range of ~2^1000 (double) or ~2^126 (float), no overflow in any sum.
      for (auto& e : x) {
        const std::uint64_t mantissa = r.next();
        const std::uint64_t exponent = bias - bias / 2 + r.below(bias);
        e = make_float<T>(r.next() & 1, exponent, mantissa);
      }
      break;
    }
    case values::ill_conditioned: {
      // Pairs (a, -a) of large terms placed at random positions, the rest small: the exact sum is the sum of the
      // small terms, many orders of magnitude below sum |x_i|.
      for (auto& e : x) e = uniform() * T(1e-6);
      for (std::uint64_t k = 0; k + 1 < n; k += 2) {
        if (r.below(4) != 0) continue;
        const std::uint64_t mantissa = r.next();
        const std::uint64_t exponent = bias + 10 + r.below(20);
        const T big = make_float<T>(r.next() & 1, exponent, mantissa);
        x[k] = big;
        x[r.below(n)] = -big;
      }
      break;
    }
    case values::subnormal:
      for (auto& e : x) {
        const std::uint64_t mantissa = r.next();
        e = make_float<T>(r.next() & 1, 0, mantissa);
      }
      break;
    case values::signed_zeros:
      for (auto& e : x) e = (r.next() & 1) ? T(-0.0) : T(0.0);
      break;
    case values::negative_zeros:
      for (auto& e : x) e = T(-0.0);
      break;
    case values::overflowing:
      for (auto& e : x) e = make_float<T>(false, max_exponent - r.below(2), r.next());
      break;
  }
  if (n > 0) {
    const std::uint64_t specials = 1 + n / 1000;
    for (std::uint64_t k = 0; k < specials; ++k) {
      const std::uint64_t at = r.below(n);
      switch (v) {
        case values::with_inf:
          x[at] = std::numeric_limits<T>::infinity();
          break;
        case values::with_both_infs:
          x[at] = (k % 2 == 0) ? std::numeric_limits<T>::infinity() : -std::numeric_limits<T>::infinity();
          if (k == 0 && n > 1) x[(at + 1) % n] = -std::numeric_limits<T>::infinity();
          break;
        case values::with_nan: {
          // Payload and sign vary, so a path that propagates a different NaN would show up without canonicalization.
          const std::uint64_t payload = r.next() | 1;
          x[at] = make_float<T>(r.next() & 1, max_exponent + 1, payload);
          break;
        }
        default:
          break;
      }
    }
  }
  return x;
}

}  // namespace detred::generators
