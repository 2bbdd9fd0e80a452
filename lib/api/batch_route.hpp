// SPDX-License-Identifier: BSD-3-Clause
// The routing step of the batched entry points: the backend the options name (backends.hpp) for an operator over
// many lines.
#pragma once

#include <cstdint>

#include "backends.hpp"
#include "core/backend_seam.hpp"
#include "core/line_set.hpp"
#include "detred/options.hpp"
#include "detred/order.hpp"

namespace detred {

/// results[k] = Op over line k of `lines` (contiguous lines of the operands, which hold `extent` elements each).
template <class Op>
void run_lines(const order::operands<Op>& x, std::uint64_t extent, const line_set& lines, std::uint64_t count,
               typename Op::result* results, const options& opt) {
  static_assert(listed<Op, batch_entries>, "a backend's batched entries exist for batch_entries only");
  seam_for(opt.backend).reduce_lines[index_in<Op, backend_operators>::value](&x, extent, lines, count, results, opt);
}

/// results[t] = Op over x[t], x[t + stride], ... (`length` elements), for t < count.
template <class Op>
void run_strided_lines(const order::operands<Op>& x, std::uint64_t extent, std::uint64_t length, std::uint64_t stride,
                       std::uint64_t count, typename Op::result* results, const options& opt) {
  static_assert(listed<Op, batch_entries>, "a backend's batched entries exist for batch_entries only");
  seam_for(opt.backend)
      .reduce_strided_lines[index_in<Op, backend_operators>::value](&x, extent, length, stride, count, results, opt);
}

}  // namespace detred
