// SPDX-License-Identifier: BSD-3-Clause
// See exact_accumulator.hpp for why every operation here is exact.
#include "exact_accumulator.hpp"

#include <bit>
#include <cstdint>
#include <span>

namespace detred::verify {

void fixed_point_sum::propagate_carries() {
  for (int k = 0; k + 1 < limb_count; ++k) {
    // Arithmetic shift: floor division by 2^32, so the remainder left in the limb is in [0, 2^32).
    const std::int64_t carry = limbs_[k] >> digit_bits;
    limbs_[k] -= static_cast<std::int64_t>(static_cast<std::uint64_t>(carry) << digit_bits);
    limbs_[k + 1] += carry;
  }
}

void fixed_point_sum::to_mpz(mpz_t out) {
  propagate_carries();
  mpz_set_si(out, limbs_[limb_count - 1]);
  for (int k = limb_count - 2; k >= 0; --k) {
    mpz_mul_2exp(out, out, digit_bits);
    mpz_add_ui(out, out, static_cast<unsigned long>(limbs_[k]));
  }
}

namespace {
constexpr std::uint64_t sign_bit = std::uint64_t{1} << 63;
constexpr std::uint64_t fraction_mask = (std::uint64_t{1} << 52) - 1;
// Elements per block between checks of the carry counter: small against 2^30, large against the check's cost.
constexpr std::size_t block = std::size_t{1} << 16;
}  // namespace

// and_bits and or_magnitudes are locals of the caller: as members, every element would store to them and the next
// would wait for that store (measured: 5 ns per element instead of about 1).
inline void exact_accumulator::add_bits(std::uint64_t bits, int copy, std::uint64_t& and_bits,
                                        std::uint64_t& or_magnitudes) {
  const std::uint64_t biased = (bits >> 52) & 0x7ff;
  if (biased == 0x7ff) [[unlikely]] {
    if ((bits & fraction_mask) != 0) {
      ++nans_;
    } else if ((bits & sign_bit) != 0) {
      ++negative_infinities_;
    } else {
      ++positive_infinities_;
    }
    return;
  }
  and_bits &= bits;
  or_magnitudes |= bits & ~sign_bit;
  // Normal: (2^52 + f) * 2^(e - 1075), position e - 1. Subnormal (e = 0): f * 2^-1074, position 0.
  const std::uint64_t is_normal = biased != 0 ? 1 : 0;
  const std::uint64_t mantissa = (bits & fraction_mask) | (is_normal << 52);
  const std::uint64_t position = biased - is_normal;
  sums_[copy].add(mantissa, position, (bits & sign_bit) != 0);
  abs_sums_[copy].add(mantissa, position, false);
}

template <class T>
void exact_accumulator::add_span(std::span<const T> x) {
  for (std::size_t start = 0; start < x.size(); start += block) {
    const std::size_t end = x.size() - start < block ? x.size() : start + block;
    std::uint64_t and_bits = and_of_bits_;
    std::uint64_t or_magnitudes = or_of_magnitudes_;
    // float -> double is exact for every float, subnormals included, and keeps Inf and NaN.
    auto bits_at = [&](std::size_t i) { return std::bit_cast<std::uint64_t>(static_cast<double>(x[i])); };
    std::size_t i = start;
    for (; i + copies <= end; i += copies) {
      for (int c = 0; c < copies; ++c) add_bits(bits_at(i + c), c, and_bits, or_magnitudes);
    }
    for (; i < end; ++i) add_bits(bits_at(i), 0, and_bits, or_magnitudes);
    and_of_bits_ = and_bits;
    or_of_magnitudes_ = or_magnitudes;
    count_and_carry(end - start);
  }
}

void exact_accumulator::add(std::span<const double> x) { add_span(x); }
void exact_accumulator::add(std::span<const float> x) { add_span(x); }

void exact_accumulator::count_and_carry(std::uint64_t added) {
  count_ += added;
  since_carry_ += added;
  if (since_carry_ + block > carry_interval_) propagate_all();
}

void exact_accumulator::propagate_all() {
  for (int c = 0; c < copies; ++c) {
    sums_[c].propagate_carries();
    abs_sums_[c].propagate_carries();
  }
  since_carry_ = 0;
}

fixed_point_sum exact_accumulator::folded(copy_set sums) {
  for (int c = 0; c < copies; ++c) sums[c].propagate_carries();
  for (int c = 1; c < copies; ++c) sums[0].add_limbs(sums[c]);
  return sums[0];
}

void exact_accumulator::merge(exact_accumulator& other) {
  // After propagation each limb is below 2^32, so the limb-wise sum leaves ample room before the next carry.
  propagate_all();
  other.propagate_all();
  for (int c = 0; c < copies; ++c) {
    sums_[c].add_limbs(other.sums_[c]);
    abs_sums_[c].add_limbs(other.abs_sums_[c]);
  }
  count_ += other.count_;
  nans_ += other.nans_;
  positive_infinities_ += other.positive_infinities_;
  negative_infinities_ += other.negative_infinities_;
  and_of_bits_ &= other.and_of_bits_;
  or_of_magnitudes_ |= other.or_of_magnitudes_;
}

}  // namespace detred::verify
