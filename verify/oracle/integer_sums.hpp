// SPDX-License-Identifier: BSD-3-Clause
// The oracle of integer sums: the exact sum in GMP, and whether it fits the library's result type (int64 for signed
// elements, uint64 for unsigned ones; detred/sum.hpp).
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace detred::verify {

struct exact_integer_sum {
  std::string decimal;     ///< the exact sum in decimal
  bool fits = false;       ///< it fits the result type: int64 for signed elements, uint64 for unsigned ones
  std::uint64_t bits = 0;  ///< when it fits: the result's two's complement bits
};

/// The exact sum of integers that arrive in chunks (all signed or all unsigned, as the constructor says).
class integer_sum_accumulator {
 public:
  explicit integer_sum_accumulator(bool is_signed);
  ~integer_sum_accumulator();
  integer_sum_accumulator(const integer_sum_accumulator&) = delete;
  integer_sum_accumulator& operator=(const integer_sum_accumulator&) = delete;

  void add(std::span<const std::int32_t> x);
  void add(std::span<const std::int64_t> x);
  void add(std::span<const std::uint32_t> x);
  void add(std::span<const std::uint64_t> x);
  exact_integer_sum result() const;

 private:
  bool signed_;
  void* total_;                // the GMP integer of the sums moved out of `partial_`, kept out of the header
  std::uint64_t partial_ = 0;  // a 64-bit partial sum: int64 bits for signed elements
};

exact_integer_sum exact_integer(std::span<const std::int32_t> x);
exact_integer_sum exact_integer(std::span<const std::int64_t> x);
exact_integer_sum exact_integer(std::span<const std::uint32_t> x);
exact_integer_sum exact_integer(std::span<const std::uint64_t> x);

}  // namespace detred::verify
