// SPDX-License-Identifier: BSD-3-Clause
// The front door of the batched reductions (segments, and lines along a matrix axis), for an operation and element
// type known at compile time: the checks every batched call shares (options, the mode against the catalogue,
// lengths, the segments or the matrix, the empty-input rule), then the operator of (operation, mode, element type)
// over the lines on the backend the options name. The named batched calls (batched.cpp) call it directly;
// detred::reduce's batched cores (reduce_batched.cpp) after finding the operation and the type.
#pragma once

#include <cstdint>
#include <string>

#include "batch_route.hpp"
#include "core/batch_checks.hpp"
#include "core/call_checks.hpp"
#include "core/operators.hpp"
#include "core/validate.hpp"
#include "detred/batched.hpp"
#include "detred/reduce.hpp"

namespace detred {

const std::string& call_name(operation op);

/// results[k] = O over segment k of x (and of y, for an operation of two arrays), k < count.
template <operation O, class T>
void segments_front_door(const T* x, std::uint64_t n, const T* y, std::uint64_t ny, const segments& s, void* results,
                         std::uint64_t count, const options& opt) {
  validate(opt);
  const mode m = checked_mode<T>(opt.mode, O, backend_of(opt), call_shape::segments, call_name(O).c_str());
  if constexpr (catalogue::arity(O) == 2) validate_lengths(n, ny, call_name(O).c_str());
  validate_segments(s, n, count, to_string(O));
  if constexpr (catalogue::needs_an_element(O)) refuse_empty_segments(s, to_string(O));
  with_operator<T, O>(m, [&]<class Op>() {
    if constexpr (listed<Op, batch_entries>) {
      const order::operands<Op> operands = operands_of<Op>(x, y);
      run_lines<Op>(operands, n, {.offsets = s.offsets.data()}, count, static_cast<typename Op::result*>(results), opt);
    } else {
      // Not reached: checked_mode refuses every (operation, type, mode) whose batches the catalogue does not list.
      throw error(call_name(O) + ": no batched form of this operator");
    }
  });
}

/// results[j] = O over line j of `a` along `axis` (0: each column, 1: each row), j < count.
template <operation O, class T>
void axis_front_door(const matrix_view<T>& a, int axis, void* results, std::uint64_t count, const options& opt) {
  validate(opt);
  const mode m = checked_mode<T>(opt.mode, O, backend_of(opt), call_shape::axis, call_name(O).c_str());
  const axis_lines l = lines_of(a, axis, count, to_string(O));
  if constexpr (catalogue::needs_an_element(O)) {
    if (l.length == 0 && l.count != 0) {
      throw error(call_name(O) + ": the lines along axis " + std::to_string(axis) +
                  " are empty, and an empty array has no " + to_string(O));
    }
  }
  with_operator<T, O>(m, [&]<class Op>() {
    if constexpr (listed<Op, batch_entries> && Op::arity == 1) {
      auto* out = static_cast<typename Op::result*>(results);
      const order::operands<Op> x{{a.data}, 0};
      if (l.contiguous) {
        run_lines<Op>(x, extent_of(a), {.stride = l.stride, .length = l.length}, l.count, out, opt);
      } else {
        run_strided_lines<Op>(x, extent_of(a), l.length, l.stride, l.count, out, opt);
      }
    } else {
      throw error(call_name(O) + ": no batched form of this operator");  // not reached, as above
    }
  });
}

}  // namespace detred
