#include "generators.hpp"

#include <bit>
#include <cstdint>
#include <limits>
#include <span>
#include <type_traits>

namespace detred::verify::cli {

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

// xoshiro256** (Blackman and Vigna), seeded through splitmix64: fully specified, the same everywhere.
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

template <class T>
T make_float(bool negative, std::uint64_t biased_exponent, std::uint64_t mantissa) {
  using bits_t = std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>;
  constexpr int mantissa_bits = std::numeric_limits<T>::digits - 1;
  constexpr int width = 8 * sizeof(T);
  const std::uint64_t mask = (std::uint64_t{1} << mantissa_bits) - 1;
  const std::uint64_t word =
      (std::uint64_t{negative} << (width - 1)) | (biased_exponent << mantissa_bits) | (mantissa & mask);
  return std::bit_cast<T>(static_cast<bits_t>(word));
}

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
    case distribution::dynamic_range:
      for (auto& e : x) e = make_float<T>(r.next() & 1, bias - bias / 2 + r.below(bias), r.next());
      break;
    case distribution::subnormal:
      for (auto& e : x) e = make_float<T>(r.next() & 1, 0, r.next());
      break;
    case distribution::ill_conditioned: {
      // Small terms, and on a quarter of the even positions a pair (big, -big); then a Fisher-Yates shuffle of the
      // chunk. The large terms cancel exactly, so the sum is that of the small terms, far below sum |x_i|.
      for (auto& e : x) e = (r.template unit<T>() * 2 - 1) * T(1e-6);
      for (std::size_t k = 0; k + 1 < x.size(); k += 2) {
        if (r.below(4) != 0) continue;
        const T big = make_float<T>(r.next() & 1, bias + 10 + r.below(20), r.next());
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

}  // namespace detred::verify::cli
