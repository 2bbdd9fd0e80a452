// SPDX-License-Identifier: BSD-3-Clause
// The 16-bit floating-point storage types detred reduces: IEEE binary16 and bfloat16, as their bits. They are
// storage only: every reduction widens each element exactly to float and computes in float (docs/operations.md).
#pragma once

#include <cstdint>
#include <cstring>

#include "detred/config.hpp"

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

/// A float rounded to binary16: the one rounding of every 16-bit result detred computes (the CUDA row and column
/// sums, detred::nccl's collectives). To nearest, ties to even; from 65520 on, infinity; subnormal results kept (no
/// flush to zero). A NaN becomes the positive quiet NaN with an empty payload, 0x7e00, as every reduction makes its
/// NaN canonical (order::canonical). Integer operations only, so the host and the device give the same bits.
DETRED_HOST_DEVICE inline float16 to_float16(float f) {
  std::uint32_t u = 0;
  std::memcpy(&u, &f, sizeof u);
  const std::uint32_t sign = (u >> 16) & 0x8000u;
  const std::uint32_t a = u & 0x7fffffffu;  // |f|
  std::uint32_t h = 0;
  if (a > 0x7f800000u) return static_cast<float16>(0x7e00u);  // NaN
  if (a >= 0x477ff000u) {
    h = 0x7c00u;  // 65520 (halfway between 65504 and 2^16, 65504's last bit odd) and above: infinity
  } else if (a >= 0x38800000u) {
    // A normal binary16 (|f| >= 2^-14): the exponent rebiased (127 - 15 = 112), then 13 bits dropped to nearest
    // even; a carry out of the mantissa steps into the next binade, as it should.
    const std::uint32_t m = a - (112u << 23);
    h = (m + 0x0fffu + ((m >> 13) & 1u)) >> 13;
  } else if (a > 0x33000000u) {
    // A subnormal binary16 (or the smallest normal, by a carry): |f| in units of 2^-24 is the significand shifted
    // right by 126 - e, to nearest even. 2^-25 and below (a tie with zero at 2^-25) give zero, below.
    const std::uint32_t shift = 126u - (a >> 23);  // 14 .. 24
    const std::uint32_t significand = (a & 0x007fffffu) | 0x00800000u;
    const std::uint32_t kept = significand >> shift;
    const std::uint32_t dropped = significand & ((1u << shift) - 1u);
    const std::uint32_t half = 1u << (shift - 1u);
    h = kept + ((dropped > half || (dropped == half && (kept & 1u) != 0)) ? 1u : 0u);
  }
  return static_cast<float16>(sign | h);
}

/// A float rounded to bfloat16, by the same rule as to_float16: to nearest, ties to even, overflow to infinity,
/// subnormals kept; a NaN becomes 0x7fc0.
DETRED_HOST_DEVICE inline bfloat16 to_bfloat16(float f) {
  std::uint32_t u = 0;
  std::memcpy(&u, &f, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<bfloat16>(0x7fc0u);
  // Adding 0x7fff plus the kept part's last bit carries into the kept 16 bits exactly when the dropped half is above
  // one half, or one half with the kept part odd. A carry out of the largest finite value gives infinity.
  return static_cast<bfloat16>(static_cast<std::uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16));
}

}  // namespace detred

#pragma GCC visibility pop
