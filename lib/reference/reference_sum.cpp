// SPDX-License-Identifier: BSD-3-Clause
// detred::reference::sum: the reference engine with the sum operator of the requested mode.
#include <span>

#include "core/operators.hpp"
#include "core/validate.hpp"
#include "detred/reference.hpp"
#include "reference_engine.hpp"

namespace detred::reference {
namespace {

template <class T>
T sum_any(std::span<const T> x, mode m) {
  // The reference engine is the canonical order: its modes are tree and compensated (exact mode has no order).
  if (validated(m) == mode::exact) {
    throw error("detred::reference::sum: mode exact is not available (the reference runs the canonical order)");
  }
  return with_sum_operator<T>(m, [&]<class Op>() { return reduce<Op>(x); });
}

}  // namespace

double sum(std::span<const double> x, mode m) { return sum_any(x, m); }
float sum(std::span<const float> x, mode m) { return sum_any(x, m); }

}  // namespace detred::reference
