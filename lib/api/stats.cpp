// SPDX-License-Identifier: BSD-3-Clause
// detred::stats: tree mode only, then route.
#include <span>
#include <string>

#include "detred/stats.hpp"
#include "operators.hpp"
#include "route.hpp"

namespace detred {
namespace {

template <class T>
statistics<T> stats_any(std::span<const T> x, const options& opt) {
  validate(opt);
  if (opt.mode != mode::tree) {
    throw error(std::string("detred::stats: mode ") + to_string(opt.mode) +
                " is not available (stats has tree mode only)");
  }
  return run<order::moments_op<T>>(x, opt);
}

}  // namespace

statistics<double> stats(std::span<const double> x, const options& opt) { return stats_any(x, opt); }
statistics<float> stats(std::span<const float> x, const options& opt) { return stats_any(x, opt); }

}  // namespace detred
