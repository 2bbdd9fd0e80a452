// SPDX-License-Identifier: BSD-3-Clause
// The seam between the host library and the CUDA backend. lib/cuda implements it when CUDA is built;
// unavailable.cpp implements it otherwise, so that backend::cuda fails with a clear message.
#pragma once

#include <cstdint>
#include <span>

#include "core/backend_seam.hpp"
#include "core/line_set.hpp"
#include "detred/batched.hpp"
#include "detred/options.hpp"
#include "detred/order.hpp"

namespace detred::cuda_backend {

/// The CUDA backend's entry points for the front door (lib/core/backend_seam.hpp): the reductions of host (or
/// device) operands below, on the current device. Without CUDA (unavailable.cpp) every entry throws.
const backend_seam& seam();

/// True if the CUDA backend is compiled in and a device is usable.
bool available();

/// Copies host operands to the current device, reduces them there with Op on opt.stream and opt.workspace (or the
/// library's for the device and that stream), returns the result. Device or managed memory is reduced in place.
/// Throws detred::error. Defined for every operator in backend_operators.
template <class Op>
typename Op::result reduce_host(const order::operands<Op>& x, std::uint64_t n, const options& opt);

/// The batched forms (the lines of line_set, and strided lines): host operands of `extent` elements each are
/// copied to the current device, every line is reduced there, and the results are copied back.
template <class Op>
void reduce_lines_host(const order::operands<Op>& x, std::uint64_t extent, const line_set& lines, std::uint64_t count,
                       typename Op::result* results);
template <class Op>
void reduce_strided_lines_host(const order::operands<Op>& x, std::uint64_t extent, std::uint64_t length,
                               std::uint64_t stride, std::uint64_t count, typename Op::result* results);

/// The scans of host arrays with backend::cuda (reached through the seam from lib/scan/scan_api.cpp, which has
/// checked the arguments): x, and the offsets of s, are copied to the current device, scanned there by
/// detred::cuda's synchronous call with opt (mode, stream, workspace), and the outputs copied back into y (which may
/// be x). Throws detred::error, and detred::overflow_error for an integer output past its type. Instantiated for the
/// types of detred/scan.hpp.
struct staged_scans {
  DETRED_BACKEND_SCAN_CALLS()
};

/// The typed calls above as lib/core/backend_seam.hpp's seam_of<Impl> takes them (on the current device; the
/// batched forms make their own device buffers).
struct entry_points {
  template <class Op>
  static typename Op::result reduce(const order::operands<Op>& x, std::uint64_t n, const options& opt) {
    return reduce_host<Op>(x, n, opt);
  }
  template <class Op>
  static void reduce_lines(const order::operands<Op>& x, std::uint64_t extent, const line_set& lines,
                           std::uint64_t count, typename Op::result* results, const options&) {
    reduce_lines_host<Op>(x, extent, lines, count, results);
  }
  template <class Op>
  static void reduce_strided_lines(const order::operands<Op>& x, std::uint64_t extent, std::uint64_t length,
                                   std::uint64_t stride, std::uint64_t count, typename Op::result* results,
                                   const options&) {
    reduce_strided_lines_host<Op>(x, extent, length, stride, count, results);
  }
  using scans = staged_scans;
};

}  // namespace detred::cuda_backend
