// SPDX-License-Identifier: BSD-3-Clause
// The element types the tool reads and writes, and the results it prints.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace detred::verify {

/// Stored element types. int8, int16, uint8 and uint16 are read widened (exactly) to int32 or uint32, the narrowest
/// integers the library reduces; every other type is reduced as stored.
enum class dtype { float32, float64, float16, bfloat16, int8, int16, int32, int64, uint8, uint16, uint32, uint64 };

inline const char* to_string(dtype t) {
  switch (t) {
    case dtype::float32:
      return "float32";
    case dtype::float64:
      return "float64";
    case dtype::float16:
      return "float16";
    case dtype::bfloat16:
      return "bfloat16";
    case dtype::int8:
      return "int8";
    case dtype::int16:
      return "int16";
    case dtype::int32:
      return "int32";
    case dtype::int64:
      return "int64";
    case dtype::uint8:
      return "uint8";
    case dtype::uint16:
      return "uint16";
    case dtype::uint32:
      return "uint32";
    case dtype::uint64:
      return "uint64";
  }
  return "unknown";
}

/// Bytes per stored element.
inline std::size_t item_size(dtype t) {
  switch (t) {
    case dtype::int8:
    case dtype::uint8:
      return 1;
    case dtype::float16:
    case dtype::bfloat16:
    case dtype::int16:
    case dtype::uint16:
      return 2;
    case dtype::float32:
    case dtype::int32:
    case dtype::uint32:
      return 4;
    case dtype::float64:
    case dtype::int64:
    case dtype::uint64:
      return 8;
  }
  return 8;
}

inline bool is_floating(dtype t) {
  return t == dtype::float32 || t == dtype::float64 || t == dtype::float16 || t == dtype::bfloat16;
}

/// The type the library reduces for a stored type: int8 and int16 widen to int32, uint8 and uint16 to uint32.
inline dtype reduced_type(dtype t) {
  switch (t) {
    case dtype::int8:
    case dtype::int16:
      return dtype::int32;
    case dtype::uint8:
    case dtype::uint16:
      return dtype::uint32;
    default:
      return t;
  }
}

/// The names --dtype accepts, for messages.
inline const char* dtype_names() {
  return "float32, float64, float16, bfloat16, int8, int16, int32, int64, uint8, uint16, uint32 or uint64";
}

/// "float32"/"f4"/"float"/"single", "float64"/"f8"/"double", "float16"/"f2"/"half", "bfloat16", and the integer
/// names ("int32", "i4", "uint8", "u1", ...); nullopt for anything else.
inline std::optional<dtype> parse_dtype(std::string_view name) {
  if (name == "float32" || name == "f4" || name == "float" || name == "single") return dtype::float32;
  if (name == "float64" || name == "f8" || name == "double") return dtype::float64;
  if (name == "float16" || name == "f2" || name == "half") return dtype::float16;
  if (name == "bfloat16") return dtype::bfloat16;
  if (name == "int8" || name == "i1") return dtype::int8;
  if (name == "int16" || name == "i2") return dtype::int16;
  if (name == "int32" || name == "i4") return dtype::int32;
  if (name == "int64" || name == "i8") return dtype::int64;
  if (name == "uint8" || name == "u1") return dtype::uint8;
  if (name == "uint16" || name == "u2") return dtype::uint16;
  if (name == "uint32" || name == "u4") return dtype::uint32;
  if (name == "uint64" || name == "u8") return dtype::uint64;
  return std::nullopt;
}

}  // namespace detred::verify
