// SPDX-License-Identifier: BSD-3-Clause
// detred::reduce (detred/reduce.hpp), the one front door of the single-array reductions: the checks every call
// shares (options, the mode against the catalogue, lengths, the empty-input rule), then the operator of (operation,
// mode, element type) on the backend the options name. The named calls (sum.cpp, dot.cpp, ...) come here.
#include <cstdint>
#include <span>
#include <string>

#include "core/integer_results.hpp"
#include "core/operators.hpp"
#include "core/validate.hpp"
#include "detred/reduce.hpp"
#include "route.hpp"

namespace detred {

void reduce(operation op, element_type t, const void* x, std::uint64_t n, const void* y, std::uint64_t ny, void* result,
            const options& opt) {
  validate(opt);
  if (catalogue::is_scan(op) || !catalogue::has(op, t)) {
    throw error(std::string("detred::reduce: ") + to_string(t) + " elements have no " + to_string(op) +
                (catalogue::is_scan(op) ? " (a scan: detred/scan.hpp)" : ""));
  }
  const std::string what = std::string("detred::") + to_string(op);
  const mode m = checked_mode(opt.mode, op, t, backend_of(opt), call_shape::array, what.c_str());
  if (catalogue::arity(op) == 2) validate_lengths(n, ny, what.c_str());
  if (n == 0 && catalogue::needs_an_element(op)) {
    throw error(std::string(to_string(op)) + ": an empty array has no " + to_string(op) +
                " (it needs at least 1 element)");
  }
  with_type(t, [&]<class T>() {
    with_operator<T>(op, m, [&]<class Op>() {
      order::operands<Op> operands{};
      operands.data[0] = static_cast<const T*>(x);
      if constexpr (Op::arity == 2) operands.data[1] = static_cast<const T*>(y);
      if constexpr (std::is_same_v<Op, order::integer_sum_op<T>>) {
        using R = std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>;
        *static_cast<R*>(result) = narrowed<R>(run<Op>(operands, n, opt), what.c_str());
      } else {
        *static_cast<typename Op::result*>(result) = run<Op>(operands, n, opt);
      }
    });
  });
}

}  // namespace detred
