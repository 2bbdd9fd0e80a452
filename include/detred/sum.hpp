// detred::sum: the deterministic sum of a float or double array.
#pragma once

#include <span>

#include "detred/options.hpp"

namespace detred {

/// Sum of x in the canonical order. The result bits depend only on x.size() and the values of x (and the order
/// version): never on options.threads, options.isa, the pointer's alignment or the machine.
///
/// Special values: an empty span gives -0.0; any NaN input, or +Inf plus -Inf, gives the canonical quiet NaN;
/// a sum of finite values may overflow to +-Inf. Throws detred::error for invalid options.
double sum(std::span<const double> x, const options& opt = {});
float sum(std::span<const float> x, const options& opt = {});

}  // namespace detred
