// SPDX-License-Identifier: BSD-3-Clause
// detred::dot: the deterministic dot product.
#pragma once

#include <span>

#include "detred/number_types.hpp"
#include "detred/options.hpp"

// Exported from a shared libdetred, whose other symbols are hidden (cmake/DetredShared.cmake).
#pragma GCC visibility push(default)

namespace detred {

/// sum x_i * y_i in the canonical order of x.size() elements: each lane adds the rounded products of its elements
/// (tree mode) or carries an error-free (sum, correction) pair with each product's rounding error from one fma
/// (compensated mode, Ogita, Rump and Oishi's Dot2). Bits depend only on n and the values.
///
/// x and y must have the same length (detred::error otherwise). Special values as detred::sum: an empty input gives
/// -0.0, NaN (or Inf * 0, or Inf - Inf) gives the canonical NaN, products and sums may overflow to +-Inf.
double dot(std::span<const double> x, std::span<const double> y, const options& opt = {});
float dot(std::span<const float> x, std::span<const float> y, const options& opt = {});
/// 16-bit floats are widened exactly to float and dotted in float (as detred::sum does).
float dot(std::span<const float16> x, std::span<const float16> y, const options& opt = {});
float dot(std::span<const bfloat16> x, std::span<const bfloat16> y, const options& opt = {});

}  // namespace detred

#pragma GCC visibility pop
