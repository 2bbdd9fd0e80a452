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

template <class I>
exact_integer_sum sum_of(std::span<const I> x) {
  using partial_t = std::conditional_t<std::is_signed_v<I>, std::int64_t, std::uint64_t>;
  big_integer total;
  partial_t partial = 0;
  for (const I v : x) {
    partial_t next = 0;
    if (__builtin_add_overflow(partial, static_cast<partial_t>(v), &next)) {
      total.add(partial);
      next = static_cast<partial_t>(v);
    }
    partial = next;
  }
  total.add(partial);

  exact_integer_sum out;
  std::string decimal(mpz_sizeinbase(total.get(), 10) + 2, '\0');
  mpz_get_str(decimal.data(), 10, total.get());
  out.decimal = decimal.c_str();
  // Fits: compared with the limits, written out so as not to depend on the width of GMP's long.
  big_integer low, high;
  if constexpr (std::is_signed_v<I>) {
    mpz_set_str(low.get(), "-9223372036854775808", 10);
    mpz_set_str(high.get(), "9223372036854775807", 10);
  } else {
    mpz_set_ui(low.get(), 0);
    mpz_set_str(high.get(), "18446744073709551615", 10);
  }
  out.fits = mpz_cmp(total.get(), low.get()) >= 0 && mpz_cmp(total.get(), high.get()) <= 0;
  if (out.fits) {
    // The two's complement bits: the value modulo 2^64 (floor division keeps it nonnegative), 32 bits at a time.
    big_integer part;
    mpz_fdiv_r_2exp(part.get(), total.get(), 64);
    mpz_fdiv_q_2exp(high.get(), part.get(), 32);
    mpz_fdiv_r_2exp(low.get(), part.get(), 32);
    out.bits = (std::uint64_t{mpz_get_ui(high.get())} << 32) | mpz_get_ui(low.get());
  }
  return out;
}

}  // namespace

exact_integer_sum exact_integer(std::span<const std::int32_t> x) { return sum_of(x); }
exact_integer_sum exact_integer(std::span<const std::int64_t> x) { return sum_of(x); }
exact_integer_sum exact_integer(std::span<const std::uint32_t> x) { return sum_of(x); }
exact_integer_sum exact_integer(std::span<const std::uint64_t> x) { return sum_of(x); }

}  // namespace detred::verify
