// SPDX-License-Identifier: BSD-3-Clause
// detred::sum: the deterministic sum of an array of floating-point numbers or integers.
#pragma once

#include <cstdint>
#include <span>

#include "detred/number_types.hpp"
#include "detred/options.hpp"

// Exported from a shared libdetred, whose other symbols are hidden (cmake/DetredShared.cmake).
#pragma GCC visibility push(default)

namespace detred {

/// Sum of x in the canonical order. The result bits depend only on x.size() and the values of x (and the order
/// version): never on options.threads, options.isa, the pointer's alignment or the machine.
///
/// Special values: an empty span gives -0.0; any NaN input, or +Inf plus -Inf, gives the canonical quiet NaN;
/// a sum of finite values may overflow to +-Inf. Throws detred::error for invalid options.
double sum(std::span<const double> x, const options& opt = {});
float sum(std::span<const float> x, const options& opt = {});

/// 16-bit floats: each element is widened exactly to float, and the sum is float's, bit for bit:
/// sum(h) == sum(float values of h) in every mode. The result is float because a 16-bit accumulator would lose
/// most sums of more than a few hundred elements.
float sum(std::span<const float16> x, const options& opt = {});
float sum(std::span<const bfloat16> x, const options& opt = {});

/// Integers: the exact sum (a 128-bit accumulator, which no sum of up to 2^64 elements can overflow), returned as
/// int64 for signed and uint64 for unsigned elements. If the exact sum does not fit the result type, throws
/// detred::overflow_error (a detred::error) stating the exact sum; nothing wraps around. options.mode does not apply
/// (every mode is exact).
std::int64_t sum(std::span<const std::int32_t> x, const options& opt = {});
std::int64_t sum(std::span<const std::int64_t> x, const options& opt = {});
std::uint64_t sum(std::span<const std::uint32_t> x, const options& opt = {});
std::uint64_t sum(std::span<const std::uint64_t> x, const options& opt = {});

}  // namespace detred

#pragma GCC visibility pop
