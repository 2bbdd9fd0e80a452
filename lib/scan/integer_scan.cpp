// SPDX-License-Identifier: BSD-3-Clause
// The exact integer scans. Integer addition is exact and associative, so the outputs do not depend on any order;
// one pass keeps the exact prefix sum in 128 bits (no prefix of up to 2^64 elements of 64 bits can overflow it) and
// refuses the first output that does not fit its type.
#include <cstdint>
#include <string>
#include <type_traits>

#include "core/integer_results.hpp"
#include "scan_backend.hpp"

namespace detred::cpu {
namespace {

/// The 128-bit value plus an element, sign- or zero-extended.
template <class I>
order::wide_integer plus(order::wide_integer s, I v) {
  const auto low = static_cast<std::uint64_t>(v);
  const std::uint64_t high = std::is_signed_v<I> && v < 0 ? ~std::uint64_t{0} : 0;
  const std::uint64_t sum = s.low + low;
  return {sum, s.high + high + (sum < low ? 1u : 0u)};
}

template <class R>
bool fits(order::wide_integer v) {
  if constexpr (std::is_signed_v<R>) {
    return v.high == ((v.low >> 63) != 0 ? ~std::uint64_t{0} : 0);
  } else {
    return v.high == 0;
  }
}

template <class R>
[[noreturn]] void refuse(order::wide_integer v, std::uint64_t i) {
  const std::string what = "detred::cumsum: output " + std::to_string(i);
  narrowed<R>(v, what.c_str());
  throw error(what + ": does not fit");  // not reached: narrowed throws for a value that does not fit
}

}  // namespace

template <class I, class R>
void integer_scan(const I* x, std::uint64_t n, R* y, bool exclusive) {
  order::wide_integer s{0, 0};
  for (std::uint64_t i = 0; i < n; ++i) {
    const I v = x[i];  // read before y[i] is written: y may be x
    if (exclusive) {
      if (!fits<R>(s)) refuse<R>(s, i);
      y[i] = static_cast<R>(s.low);
      s = plus(s, v);
    } else {
      s = plus(s, v);
      if (!fits<R>(s)) refuse<R>(s, i);
      y[i] = static_cast<R>(s.low);
    }
  }
}

template void integer_scan(const std::int32_t*, std::uint64_t, std::int64_t*, bool);
template void integer_scan(const std::int64_t*, std::uint64_t, std::int64_t*, bool);
template void integer_scan(const std::uint32_t*, std::uint64_t, std::uint64_t*, bool);
template void integer_scan(const std::uint64_t*, std::uint64_t, std::uint64_t*, bool);

}  // namespace detred::cpu
