// SPDX-License-Identifier: BSD-3-Clause
// Random numbers and floats whose bits are the same on every machine, for test inputs and generated datasets:
// xoshiro256** (Blackman and Vigna) seeded through splitmix64, and bit-level constructions of floats. Never
// std::*_distribution (its output differs between standard libraries) and never libm.
#pragma once

#include <bit>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace detred::generators {

class rng {
 public:
  explicit rng(std::uint64_t seed) {
    for (auto& word : state_) {
      seed += 0x9e3779b97f4a7c15ULL;
      std::uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      word = z ^ (z >> 31);
    }
  }

  std::uint64_t next() {
    const std::uint64_t result = std::rotl(state_[1] * 5, 7) * 9;
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = std::rotl(state_[3], 45);
    return result;
  }

  /// Uniform integer in [0, bound), bound > 0 (modulo; the tiny bias does not matter for test data).
  std::uint64_t below(std::uint64_t bound) { return next() % bound; }

  /// Uniform on [0, 1) with the type's full precision: an integer times a power of two, exact.
  template <class T>
  T unit() {
    constexpr int digits = std::numeric_limits<T>::digits;
    return static_cast<T>(next() >> (64 - digits)) * (T(1) / static_cast<T>(std::uint64_t{1} << digits));
  }

 private:
  std::uint64_t state_[4];
};

/// The same-width unsigned integer of a float type.
template <class T>
using bits_of = std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>;

/// Builds a float from its sign, biased exponent and mantissa bits (the mantissa is masked to the type's width).
template <class T>
T make_float(bool negative, std::uint64_t biased_exponent, std::uint64_t mantissa) {
  constexpr int mantissa_bits = std::numeric_limits<T>::digits - 1;
  constexpr int width = 8 * sizeof(T);
  const std::uint64_t mask = (std::uint64_t{1} << mantissa_bits) - 1;
  const std::uint64_t word =
      (std::uint64_t{negative} << (width - 1)) | (biased_exponent << mantissa_bits) | (mantissa & mask);
  return std::bit_cast<T>(static_cast<bits_of<T>>(word));
}

}  // namespace detred::generators
