// SPDX-License-Identifier: BSD-3-Clause
// The front door of the single-array reductions, for an operation and element type known at compile time: the checks
// every call shares (options, the mode against the catalogue, lengths, the empty-input rule), then the operator of
// (operation, mode, element type) on the backend the options name. The named calls (sum.cpp, dot.cpp, ...) call it
// directly; detred::reduce's type-erased core (reduce.cpp) after finding the operation and the type.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>

#include "core/call_checks.hpp"
#include "core/integer_results.hpp"
#include "core/operators.hpp"
#include "core/validate.hpp"
#include "detred/reduce.hpp"
#include "route.hpp"

namespace detred {

/// "detred::sum", "detred::dot", ...: how errors name the call (made once, read only on the paths that need it).
const std::string& call_name(operation op);

/// O over the n elements at x (and the ny at y for an operation of two arrays), its result written to `result` (a
/// result_t<O, T>). Throws detred::error.
template <operation O, class T>
void reduce_typed(const T* x, std::uint64_t n, const T* y, std::uint64_t ny, void* result, const options& opt) {
  validate(opt);
  const mode m = checked_call<O, T>(opt.mode, backend_of(opt), n, ny, call_name(O).c_str());
  with_operator<T, O>(m, [&]<class Op>() {
    const order::operands<Op> operands = operands_of<Op>(x, y);
    if constexpr (std::is_same_v<Op, order::integer_sum_op<T>>) {
      using R = result_t<O, T>;
      *static_cast<R*>(result) = narrowed<R>(run<Op>(operands, n, opt), call_name(O).c_str());
    } else {
      *static_cast<typename Op::result*>(result) = run<Op>(operands, n, opt);
    }
  });
}

/// O over one array, or two.
template <operation O, class T>
result_t<O, T> front_door(std::span<const T> x, const options& opt) {
  result_t<O, T> r{};
  reduce_typed<O, T>(x.data(), x.size(), nullptr, 0, &r, opt);
  return r;
}
template <operation O, class T>
result_t<O, T> front_door(std::span<const T> x, std::span<const T> y, const options& opt) {
  result_t<O, T> r{};
  reduce_typed<O, T>(x.data(), x.size(), y.data(), y.size(), &r, opt);
  return r;
}

}  // namespace detred
