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

exact_integer_sum exact_integer(std::span<const std::int32_t> x);
exact_integer_sum exact_integer(std::span<const std::int64_t> x);
exact_integer_sum exact_integer(std::span<const std::uint32_t> x);
exact_integer_sum exact_integer(std::span<const std::uint64_t> x);

}  // namespace detred::verify
