// SPDX-License-Identifier: BSD-3-Clause
// detred::asum and detred::nrm2: the front door of their operations (front_door.hpp).
#include <span>

#include "detred/norms.hpp"
#include "front_door.hpp"

namespace detred {

double asum(std::span<const double> x, const options& opt) { return front_door<operation::asum>(x, opt); }
float asum(std::span<const float> x, const options& opt) { return front_door<operation::asum>(x, opt); }
double nrm2(std::span<const double> x, const options& opt) { return front_door<operation::nrm2>(x, opt); }
float nrm2(std::span<const float> x, const options& opt) { return front_door<operation::nrm2>(x, opt); }

}  // namespace detred
