// SPDX-License-Identifier: BSD-3-Clause
// detred::stats: the mode checked against the catalogue (tree only), then route.
#include <span>
#include <string>

#include "core/operators.hpp"
#include "core/validate.hpp"
#include "detred/stats.hpp"
#include "route.hpp"

namespace detred {
namespace {

template <class T>
statistics<T> stats_any(std::span<const T> x, const options& opt) {
  validate(opt);
  checked_mode<T>(opt.mode, operation::stats, backend_of(opt), call_shape::array, "detred::stats");
  return run<order::moments_op<T>>(x, opt);
}

}  // namespace

statistics<double> stats(std::span<const double> x, const options& opt) { return stats_any(x, opt); }
statistics<float> stats(std::span<const float> x, const options& opt) { return stats_any(x, opt); }

}  // namespace detred
