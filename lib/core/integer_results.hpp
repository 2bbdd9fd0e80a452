// SPDX-License-Identifier: BSD-3-Clause
// The exact 128-bit integer sum as the result type, or an error saying it does not fit.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "detred/options.hpp"
#include "detred/order.hpp"

namespace detred {

/// The decimal digits of a 128-bit two's complement value.
std::string to_decimal(order::wide_integer v);

/// v as R (int64 or uint64); throws detred::overflow_error naming `what` and the exact value if it does not fit.
template <class R>
R narrowed(order::wide_integer v, const char* what) {
  static_assert(std::is_same_v<R, std::int64_t> || std::is_same_v<R, std::uint64_t>);
  bool fits = false;
  if constexpr (std::is_signed_v<R>) {
    fits = v.high == ((v.low >> 63) != 0 ? ~std::uint64_t{0} : 0);
  } else {
    fits = v.high == 0;
  }
  if (!fits) {
    throw overflow_error(std::string(what) + ": the exact sum " + to_decimal(v) + " does not fit in " +
                         (std::is_signed_v<R> ? "int64" : "uint64"));
  }
  return static_cast<R>(v.low);
}

}  // namespace detred
