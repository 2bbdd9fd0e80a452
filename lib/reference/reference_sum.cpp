// SPDX-License-Identifier: BSD-3-Clause
// detred::reference::sum: the reference engine with the sum operator of the requested mode (exact mode's: every
// term added to one superaccumulator in index order, rounded once).
#include <span>

#include "core/operators.hpp"
#include "core/validate.hpp"
#include "detred/reference.hpp"
#include "reference_engine.hpp"

namespace detred::reference {
namespace {

template <class T>
T sum_any(std::span<const T> x, mode m) {
  return with_operator<T, operation::sum>(validated(m), [&]<class Op>() { return reduce<Op>(x); });
}

}  // namespace

double sum(std::span<const double> x, const options& opt) { return sum_any(x, opt.mode); }
float sum(std::span<const float> x, const options& opt) { return sum_any(x, opt.mode); }

}  // namespace detred::reference
