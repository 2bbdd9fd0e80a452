// SPDX-License-Identifier: BSD-3-Clause
// detred::sum for every element type: validate, route, and for integers check that the exact sum fits.
#include <cstdint>
#include <span>
#include <string>

#include "core/integer_results.hpp"
#include "core/operators.hpp"
#include "core/validate.hpp"
#include "detred/sum.hpp"
#include "route.hpp"

namespace detred {
namespace {

template <class T>
order::float_value_t<T> sum_floats(std::span<const T> x, const options& opt) {
  validate(opt);
  const mode m = checked_mode<T>(opt.mode, operation::sum, backend_of(opt), call_shape::array, "detred::sum");
  return with_operator<T, operation::sum>(m, [&]<class Op>() { return run<Op>(x, opt); });
}

template <class R, class I>
R sum_integers(std::span<const I> x, const options& opt) {
  return narrowed<R>(run<order::integer_sum_op<I>>(x, opt), "detred::sum");
}

}  // namespace

double sum(std::span<const double> x, const options& opt) { return sum_floats(x, opt); }
float sum(std::span<const float> x, const options& opt) { return sum_floats(x, opt); }
float sum(std::span<const float16> x, const options& opt) { return sum_floats(x, opt); }
float sum(std::span<const bfloat16> x, const options& opt) { return sum_floats(x, opt); }
std::int64_t sum(std::span<const std::int32_t> x, const options& opt) { return sum_integers<std::int64_t>(x, opt); }
std::int64_t sum(std::span<const std::int64_t> x, const options& opt) { return sum_integers<std::int64_t>(x, opt); }
std::uint64_t sum(std::span<const std::uint32_t> x, const options& opt) { return sum_integers<std::uint64_t>(x, opt); }
std::uint64_t sum(std::span<const std::uint64_t> x, const options& opt) { return sum_integers<std::uint64_t>(x, opt); }

}  // namespace detred
