// SPDX-License-Identifier: BSD-3-Clause
// detred::asum and detred::nrm2: validate, pick the mode's operator, route.
#include <span>
#include <type_traits>

#include "core/operators.hpp"
#include "core/validate.hpp"
#include "detred/norms.hpp"
#include "exact_route.hpp"
#include "route.hpp"

namespace detred {
namespace {

template <template <class, class> class Op, class T>
T norm(std::span<const T> x, const options& opt, operation op, const char* what) {
  validate(opt);
  checked_mode<T>(opt.mode, op, backend_of(opt), call_shape::array, what);
  if constexpr (std::is_same_v<Op<T, order::plain_sums>, order::asum_op<T, order::plain_sums>>) {
    if (opt.mode == mode::exact) return exact_route::asum(x, opt, what);
  }
  return with_policy(opt.mode, [&]<class P>() { return run<Op<T, P>>(x, opt); });
}

}  // namespace

double asum(std::span<const double> x, const options& opt) {
  return norm<order::asum_op>(x, opt, operation::asum, "detred::asum");
}
float asum(std::span<const float> x, const options& opt) {
  return norm<order::asum_op>(x, opt, operation::asum, "detred::asum");
}
double nrm2(std::span<const double> x, const options& opt) {
  return norm<order::nrm2_op>(x, opt, operation::nrm2, "detred::nrm2");
}
float nrm2(std::span<const float> x, const options& opt) {
  return norm<order::nrm2_op>(x, opt, operation::nrm2, "detred::nrm2");
}

}  // namespace detred
