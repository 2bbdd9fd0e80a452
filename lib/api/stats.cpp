// SPDX-License-Identifier: BSD-3-Clause
// detred::stats: the front door of operation::stats (front_door.hpp; the catalogue gives it tree mode only).
#include <span>

#include "detred/stats.hpp"
#include "front_door.hpp"

namespace detred {

statistics<double> stats(std::span<const double> x, const options& opt) { return front_door<operation::stats>(x, opt); }
statistics<float> stats(std::span<const float> x, const options& opt) { return front_door<operation::stats>(x, opt); }

}  // namespace detred
