// SPDX-License-Identifier: BSD-3-Clause
// Decimal text of a 128-bit integer, for the overflow message of integer sums (without __int128, which is not ISO
// C++: the magnitude as four 32-bit limbs, divided by 10 until it is 0).
#include <algorithm>
#include <cstdint>
#include <string>

#include "integer_results.hpp"

namespace detred {

std::string to_decimal(order::wide_integer v) {
  const bool negative = (v.high >> 63) != 0;
  std::uint64_t low = v.low;
  std::uint64_t high = v.high;
  if (negative) {  // two's complement negation of (high, low)
    low = ~low + 1;
    high = ~high + (low == 0 ? 1 : 0);
  }
  std::uint32_t limbs[4] = {static_cast<std::uint32_t>(high >> 32), static_cast<std::uint32_t>(high),
                            static_cast<std::uint32_t>(low >> 32), static_cast<std::uint32_t>(low)};
  std::string digits;
  do {
    std::uint64_t remainder = 0;
    for (std::uint32_t& limb : limbs) {
      const std::uint64_t current = (remainder << 32) | limb;
      limb = static_cast<std::uint32_t>(current / 10);
      remainder = current % 10;
    }
    digits.push_back(static_cast<char>('0' + remainder));
  } while (limbs[0] != 0 || limbs[1] != 0 || limbs[2] != 0 || limbs[3] != 0);
  if (negative) digits.push_back('-');
  std::reverse(digits.begin(), digits.end());
  return digits;
}

}  // namespace detred
