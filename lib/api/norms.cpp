// SPDX-License-Identifier: BSD-3-Clause
// detred::asum and detred::nrm2: detred::reduce of their operations (reduce.cpp).
#include <span>

#include "detred/norms.hpp"
#include "detred/reduce.hpp"

namespace detred {

double asum(std::span<const double> x, const options& opt) { return reduce<operation::asum>(x, opt); }
float asum(std::span<const float> x, const options& opt) { return reduce<operation::asum>(x, opt); }
double nrm2(std::span<const double> x, const options& opt) { return reduce<operation::nrm2>(x, opt); }
float nrm2(std::span<const float> x, const options& opt) { return reduce<operation::nrm2>(x, opt); }

}  // namespace detred
