// SPDX-License-Identifier: BSD-3-Clause
#include "datasets.hpp"

#include "portable_random.hpp"

#include <bit>
#include <cstdint>
#include <limits>
#include <span>
#include <type_traits>

namespace detred::generators {

std::optional<distribution> parse_distribution(const std::string& name) {
  if (name == "uniform") return distribution::uniform;
  if (name == "normal") return distribution::normal;
  if (name == "ill-conditioned") return distribution::ill_conditioned;
  if (name == "dynamic-range") return distribution::dynamic_range;
  if (name == "subnormal") return distribution::subnormal;
  if (name == "same-sign") return distribution::same_sign;
  return std::nullopt;
}

namespace {

template <class T>
void fill(distribution d, std::uint64_t seed, std::uint64_t index, std::span<T> x) {
  // One independent stream per chunk: the seed and the chunk index, mixed by splitmix64 inside rng.
  rng r(seed * 0x100000001b3ULL + index);
  constexpr std::uint64_t bias = std::numeric_limits<T>::max_exponent - 1;
  switch (d) {
    case distribution::uniform:
      for (auto& e : x) e = r.template unit<T>() * 2 - 1;
      break;
    case distribution::same_sign:
      for (auto& e : x) e = r.template unit<T>();
      break;
    case distribution::normal:
      // Irwin-Hall: mean 0, variance 1, tails cut at +-6. Every operation is an exactly rounded double addition,
      // in a fixed order, so the bits are the same on every machine.
      for (auto& e : x) {
        double s = 0;
        for (int k = 0; k < 12; ++k) s += r.template unit<double>();
        e = static_cast<T>(s - 6.0);
      }
      break;
    // The random draws of one element are sequenced by hand (mantissa, exponent, then sign), never left to the
    // order in which a call's arguments are evaluated: that order is unspecified, GCC takes them right to left on
    // x86-64 and left to right on aarch64, and this one keeps the files x86-64 builds have always generated.
    case distribution::dynamic_range:
      for (auto& e : x) {
        const std::uint64_t mantissa = r.next();
        const std::uint64_t exponent = bias - bias / 2 + r.below(bias);
        e = make_float<T>(r.next() & 1, exponent, mantissa);
      }
      break;
    case distribution::subnormal:
      for (auto& e : x) {
        const std::uint64_t mantissa = r.next();
        e = make_float<T>(r.next() & 1, 0, mantissa);
      }
      break;
    case distribution::ill_conditioned: {
      // Small terms, and on a quarter of the even positions a pair (big, -big); then a Fisher-Yates shuffle of the
      // chunk. The large terms cancel exactly, so the sum is that of the small terms, far below sum |x_i|.
      for (auto& e : x) e = (r.template unit<T>() * 2 - 1) * T(1e-6);
      for (std::size_t k = 0; k + 1 < x.size(); k += 2) {
        if (r.below(4) != 0) continue;
        const std::uint64_t mantissa = r.next();
        const std::uint64_t exponent = bias + 10 + r.below(20);
        const T big = make_float<T>(r.next() & 1, exponent, mantissa);
        x[k] = big;
        x[k + 1] = -big;
      }
      for (std::size_t k = x.size(); k > 1; --k) {
        const std::size_t j = r.below(k);
        const T t = x[k - 1];
        x[k - 1] = x[j];
        x[j] = t;
      }
      break;
    }
  }
}

}  // namespace

void generate_chunk(distribution d, std::uint64_t seed, std::uint64_t index, std::span<double> out) {
  fill(d, seed, index, out);
}
void generate_chunk(distribution d, std::uint64_t seed, std::uint64_t index, std::span<float> out) {
  fill(d, seed, index, out);
}

}  // namespace detred::generators
