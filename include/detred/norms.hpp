// SPDX-License-Identifier: BSD-3-Clause
// detred::asum and detred::nrm2: the 1-norm and the 2-norm of an array.
#pragma once

#include <span>

#include "detred/options.hpp"

// Exported from a shared libdetred, whose other symbols are hidden (cmake/DetredShared.cmake).
#pragma GCC visibility push(default)

namespace detred {

/// sum |x_i| in the canonical order (tree or compensated mode): detred::sum of the magnitudes, bit for bit. An empty
/// input gives -0.0 (the sum's identity); NaN gives the canonical NaN; the sum may overflow to +Inf.
double asum(std::span<const double> x, const options& opt = {});
float asum(std::span<const float> x, const options& opt = {});

/// sqrt(sum x_i^2), without overflow or underflow in between: each square is scaled by a fixed power of two chosen by
/// the element's own magnitude (Blue's algorithm, as LAPACK's dnrm2), so nrm2({1e200, 1e200}) and
/// nrm2({1e-200, 1e-200}) are right, and the scaling never depends on the partition. Empty gives +0.0; NaN gives the
/// canonical NaN; an infinite element gives +Inf. Modes as detred::sum (compensated: each square's rounding error
/// is kept too).
double nrm2(std::span<const double> x, const options& opt = {});
float nrm2(std::span<const float> x, const options& opt = {});

}  // namespace detred

#pragma GCC visibility pop
