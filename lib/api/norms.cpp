// SPDX-License-Identifier: BSD-3-Clause
// detred::asum and detred::nrm2: validate, pick the mode's operator, route.
#include <span>

#include "core/operators.hpp"
#include "core/validate.hpp"
#include "detred/norms.hpp"
#include "route.hpp"

namespace detred {
namespace {

template <operation O, class T>
T norm(std::span<const T> x, const options& opt, const char* what) {
  validate(opt);
  const mode m = checked_mode<T>(opt.mode, O, backend_of(opt), call_shape::array, what);
  return with_operator<T, O>(m, [&]<class Op>() { return run<Op>(x, opt); });
}

}  // namespace

double asum(std::span<const double> x, const options& opt) { return norm<operation::asum>(x, opt, "detred::asum"); }
float asum(std::span<const float> x, const options& opt) { return norm<operation::asum>(x, opt, "detred::asum"); }
double nrm2(std::span<const double> x, const options& opt) { return norm<operation::nrm2>(x, opt, "detred::nrm2"); }
float nrm2(std::span<const float> x, const options& opt) { return norm<operation::nrm2>(x, opt, "detred::nrm2"); }

}  // namespace detred
