// SPDX-License-Identifier: BSD-3-Clause
// The rounding of a float to the 16-bit types (detred/number_types.hpp) against an oracle that shares none of its
// bit arithmetic: every finite value of the type, by to_float, in a table; a float's result is the nearer of the two
// table entries around it, the one with an even last bit on a tie, infinity standing for 2^16 (binary16) or 2^128
// (bfloat16), the next power of the binade above the largest finite value, as IEEE's overflow rule has it.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "detred/number_types.hpp"

namespace detred::testing {
namespace {

float float_of(std::uint32_t bits) {
  float f = 0;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

/// The non-negative values of a 16-bit type in increasing order, each with its bits: 0 up to infinity, whose
/// value is `beyond`. Its positive patterns increase with their values, so the table is sorted by construction.
template <class H>
struct positive_values {
  std::vector<double> value;
  std::vector<std::uint16_t> bits;

  positive_values(std::uint16_t infinity, double beyond) {
    for (std::uint32_t b = 0; b <= infinity; ++b) {
      bits.push_back(static_cast<std::uint16_t>(b));
      value.push_back(b == infinity ? beyond : static_cast<double>(to_float(static_cast<H>(b))));
    }
  }

  /// The oracle's bits for a float that is not NaN.
  std::uint16_t nearest(float f) const {
    const double x = std::fabs(static_cast<double>(f));  // exact
    const auto sign = static_cast<std::uint16_t>(std::signbit(f) ? 0x8000u : 0u);
    if (x >= value.back()) return sign | bits.back();
    const auto above = static_cast<std::size_t>(std::upper_bound(value.begin(), value.end(), x) - value.begin());
    const std::size_t below = above - 1;   // value[below] <= x < value[above]
    const double down = x - value[below];  // both exact: neighbours of a float in a coarser format
    const double up = value[above] - x;
    if (down < up || (down == up && (bits[below] & 1u) == 0)) return sign | bits[below];
    return sign | bits[above];
  }
};

/// Floats that probe every rounding boundary: for every sign and exponent, several leading significand patterns,
/// each with every trailing pattern 2^k - 1, 2^k, 2^k + 1 (k < 23) below it, so that the dropped part is just below,
/// at and just above one half (and zero) for every count of dropped bits, with both parities of the kept part;
/// then random floats.
std::vector<std::uint32_t> probe_floats() {
  std::vector<std::uint32_t> out;
  std::mt19937_64 rng(20261207);
  std::vector<std::uint32_t> trailing{0};
  for (std::uint32_t k = 0; k < 23; ++k) {
    const std::uint32_t p = 1u << k;
    trailing.insert(trailing.end(), {p - 1, p, p + 1, (p << 1) - 1});
  }
  for (std::uint32_t sign = 0; sign < 2; ++sign) {
    for (std::uint32_t exponent = 0; exponent < 256; ++exponent) {
      for (int lead = 0; lead < 6; ++lead) {
        const std::uint32_t high = lead == 0   ? 0u
                                   : lead == 1 ? 0x007fffffu
                                               : static_cast<std::uint32_t>(rng()) & 0x007fffffu;
        for (std::uint32_t t : trailing) {
          for (std::uint32_t width = 1; width <= 23; ++width) {  // the trailing pattern in the low `width` bits
            const std::uint32_t mask = (1u << width) - 1u;
            if (t > mask) continue;
            out.push_back((sign << 31) | (exponent << 23) | ((high & ~mask) | t));
          }
        }
      }
    }
  }
  for (int i = 0; i < 1 << 20; ++i) out.push_back(static_cast<std::uint32_t>(rng()));
  return out;
}

template <class H>
std::uint16_t bits_of(H h) {
  return static_cast<std::uint16_t>(h);
}

TEST(SixteenBitRounding, EveryProbedFloatRoundsToTheNearestValueTiesToEven) {
  const positive_values<float16> halves(0x7c00, 65536.0);
  const positive_values<bfloat16> brains(0x7f80, std::ldexp(1.0, 128));
  const std::vector<std::uint32_t> probes = probe_floats();
  ASSERT_GT(probes.size(), 1000000u);
  std::uint64_t nans = 0;
  std::uint64_t half_mismatches = 0;
  std::uint64_t bf16_mismatches = 0;
  for (const std::uint32_t u : probes) {
    const float f = float_of(u);
    const std::uint16_t h = bits_of(to_float16(f));
    const std::uint16_t b = bits_of(to_bfloat16(f));
    if (std::isnan(f)) {
      ++nans;
      half_mismatches += h != 0x7e00u;
      bf16_mismatches += b != 0x7fc0u;
      continue;
    }
    const std::uint16_t want_h = halves.nearest(f);
    const std::uint16_t want_b = brains.nearest(f);
    if (h != want_h && half_mismatches++ < 5) {
      ADD_FAILURE() << std::hex << "float 0x" << u << ": to_float16 0x" << h << ", nearest 0x" << want_h;
    }
    if (b != want_b && bf16_mismatches++ < 5) {
      ADD_FAILURE() << std::hex << "float 0x" << u << ": to_bfloat16 0x" << b << ", nearest 0x" << want_b;
    }
  }
  EXPECT_GT(nans, 0u);  // the exponent 255 probes with a nonzero significand
  EXPECT_EQ(half_mismatches, 0u);
  EXPECT_EQ(bf16_mismatches, 0u);
}

TEST(SixteenBitRounding, NamedBoundariesOfBinary16) {
  const auto h = [](float f) { return bits_of(to_float16(f)); };
  EXPECT_EQ(h(65504.0f), 0x7bffu);                        // the largest finite value
  EXPECT_EQ(h(std::nextafter(65520.0f, 0.0f)), 0x7bffu);  // just below the tie with 2^16
  EXPECT_EQ(h(65520.0f), 0x7c00u);                        // the tie: to the even side, infinity
  EXPECT_EQ(h(-std::numeric_limits<float>::max()), 0xfc00u);
  EXPECT_EQ(h(0x1p-24f), 0x0001u);  // the smallest subnormal
  EXPECT_EQ(h(0x1p-25f), 0x0000u);  // half of it: a tie, to even (zero)
  EXPECT_EQ(h(std::nextafter(0x1p-25f, 1.0f)), 0x0001u);
  EXPECT_EQ(h(0x3p-25f), 0x0002u);                        // 1.5 units: a tie, to even (2)
  EXPECT_EQ(h(std::nextafter(0x1p-14f, 0.0f)), 0x0400u);  // the largest subnormal's neighbourhood carries to 2^-14
  EXPECT_EQ(h(-0.0f), 0x8000u);
  EXPECT_EQ(h(std::numeric_limits<float>::denorm_min()), 0x0000u);  // float subnormals: far below 2^-25
  EXPECT_EQ(h(-std::numeric_limits<float>::quiet_NaN()), 0x7e00u);  // NaN: positive, empty payload
  EXPECT_EQ(h(float_of(0x7f800001u)), 0x7e00u);                     // a signalling NaN too
  EXPECT_EQ(bits_of(to_bfloat16(-std::numeric_limits<float>::quiet_NaN())), 0x7fc0u);
  EXPECT_EQ(bits_of(to_bfloat16(float_of(0xffc12345u))), 0x7fc0u);
  EXPECT_EQ(bits_of(to_bfloat16(std::numeric_limits<float>::max())), 0x7f80u);  // rounds past the largest: infinity
  EXPECT_EQ(bits_of(to_bfloat16(float_of(0x3f808000u))), 0x3f80u);              // a tie, kept part even: down
  EXPECT_EQ(bits_of(to_bfloat16(float_of(0x3f818000u))), 0x3f82u);              // a tie, kept part odd: up
  EXPECT_EQ(bits_of(to_bfloat16(float_of(0x00008000u))), 0x0000u);              // a subnormal tie: to even
}

TEST(SixteenBitRounding, EveryValueOfTheTypeRoundsToItself) {
  for (std::uint32_t b = 0; b <= 0xffffu; ++b) {
    const auto bits = static_cast<std::uint16_t>(b);
    const float h = to_float(static_cast<float16>(bits));
    const float g = to_float(static_cast<bfloat16>(bits));
    if (!std::isnan(h)) {
      ASSERT_EQ(bits_of(to_float16(h)), bits) << std::hex << b;
    }
    if (!std::isnan(g)) {
      ASSERT_EQ(bits_of(to_bfloat16(g)), bits) << std::hex << b;
    }
  }
}

}  // namespace
}  // namespace detred::testing
