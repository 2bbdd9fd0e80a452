// SPDX-License-Identifier: BSD-3-Clause
// The seam between the host library and the CUDA backend. lib/cuda implements it when CUDA is built;
// unavailable.cpp implements it otherwise, so that backend::cuda fails with a clear message.
#pragma once

#include <cstdint>
#include <span>

#include "cpu/cpu_backend.hpp"
#include "detred/options.hpp"
#include "detred/order.hpp"
#include "exact_enqueue.hpp"

namespace detred::cuda_backend {

/// True if the CUDA backend is compiled in and a device is usable.
bool available();

/// Copies host operands to the current device, reduces them there with Op, returns the result. Device or managed
/// memory is reduced in place. Throws detred::error. Defined for every operator in all_operators.
template <class Op>
typename Op::result reduce_host(const order::operands<Op>& x, std::uint64_t n);

/// Exact mode: the correctly rounded sum, |x| sum or dot product (y) of n elements of T = double or float, in host
/// or device memory, on the current device.
template <class T>
T exact_host(cuda::detail::exact_kind kind, const T* x, const T* y, std::uint64_t n);

/// The batched forms (the lines of cpu::line_set, and strided lines): host operands of `extent` elements each are
/// copied to the current device, every line is reduced there, and the results are copied back.
template <class Op>
void reduce_lines_host(const order::operands<Op>& x, std::uint64_t extent, const cpu::line_set& lines,
                       std::uint64_t count, typename Op::result* results);
template <class Op>
void reduce_strided_lines_host(const order::operands<Op>& x, std::uint64_t extent, std::uint64_t length,
                               std::uint64_t stride, std::uint64_t count, typename Op::result* results);

}  // namespace detred::cuda_backend
