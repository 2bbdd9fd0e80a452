// SPDX-License-Identifier: BSD-3-Clause
// detred::stats: detred::reduce of operation::stats (reduce.cpp; the catalogue gives it tree mode only).
#include <span>

#include "detred/reduce.hpp"
#include "detred/stats.hpp"

namespace detred {

statistics<double> stats(std::span<const double> x, const options& opt) { return reduce<operation::stats>(x, opt); }
statistics<float> stats(std::span<const float> x, const options& opt) { return reduce<operation::stats>(x, opt); }

}  // namespace detred
