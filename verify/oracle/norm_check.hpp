// SPDX-License-Identifier: BSD-3-Clause
// The oracle of nrm2: N = sqrt(sum x_i^2), from the exact sum of squares (exact_products.hpp).
#pragma once

#include "detred/options.hpp"
#include "oracle.hpp"

namespace detred::verify {

/// Checks an nrm2 result against bound<T>(bounded_op::nrm2, n, m). N is irrational in general, so it is enclosed
/// between its square roots rounded down and up at 4600 bits; `within bound` means the bound, evaluated at the
/// lower end and rounded downward, is at least the error from the farther end, rounded upward: a proof for this
/// input. `error` reports that upper end of the error. squares.kind: NaN for a NaN element (the result must be the
/// NaN), +Inf for an infinite one (+Inf).
assessment assess_nrm2(const exact_sums& squares, double result, mode m);
assessment assess_nrm2(const exact_sums& squares, float result, mode m);

/// sqrt(sum x_i^2) rounded once to nearest (4600 bits leave no room for a double rounding: a square root is a
/// midpoint between two doubles only when it is that midpoint exactly). +0 for no or zero elements.
double correctly_rounded_nrm2_f64(const exact_sums& squares);
float correctly_rounded_nrm2_f32(const exact_sums& squares);

}  // namespace detred::verify
