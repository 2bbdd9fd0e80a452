// SPDX-License-Identifier: BSD-3-Clause
// The 16-bit floating-point storage types detred reduces: IEEE binary16 and bfloat16, as their bits. They are
// storage only: every reduction widens each element exactly to float and computes in float (docs/operations.md).
#pragma once

#include <cstdint>
#include <cstring>

// Exported from a shared libdetred, whose other symbols are hidden (cmake/DetredShared.cmake).
#pragma GCC visibility push(default)

namespace detred {

/// IEEE 754 binary16 (half precision), held as its 16 bits. Layout-compatible with _Float16, __half, numpy.float16.
enum class float16 : std::uint16_t {};

/// bfloat16 (the upper 16 bits of a float), held as its 16 bits. Layout-compatible with __nv_bfloat16 and
/// torch.bfloat16.
enum class bfloat16 : std::uint16_t {};

/// The exact float value of a binary16 (every binary16, subnormals included, is a float; NaN payloads are kept).
inline float to_float(float16 h) {
  const std::uint32_t u = static_cast<std::uint16_t>(h);
  const std::uint32_t sign = (u & 0x8000u) << 16;
  const std::uint32_t magnitude = u & 0x7fffu;
  const std::uint32_t exponent = u & 0x7c00u;
  std::uint32_t bits = 0;
  if (exponent == 0x7c00u) {
    bits = (magnitude << 13) | 0x7f800000u;  // Inf and NaN
  } else if (exponent == 0) {
    const float subnormal = static_cast<float>(magnitude) * 0x1p-24f;  // exact: magnitude < 2^10
    std::memcpy(&bits, &subnormal, sizeof bits);
  } else {
    bits = (magnitude << 13) + ((127u - 15u) << 23);
  }
  bits |= sign;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

/// The exact float value of a bfloat16.
inline float to_float(bfloat16 b) {
  const std::uint32_t bits = std::uint32_t{static_cast<std::uint16_t>(b)} << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

}  // namespace detred

#pragma GCC visibility pop
