// The element types the tool reads and writes.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace detred::verify {

enum class dtype { float32, float64 };

inline const char* to_string(dtype t) { return t == dtype::float32 ? "float32" : "float64"; }
inline std::size_t item_size(dtype t) { return t == dtype::float32 ? 4 : 8; }

/// "float32"/"f4"/"float"/"single" or "float64"/"f8"/"double"; nullopt for anything else.
inline std::optional<dtype> parse_dtype(std::string_view name) {
  if (name == "float32" || name == "f4" || name == "float" || name == "single") return dtype::float32;
  if (name == "float64" || name == "f8" || name == "double") return dtype::float64;
  return std::nullopt;
}

}  // namespace detred::verify
