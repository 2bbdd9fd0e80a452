// SPDX-License-Identifier: BSD-3-Clause
// See integer_sums.hpp. Elements are added into a 64-bit partial sum, which is moved into the GMP integer whenever
// the next addition would overflow it (checked by __builtin_add_overflow), so every addition is exact.
#include "integer_sums.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <type_traits>

#include <gmp.h>

namespace detred::verify {
namespace {

// An owning GMP integer.
class big_integer {
 public:
  big_integer() { mpz_init(value_); }
  ~big_integer() { mpz_clear(value_); }
  big_integer(const big_integer&) = delete;
  big_integer& operator=(const big_integer&) = delete;
  mpz_ptr get() { return value_; }

  // value += v, for any 64-bit v (as two 32-bit halves: GMP's long may be 32 bits on other platforms).
  void add(std::int64_t v) {
    const bool negative = v < 0;
    const std::uint64_t magnitude = negative ? ~static_cast<std::uint64_t>(v) + 1 : static_cast<std::uint64_t>(v);
    add_magnitude(magnitude, negative);
  }
  void add(std::uint64_t v) { add_magnitude(v, false); }

 private:
  void add_magnitude(std::uint64_t m, bool negative) {
    mpz_t t;
    mpz_init_set_ui(t, static_cast<unsigned long>(m >> 32));
    mpz_mul_2exp(t, t, 32);
    mpz_add_ui(t, t, static_cast<unsigned long>(m & 0xffffffffU));
    if (negative) {
      mpz_sub(value_, value_, t);
    } else {
      mpz_add(value_, value_, t);
    }
    mpz_clear(t);
  }
  mpz_t value_;
};

// Adds x to the partial sum, moving it into total before an addition would overflow it.
template <class I, class P>
void accumulate(std::span<const I> x, big_integer& total, P& partial) {
  for (const I v : x) {
    P next = 0;
    if (__builtin_add_overflow(partial, static_cast<P>(v), &next)) {
      total.add(partial);
      next = static_cast<P>(v);
    }
    partial = next;
  }
}

// The exact total (GMP) plus the partial sum, in decimal, and whether and how it fits the result type.
exact_integer_sum result_of(big_integer& total, std::uint64_t partial_bits, bool is_signed) {
  big_integer sum;
  mpz_set(sum.get(), total.get());
  {
    big_integer last;
    if (is_signed) {
      last.add(static_cast<std::int64_t>(partial_bits));
    } else {
      last.add(partial_bits);
    }
    mpz_add(sum.get(), sum.get(), last.get());
  }
  exact_integer_sum out;
  std::string decimal(mpz_sizeinbase(sum.get(), 10) + 2, '\0');
  mpz_get_str(decimal.data(), 10, sum.get());
  out.decimal = decimal.c_str();
  // Fits: compared with the limits, written out so as not to depend on the width of GMP's long.
  big_integer low, high;
  if (is_signed) {
    mpz_set_str(low.get(), "-9223372036854775808", 10);
    mpz_set_str(high.get(), "9223372036854775807", 10);
  } else {
    mpz_set_ui(low.get(), 0);
    mpz_set_str(high.get(), "18446744073709551615", 10);
  }
  out.fits = mpz_cmp(sum.get(), low.get()) >= 0 && mpz_cmp(sum.get(), high.get()) <= 0;
  if (out.fits) {
    // The two's complement bits: the value modulo 2^64 (floor division keeps it nonnegative), 32 bits at a time.
    big_integer part;
    mpz_fdiv_r_2exp(part.get(), sum.get(), 64);
    mpz_fdiv_q_2exp(high.get(), part.get(), 32);
    mpz_fdiv_r_2exp(low.get(), part.get(), 32);
    out.bits = (std::uint64_t{mpz_get_ui(high.get())} << 32) | mpz_get_ui(low.get());
  }
  return out;
}

template <class I>
exact_integer_sum sum_of(std::span<const I> x) {
  integer_sum_accumulator acc(std::is_signed_v<I>);
  acc.add(x);
  return acc.result();
}

}  // namespace

integer_sum_accumulator::integer_sum_accumulator(bool is_signed) : signed_(is_signed), total_(new big_integer) {}
integer_sum_accumulator::~integer_sum_accumulator() { delete static_cast<big_integer*>(total_); }

namespace {
template <class I>
void add_to(std::span<const I> x, void* total, std::uint64_t& partial_bits) {
  auto& t = *static_cast<big_integer*>(total);
  if constexpr (std::is_signed_v<I>) {
    auto partial = static_cast<std::int64_t>(partial_bits);
    accumulate(x, t, partial);
    partial_bits = static_cast<std::uint64_t>(partial);
  } else {
    accumulate(x, t, partial_bits);
  }
}
}  // namespace

void integer_sum_accumulator::add(std::span<const std::int32_t> x) { add_to(x, total_, partial_); }
void integer_sum_accumulator::add(std::span<const std::int64_t> x) { add_to(x, total_, partial_); }
void integer_sum_accumulator::add(std::span<const std::uint32_t> x) { add_to(x, total_, partial_); }
void integer_sum_accumulator::add(std::span<const std::uint64_t> x) { add_to(x, total_, partial_); }
exact_integer_sum integer_sum_accumulator::result() const {
  return result_of(*static_cast<big_integer*>(total_), partial_, signed_);
}

exact_integer_sum exact_integer(std::span<const std::int32_t> x) { return sum_of(x); }
exact_integer_sum exact_integer(std::span<const std::int64_t> x) { return sum_of(x); }
exact_integer_sum exact_integer(std::span<const std::uint32_t> x) { return sum_of(x); }
exact_integer_sum exact_integer(std::span<const std::uint64_t> x) { return sum_of(x); }

}  // namespace detred::verify
