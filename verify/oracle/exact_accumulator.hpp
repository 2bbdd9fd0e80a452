// SPDX-License-Identifier: BSD-3-Clause
// The oracle's exact accumulator: every finite float or double, added as an integer multiple of 2^-1074, into a
// fixed-point number wide enough that no addition can round or overflow.
//
// Why it is exact: every finite double is m * 2^(q - 1074) with an integer m < 2^53 and 0 <= q <= 2045 (float
// converts to double exactly, so floats are covered too). The accumulator holds integers in 32-bit digits of
// 2^(32 k - 1074), each digit kept in a signed 64-bit limb. One element adds at most 2^32 - 1 to three limbs, so a
// limb absorbs 2^30 elements before carry propagation is due (|limb| < 2^30 * 2^32 + 2^32 < 2^63), and carries are
// propagated at least that often. The whole sum is below 2^64 * 2^1024 in magnitude, i.e. below 2^(2098 + 64)
// units of 2^-1074; 72 limbs hold 2304 bits. Integer additions never round, so the sum is exact.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include <gmp.h>

namespace detred::verify {

/// A signed fixed-point integer in units of 2^-1074.
class fixed_point_sum {
 public:
  static constexpr int limb_count = 72;
  static constexpr int digit_bits = 32;
  static constexpr long unit_exponent = -1074;  ///< the value is integer() * 2^unit_exponent
  /// Additions between carry propagations; see the header comment for why 2^30 is safe.
  static constexpr std::uint64_t adds_between_carries = std::uint64_t{1} << 30;

  /// Adds (or subtracts, when negative) the finite double whose fields are given: m * 2^(q - 1074).
  void add(std::uint64_t mantissa, std::uint64_t position, bool negative) {
    const std::uint64_t shift = position & 31;
    const std::uint64_t k = position >> 5;
    const std::uint64_t low = mantissa << shift;  // the low 64 of the up to 84 shifted bits
    const std::uint64_t high = (mantissa >> 1) >> (63 - shift);
    const std::int64_t flip = negative ? -1 : 0;  // two's complement negation: (v ^ -1) - (-1) = -v
    limbs_[k] += (static_cast<std::int64_t>(low & 0xffffffffU) ^ flip) - flip;
    limbs_[k + 1] += (static_cast<std::int64_t>(low >> 32) ^ flip) - flip;
    limbs_[k + 2] += (static_cast<std::int64_t>(high) ^ flip) - flip;
  }

  /// Brings every limb but the top one into [0, 2^32); the top limb carries the sign. The value is unchanged.
  void propagate_carries();

  /// Adds another sum limb by limb; both must have had their carries propagated (limbs below 2^32 then).
  void add_limbs(const fixed_point_sum& other) {
    for (int k = 0; k < limb_count; ++k) limbs_[k] += other.limbs_[k];
  }

  /// The exact integer (value / 2^unit_exponent) as a GMP integer.
  void to_mpz(mpz_t out);

 private:
  std::array<std::int64_t, limb_count> limbs_{};
};

/// The exact sum and the exact sum of magnitudes of a stream of floats or doubles, plus what IEEE arithmetic needs
/// to know about the non-finite ones.
class exact_accumulator {
 public:
  /// carry_interval: additions between carry propagations; any value up to the default is exact (tests lower it
  /// to exercise the propagation often).
  explicit exact_accumulator(std::uint64_t carry_interval = fixed_point_sum::adds_between_carries)
      : carry_interval_(carry_interval) {}

  void add(std::span<const double> x);
  void add(std::span<const float> x);

  /// Folds another accumulator in (exact, so any split of the data gives the same totals).
  void merge(exact_accumulator& other);

  /// The exact totals so far (the interleaved copies folded together).
  fixed_point_sum sum() const { return folded(sums_); }
  fixed_point_sum abs_sum() const { return folded(abs_sums_); }
  std::uint64_t count() const { return count_; }
  std::uint64_t nan_count() const { return nans_; }
  std::uint64_t positive_infinities() const { return positive_infinities_; }
  std::uint64_t negative_infinities() const { return negative_infinities_; }
  /// True if every element is -0.0 (or there are none): then the IEEE sum is -0.0, not +0.0.
  bool all_negative_zero() const { return or_of_magnitudes_ == 0 && (and_of_bits_ >> 63) != 0; }

 private:
  // Consecutive elements usually hit the same limbs; one accumulator would make every addition wait for the
  // previous store to the same limb. Element i goes to copy i % copies, so that four chains run side by side.
  static constexpr int copies = 4;
  using copy_set = std::array<fixed_point_sum, copies>;
  static fixed_point_sum folded(copy_set sums);

  void add_bits(std::uint64_t bits, int copy, std::uint64_t& and_bits, std::uint64_t& or_magnitudes);
  template <class T>
  void add_span(std::span<const T> x);
  void count_and_carry(std::uint64_t added);
  void propagate_all();

  copy_set sums_{};
  copy_set abs_sums_{};
  std::uint64_t carry_interval_;
  std::uint64_t count_ = 0;
  std::uint64_t since_carry_ = 0;
  std::uint64_t nans_ = 0;
  std::uint64_t positive_infinities_ = 0;
  std::uint64_t negative_infinities_ = 0;
  std::uint64_t and_of_bits_ = ~std::uint64_t{0};  // its sign bit: every element is negative
  std::uint64_t or_of_magnitudes_ = 0;             // zero: every element is +-0
};

}  // namespace detred::verify
