// SPDX-License-Identifier: BSD-3-Clause
// The routing step of the batched entry points: the CPU driver or the CUDA backend for an operator over many lines.
#pragma once

#include <cstdint>

#include "cpu/cpu_backend.hpp"
#include "cuda/cuda_backend.hpp"
#include "detred/options.hpp"
#include "detred/order.hpp"

namespace detred {

/// results[k] = Op over line k of `lines` (contiguous lines of the operands, which hold `extent` elements each).
template <class Op>
void run_lines(const order::operands<Op>& x, std::uint64_t extent, const cpu::line_set& lines, std::uint64_t count,
               typename Op::result* results, const options& opt) {
  if (opt.backend == backend::cuda) return cuda_backend::reduce_lines_host<Op>(x, extent, lines, count, results);
  cpu::reduce_lines<Op>(x, lines, count, results, {.threads = opt.threads, .instruction_set = opt.isa});
}

/// results[t] = Op over x[t], x[t + stride], ... (`length` elements), for t < count.
template <class Op>
void run_strided_lines(const order::operands<Op>& x, std::uint64_t extent, std::uint64_t length, std::uint64_t stride,
                       std::uint64_t count, typename Op::result* results, const options& opt) {
  if (opt.backend == backend::cuda) {
    return cuda_backend::reduce_strided_lines_host<Op>(x, extent, length, stride, count, results);
  }
  cpu::reduce_strided_lines<Op>(x, length, stride, count, results,
                                {.threads = opt.threads, .instruction_set = opt.isa});
}

}  // namespace detred
