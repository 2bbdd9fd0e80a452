// SPDX-License-Identifier: BSD-3-Clause
// detred::min, max, argmin, argmax: selections with rules that make the answer unique on every backend.
//
// Rules (docs/operations.md compares them with NumPy's):
//   - NaN propagates: min and max return the canonical NaN if any element is NaN (as numpy.min); argmin and argmax
//     return the index of the first NaN (as numpy.argmin).
//   - -0.0 is smaller than +0.0: min({+0.0, -0.0}) is -0.0 and max is +0.0 whatever their order (NumPy returns
//     whichever comes first).
//   - ties go to the lowest index: argmin returns the first element equal, bit for bit, to the minimum.
//   - an empty input has no minimum: detred::error (NumPy raises ValueError).
// Selections round nothing, so options.mode does not apply; options.threads, isa and backend never change a bit.
#pragma once

#include <cstdint>
#include <span>

#include "detred/options.hpp"

// Exported from a shared libdetred, whose other symbols are hidden (cmake/DetredShared.cmake).
#pragma GCC visibility push(default)

namespace detred {

double min(std::span<const double> x, const options& opt = {});
float min(std::span<const float> x, const options& opt = {});
std::int32_t min(std::span<const std::int32_t> x, const options& opt = {});
std::int64_t min(std::span<const std::int64_t> x, const options& opt = {});
std::uint32_t min(std::span<const std::uint32_t> x, const options& opt = {});
std::uint64_t min(std::span<const std::uint64_t> x, const options& opt = {});

double max(std::span<const double> x, const options& opt = {});
float max(std::span<const float> x, const options& opt = {});
std::int32_t max(std::span<const std::int32_t> x, const options& opt = {});
std::int64_t max(std::span<const std::int64_t> x, const options& opt = {});
std::uint32_t max(std::span<const std::uint32_t> x, const options& opt = {});
std::uint64_t max(std::span<const std::uint64_t> x, const options& opt = {});

/// The index of the minimum (the first NaN, else the first element equal to the minimum).
std::uint64_t argmin(std::span<const double> x, const options& opt = {});
std::uint64_t argmin(std::span<const float> x, const options& opt = {});
std::uint64_t argmin(std::span<const std::int32_t> x, const options& opt = {});
std::uint64_t argmin(std::span<const std::int64_t> x, const options& opt = {});
std::uint64_t argmin(std::span<const std::uint32_t> x, const options& opt = {});
std::uint64_t argmin(std::span<const std::uint64_t> x, const options& opt = {});

/// The index of the maximum (the first NaN, else the first element equal to the maximum).
std::uint64_t argmax(std::span<const double> x, const options& opt = {});
std::uint64_t argmax(std::span<const float> x, const options& opt = {});
std::uint64_t argmax(std::span<const std::int32_t> x, const options& opt = {});
std::uint64_t argmax(std::span<const std::int64_t> x, const options& opt = {});
std::uint64_t argmax(std::span<const std::uint32_t> x, const options& opt = {});
std::uint64_t argmax(std::span<const std::uint64_t> x, const options& opt = {});

}  // namespace detred

#pragma GCC visibility pop
