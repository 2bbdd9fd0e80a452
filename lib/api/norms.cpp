// SPDX-License-Identifier: BSD-3-Clause
// detred::asum and detred::nrm2: validate, pick the mode's operator, route.
#include <span>
#include <type_traits>

#include "detred/norms.hpp"
#include "exact_route.hpp"
#include "operators.hpp"
#include "route.hpp"

namespace detred {
namespace {

template <template <class, class> class Op, class T>
T norm(std::span<const T> x, const options& opt) {
  validate(opt);
  if (opt.mode == mode::exact) {
    if constexpr (std::is_same_v<Op<T, order::plain_sums>, order::asum_op<T, order::plain_sums>>) {
      return exact_route::asum(x, opt, "detred::asum");
    } else {
      without_exact(opt.mode, "detred::nrm2");
    }
  }
  return with_policy(opt.mode, [&]<class P>() { return run<Op<T, P>>(x, opt); });
}

}  // namespace

double asum(std::span<const double> x, const options& opt) { return norm<order::asum_op>(x, opt); }
float asum(std::span<const float> x, const options& opt) { return norm<order::asum_op>(x, opt); }
double nrm2(std::span<const double> x, const options& opt) { return norm<order::nrm2_op>(x, opt); }
float nrm2(std::span<const float> x, const options& opt) { return norm<order::nrm2_op>(x, opt); }

}  // namespace detred
