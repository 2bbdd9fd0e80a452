// SPDX-License-Identifier: BSD-3-Clause
// Stored elements to the elements the library reduces: the C++ types of each dtype, and the byte-order conversion
// and exact widening of the narrow integers. Shared by the whole-file reader (dataset.cpp) and the streaming one
// (element_stream.cpp), so both give the same elements.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>

#include "detred/number_types.hpp"
#include "dtype.hpp"

namespace detred::verify {

// Calls f.template operator()<Stored, Reduced>() with the C++ types of a stored dtype and of the type the library
// reduces it as (reduced_type): the 16-bit floats are their storage types, narrow integers widen to 32 bits.
template <class F>
decltype(auto) with_element_types(dtype t, F&& f) {
  switch (t) {
    case dtype::float32:
      return f.template operator()<float, float>();
    case dtype::float64:
      return f.template operator()<double, double>();
    case dtype::float16:
      return f.template operator()<float16, float16>();
    case dtype::bfloat16:
      return f.template operator()<bfloat16, bfloat16>();
    case dtype::int8:
      return f.template operator()<std::int8_t, std::int32_t>();
    case dtype::int16:
      return f.template operator()<std::int16_t, std::int32_t>();
    case dtype::int32:
      return f.template operator()<std::int32_t, std::int32_t>();
    case dtype::int64:
      return f.template operator()<std::int64_t, std::int64_t>();
    case dtype::uint8:
      return f.template operator()<std::uint8_t, std::uint32_t>();
    case dtype::uint16:
      return f.template operator()<std::uint16_t, std::uint32_t>();
    case dtype::uint32:
      return f.template operator()<std::uint32_t, std::uint32_t>();
    case dtype::uint64:
      return f.template operator()<std::uint64_t, std::uint64_t>();
  }
  return f.template operator()<double, double>();
}

// The unsigned integer of a type's width.
template <std::size_t Bytes>
using unsigned_of = std::conditional_t<
    Bytes == 8, std::uint64_t,
    std::conditional_t<Bytes == 4, std::uint32_t, std::conditional_t<Bytes == 2, std::uint16_t, std::uint8_t>>>;

// Stored elements, little- or big-endian at bytes (a whole number of them), converted into Reduced elements in this
// machine's order at target (an exact value conversion for the widened integers, the same bits otherwise).
template <class Stored, class Reduced>
void decode_into(std::span<const std::byte> bytes, bool big_endian, Reduced* target) {
  using bits_t = unsigned_of<sizeof(Stored)>;
  const std::size_t count = bytes.size() / sizeof(Stored);
  for (std::size_t k = 0; k < count; ++k) {
    bits_t b = 0;
    for (std::size_t i = 0; i < sizeof(Stored); ++i) {
      const auto byte = static_cast<bits_t>(bytes[k * sizeof(Stored) + (big_endian ? i : sizeof(Stored) - 1 - i)]);
      b = static_cast<bits_t>((b << 8) | byte);
    }
    target[k] = static_cast<Reduced>(std::bit_cast<Stored>(b));
  }
}

}  // namespace detred::verify
