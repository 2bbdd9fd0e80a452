// SPDX-License-Identifier: BSD-3-Clause
// The front door's one routing step: validated options, then the backend the options name (backends.hpp) for an
// operator.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "backends.hpp"
#include "core/backend_seam.hpp"
#include "core/validate.hpp"
#include "detred/options.hpp"
#include "detred/order.hpp"

namespace detred {

/// Op over the operands x[0..n) on the backend the options name.
template <class Op>
typename Op::result run(const order::operands<Op>& x, std::uint64_t n, const options& opt) {
  validate(opt);
  typename Op::result result{};
  seam_for(opt.backend).reduce[index_in<Op, backend_operators>::value](&x, n, &result, opt);
  return result;
}

/// Op over one array.
template <class Op>
requires(Op::arity == 1) typename Op::result run(std::span<const typename Op::input> x, const options& opt) {
  return run<Op>(order::operands<Op>{{x.data()}, 0}, x.size(), opt);
}

/// Op over two arrays of the same length; `what` names the operation in the error.
template <class Op>
requires(Op::arity == 2) typename Op::result
    run(std::span<const typename Op::input> x, std::span<const typename Op::input> y, const options& opt,
        const char* what) {
  validate_lengths(x.size(), y.size(), what);
  return run<Op>(order::operands<Op>{{x.data(), y.data()}, 0}, x.size(), opt);
}

}  // namespace detred
