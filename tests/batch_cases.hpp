// SPDX-License-Identifier: BSD-3-Clause
// Inputs of the batched-reduction tests, shared by the CPU and the CUDA suites: segments whose lengths sit at every
// boundary of the order (lanes, leaves, the GPU's 16-leaf work items), matrices of both layouts with padded leading
// dimensions, and keys that are uniform or piled into a few hot bins. Each result is checked against the
// single-array call on its line alone.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "detred/batched.hpp"
#include "detred/order.hpp"
#include "test_data.hpp"

namespace detred::testing {

/// Segment lengths for lane type T: empty, around a row of lanes, around a leaf, a few leaves, more than 16 leaves
/// (a GPU line of several work items), and random ones.
template <class T>
std::vector<std::uint64_t> segment_lengths(std::uint64_t seed) {
  constexpr std::uint64_t W = order::lanes<T>;
  constexpr std::uint64_t L = order::leaf_size<T>;
  std::vector<std::uint64_t> lengths = {0, 1, 2, W - 1, W, W + 1, L - 1, L, L + 1, 3 * L + 7, 0, 17 * L + 5, 5};
  rng r(seed);
  for (int i = 0; i < 12; ++i) lengths.push_back(r.below(2 * L));
  for (std::size_t i = lengths.size() - 1; i > 0; --i) std::swap(lengths[i], lengths[r.below(i + 1)]);
  return lengths;
}

/// Offsets of the lengths, the first segment starting `gap` elements in (so segments start at every alignment)
/// and `gap` elements left after the last (segments need not cover the array); `extent` gets the values' length.
inline std::vector<std::uint64_t> offsets_of(const std::vector<std::uint64_t>& lengths, std::uint64_t gap,
                                             std::uint64_t& extent) {
  std::vector<std::uint64_t> offsets = {gap};
  for (std::uint64_t length : lengths) offsets.push_back(offsets.back() + length);
  extent = offsets.back() + gap;
  return offsets;
}

/// Keys in [0, bins): uniform, or u^4 of a uniform u (most values in the first bins).
template <class K>
std::vector<K> random_keys(std::uint64_t n, std::uint64_t bins, bool skewed, std::uint64_t seed) {
  rng r(seed);
  std::vector<K> keys(n);
  for (auto& k : keys) {
    if (skewed) {
      const double u = r.unit<double>();
      k = static_cast<K>(
          std::min<std::uint64_t>(bins - 1, static_cast<std::uint64_t>(u * u * u * u * static_cast<double>(bins))));
    } else {
      k = static_cast<K>(r.below(bins));
    }
  }
  return keys;
}

/// The value classes of the batched sums of 16-bit floats (float16, bfloat16), as bit patterns.
enum class half_values {
  finite,      ///< random finite patterns: zeros, subnormals and every exponent (bfloat16 sums overflow float)
  moderate,    ///< random signs, magnitudes 2^-8 .. 2^8, random mantissas: sums that cancel and round
  tiny,        ///< signed zeros and subnormals only (segments of -0 alone sum to -0)
  specials,    ///< moderate values with +-Inf and NaNs (payloads kept) here and there
  overflowing  ///< the largest binade, mostly positive: bfloat16 sums overflow to Inf in float; float16's stay finite
};
inline constexpr std::array all_half_values = {half_values::finite, half_values::moderate, half_values::tiny,
                                               half_values::specials, half_values::overflowing};

inline std::string name(half_values v) {
  constexpr const char* names[] = {"finite", "moderate", "tiny", "specials", "overflowing"};
  return names[static_cast<int>(v)];
}

/// n 16-bit floats H of class v.
template <class H>
std::vector<H> half_batch_values(half_values v, std::uint64_t n, std::uint64_t seed) {
  constexpr bool binary16 = std::is_same_v<H, float16>;
  constexpr unsigned mantissa_bits = binary16 ? 10 : 7;
  constexpr std::uint32_t exponent_mask = binary16 ? 0x7c00 : 0x7f80;
  constexpr std::uint32_t mantissa_mask = (1u << mantissa_bits) - 1;
  constexpr std::uint32_t one = binary16 ? 0x3c00 : 0x3f80;
  rng r(seed);
  std::vector<H> x(n);
  for (auto& e : x) {
    const std::uint64_t random = r.next();
    std::uint32_t bits = random & 0xffffu;
    const std::uint32_t sign = bits & 0x8000u;
    const std::uint32_t mantissa = bits & mantissa_mask;
    const std::uint32_t moderate =
        sign | ((one - (8u << mantissa_bits)) + (((random >> 16) % 16) << mantissa_bits)) | mantissa;  // 2^-8 .. 2^8
    switch (v) {
      case half_values::finite:
        if ((bits & exponent_mask) == exponent_mask) bits ^= 0x4000u;
        break;
      case half_values::moderate:
        bits = moderate;
        break;
      case half_values::tiny:
        bits = sign | ((random >> 20) % 2 == 0 ? 0 : mantissa);
        break;
      case half_values::specials: {
        const std::uint64_t pick = (random >> 24) % 512;
        bits = pick == 0 ? sign | exponent_mask : pick == 1 ? sign | exponent_mask | mantissa | 1u : moderate;
        break;
      }
      case half_values::overflowing:
        bits = ((random >> 24) % 8 == 0 ? 0x8000u : 0u) | (exponent_mask - (1u << mantissa_bits)) | mantissa;
        break;
    }
    e = static_cast<H>(static_cast<std::uint16_t>(bits));
  }
  return x;
}

/// Line j of a matrix along `axis`, copied into a contiguous array.
template <class T>
std::vector<T> line_of(const matrix_view<T>& a, int axis, std::uint64_t j) {
  const bool row_major = a.layout == layout::row_major;
  const std::uint64_t length = axis == 0 ? a.rows : a.cols;
  std::vector<T> out(length);
  for (std::uint64_t e = 0; e < length; ++e) {
    const std::uint64_t i = axis == 0 ? e : j;  // row
    const std::uint64_t c = axis == 0 ? j : e;  // column
    out[e] = row_major ? a.data[i * a.leading_dimension + c] : a.data[c * a.leading_dimension + i];
  }
  return out;
}

/// Matrix shapes (rows, cols) around lanes, registers and leaves.
template <class T>
std::vector<std::pair<std::uint64_t, std::uint64_t>> matrix_shapes() {
  constexpr std::uint64_t W = order::lanes<T>;
  constexpr std::uint64_t L = order::leaf_size<T>;
  return {{1, 1}, {3, 70}, {W - 1, 33}, {W + 1, 17}, {L + 3, 19}, {2 * L + 1, 5}, {0, 4}, {4, 0}, {37, 129}};
}

/// matrix_shapes, plus columns of eight leaves (a deeper leaf tree) and more columns than one panel of the CPU's
/// strided kernel takes (a row read of 32 KiB: 8192 floats, 4096 doubles), whose last leaf has three rows.
template <class T>
std::vector<std::pair<std::uint64_t, std::uint64_t>> matrix_shapes_with_wide_panels() {
  constexpr std::uint64_t W = order::lanes<T>;
  constexpr std::uint64_t L = order::leaf_size<T>;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> shapes = matrix_shapes<T>();
  shapes.insert(shapes.end(), {{7 * L + 1, 3}, {W + 3, 16421}});
  return shapes;
}

}  // namespace detred::testing
