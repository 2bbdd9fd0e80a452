// SPDX-License-Identifier: BSD-3-Clause
// The scan engines: the CPU driver of the canonical scan order (threads over leaves, SIMD kernels per instruction
// set), the exact integer scans, and the CPU backend's scan calls built on them. The front door (scan_api.cpp)
// validates arguments and reaches the calls through the backend seam; the tests call the engines directly to force
// the threaded path on small inputs.
#pragma once

#include <cstdint>
#include <span>

#include "core/backend_seam.hpp"
#include "cpu/cpu_backend.hpp"
#include "detred/batched.hpp"
#include "detred/options.hpp"
#include "detred/order/scan.hpp"

namespace detred::cpu {

/// y[i] = output i of the scan of x[0..n) with operator Op (order::scan_op of a floating-point type and a mode):
/// inclusive, or exclusive (y[0] the identity, y[i] the inclusive output i - 1). y may equal x. Threads own runs
/// of leaves in two passes (leaf totals; then each leaf's outputs from its offset), so the bits never depend on
/// how.threads or how.instruction_set. Inputs below how.parallel_threshold_bytes run on one thread, in one pass.
/// `before`: the totals of the leaves before x when x is a piece of a larger array that starts at a leaf boundary
/// (scan_totals of the earlier pieces, in order); the outputs are then those of the whole array.
template <class Op>
void scan(const typename Op::input* x, std::uint64_t n, typename Op::result* y, bool exclusive, const run_options& how,
          std::span<const typename Op::state> before = {});

/// totals[b] = the total of leaf b of x[0..n) (order::leaf_lane_offsets), for every leaf: pass 1 of the scan.
template <class Op>
void scan_totals(const typename Op::input* x, std::uint64_t n, typename Op::state* totals, const run_options& how);

/// The exact integer scan: R is int64 for signed I, uint64 for unsigned. Throws detred::overflow_error for the first
/// output that does not fit R. y may equal x when I is R.
template <class I, class R>
void integer_scan(const I* x, std::uint64_t n, R* y, bool exclusive);

/// The CPU backend's scans, its seam's `scans` (lib/cpu/seam.cpp; defined in cpu_scans.cpp), on arguments the front
/// door has checked: one array (the driver above or the integer scan), every segment as the one-array call on it,
/// and every line of a matrix axis (outputs packed line after line). Instantiated for DETRED_EACH_SCAN_TYPE, the axis
/// for float and double.
struct backend_scans {
  DETRED_BACKEND_SCAN_CALLS()
};

}  // namespace detred::cpu
