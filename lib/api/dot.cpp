// SPDX-License-Identifier: BSD-3-Clause
// detred::dot: validate, pick the mode's operator, route.
#include <span>

#include "core/operators.hpp"
#include "core/validate.hpp"
#include "detred/dot.hpp"
#include "route.hpp"

namespace detred {
namespace {

template <class T>
order::float_value_t<T> dot_any(std::span<const T> x, std::span<const T> y, const options& opt) {
  validate(opt);
  const mode m = checked_mode<T>(opt.mode, operation::dot, backend_of(opt), call_shape::array, "detred::dot");
  return with_operator<T, operation::dot>(m, [&]<class Op>() { return run<Op>(x, y, opt, "detred::dot"); });
}

}  // namespace

double dot(std::span<const double> x, std::span<const double> y, const options& opt) { return dot_any(x, y, opt); }
float dot(std::span<const float> x, std::span<const float> y, const options& opt) { return dot_any(x, y, opt); }
float dot(std::span<const float16> x, std::span<const float16> y, const options& opt) { return dot_any(x, y, opt); }
float dot(std::span<const bfloat16> x, std::span<const bfloat16> y, const options& opt) { return dot_any(x, y, opt); }

}  // namespace detred
