// SPDX-License-Identifier: BSD-3-Clause
// The CUDA scans (detred/cuda_scan.hpp): the checks every scan shares (lib/scan/scan_checks.hpp), then scan.cu's
// enqueue functions; the synchronous calls wait for their stream, and the integer ones read back the first output
// that does not fit.
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>

#include <cuda_runtime_api.h>

#include "backend_instances.hpp"
#include "call_workspace.hpp"
#include "core/batch_checks.hpp"
#include "core/integer_results.hpp"
#include "core/scan_types.hpp"
#include "core/validate.hpp"
#include "cuda_backend.hpp"
#include "cuda_check.hpp"
#include "detred/cuda.hpp"
#include "device_copy.hpp"
#include "pending_errors.hpp"
#include "scan/scan_checks.hpp"
#include "scan_enqueue.hpp"
#include "workspace_state.hpp"

namespace detred::cuda {
namespace {

using detail::check;

const char* name_of(bool exclusive) { return exclusive ? "detred::cuda::exclusive_cumsum" : "detred::cuda::cumsum"; }

void check_device(workspace& ws) { detail::workspace_access::of(ws).check_current_device(); }

void wait(stream_t stream) { check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (scan)"); }

/// Calls f with the scan operator of In in mode m (tree or compensated; exact refused with the catalogue's words).
template <class In, class F>
void with_scan_op(mode m, bool exclusive, const char* what, F&& f, call_shape shape = call_shape::array) {
  checked_mode<In>(m, exclusive ? operation::exclusive_cumsum : operation::cumsum, backend::cuda, shape, what);
  if (m == mode::compensated) {
    f.template operator()<order::scan_op<In, order::compensated_sums>>();
  } else {
    f.template operator()<order::scan_op<In, order::plain_sums>>();
  }
}

template <class In, class Out>
void float_scan(std::span<const In> x, std::span<Out> y, workspace& ws, mode m, stream_t stream, bool exclusive) {
  const char* what = name_of(exclusive);
  with_scan_op<In>(m, exclusive, what, [&]<class Op>() {
    check_device(ws);
    scan_checks::check_buffers(x.data(), x.size(), y.data(), y.size(), what);
    detail::enqueue_scan<Op>(x.data(), x.size(), y.data(), exclusive, ws, nullptr, stream);
  });
}

/// The segments' count, after the checks that need no offset (offsets in device memory are not read).
std::uint64_t segment_count(const segments& s, const char* what) {
  if (s.offsets.empty()) {
    throw error(std::string(what) + ": the segment offsets are empty (k segments need k + 1 offsets)");
  }
  if (s.offsets.data() == nullptr) throw error(std::string(what) + ": the segment offsets are null");
  return s.offsets.size() - 1;
}

template <class In, class Out>
void float_segments(std::span<const In> x, const segments& s, std::span<Out> y, workspace& ws, mode m, stream_t stream,
                    bool exclusive) {
  const char* what = name_of(exclusive);
  with_scan_op<In>(m, exclusive, what, [&]<class Op>() {
    check_device(ws);
    scan_checks::check_buffers(x.data(), x.size(), y.data(), y.size(), what);
    const std::uint64_t count = segment_count(s, what);
    detail::enqueue_line_scans<Op>(x.data(), {.offsets = s.offsets.data()}, count, x.size(), y.data(), exclusive, ws,
                                   nullptr, stream);
  });
}

/// Integer scans: enqueued with the overflow record of the workspace's pending errors (pending_errors.hpp); the
/// synchronous calls then wait and refuse the first output that does not fit, the _async ones leave it to
/// synchronize.
template <class In, class Out, class Enqueue>
void integer_scan(workspace& ws, stream_t stream, bool wait_for_it, Enqueue&& enqueue) {
  check_device(ws);
  auto& st = detail::workspace_access::of(ws);
  enqueue.template operator()<detail::integer_scan_op<In, Out>>(&st.pending->overflow);
  if (wait_for_it) detail::throw_pending(ws, stream);
}

template <class In, class Out>
void integer_array(std::span<const In> x, std::span<Out> y, workspace& ws, stream_t stream, bool exclusive,
                   bool wait_for_it) {
  const char* what = name_of(exclusive);
  scan_checks::check_buffers(x.data(), x.size(), y.data(), y.size(), what);
  integer_scan<In, Out>(ws, stream, wait_for_it, [&]<class Op>(detail::overflow_record* record) {
    detail::enqueue_scan<Op>(x.data(), x.size(), y.data(), exclusive, ws, record, stream);
  });
}

template <class In, class Out>
void integer_segments(std::span<const In> x, const segments& s, std::span<Out> y, workspace& ws, stream_t stream,
                      bool exclusive, bool wait_for_it) {
  const char* what = name_of(exclusive);
  scan_checks::check_buffers(x.data(), x.size(), y.data(), y.size(), what);
  const std::uint64_t count = segment_count(s, what);
  integer_scan<In, Out>(ws, stream, wait_for_it, [&]<class Op>(detail::overflow_record* record) {
    detail::enqueue_line_scans<Op>(x.data(), {.offsets = s.offsets.data()}, count, x.size(), y.data(), exclusive, ws,
                                   record, stream);
  });
}

template <class T>
void axis_scan(matrix_view<T> a, int axis, std::span<T> y, workspace& ws, mode m, stream_t stream) {
  const char* what = "detred::cuda::cumsum";
  with_scan_op<T>(m, false, what, [&]<class Op>() {
    check_device(ws);
    const axis_lines lines = lines_of(a, axis, axis == 0 ? a.cols : a.rows, "cuda::cumsum");
    scan_checks::check_axis_output(a, y.data(), y.size(), what);
    if (lines.contiguous) {
      detail::enqueue_line_scans<Op>(a.data,
                                     {.stride = lines.stride, .out_stride = lines.length, .length = lines.length},
                                     lines.count, extent_of(a), y.data(), false, ws, nullptr, stream);
    } else {
      detail::enqueue_strided_line_scans<Op>(a.data, lines.length, lines.stride, lines.count, y.data(), ws, stream);
    }
  });
}

/// The pieces of one array (detred::cuda::cumsum_totals, cumsum_piece): the host calls' checks, then scan_pieces.cu.
template <class In, class T>
void piece_totals(std::span<const In> piece, std::span<scan_total<T>> totals, workspace& ws, mode m, stream_t stream) {
  const char* what = "detred::cuda::cumsum_totals";
  with_scan_op<In>(
      m, false, what,
      [&]<class Op>() {
        check_device(ws);
        scan_checks::check_totals(piece.size(), order::leaf_count<T>(piece.size()), totals.size(), what);
        scan_checks::check_overlap(piece.data(), piece.size(), totals.data(), totals.size(), what);
        detail::enqueue_scan_totals<Op>(piece.data(), piece.size(), totals.data(), stream);
      },
      call_shape::partial_state);
}

template <class In, class T>
void piece_outputs(std::span<const In> piece, std::span<const scan_total<T>> before, std::span<T> y, workspace& ws,
                   mode m, stream_t stream) {
  const char* what = "detred::cuda::cumsum_piece";
  with_scan_op<In>(
      m, false, what,
      [&]<class Op>() {
        check_device(ws);
        scan_checks::check_buffers(piece.data(), piece.size(), y.data(), y.size(), what);
        // The totals are read while y is written, by other blocks: they may not share memory.
        scan_checks::check_overlap(before.data(), before.size(), y.data(), y.size(), what);
        detail::enqueue_scan_piece<Op>(piece.data(), piece.size(), before.data(), before.size(), y.data(), ws, stream);
      },
      call_shape::partial_state);
}

}  // namespace

// Each call holds its workspace (the caller's or the library's: call_workspace.hpp) for its host side.
#define DETRED_HELD(call)             \
  {                                   \
    detail::call_workspace held(opt); \
    workspace& ws = held.get();       \
    call;                             \
  }

// Each call with or without segments, for either kind of element: the floating-point scans in opt.mode, waited for
// by the synchronous calls; the integer scans exact in every mode (the catalogue's rule: opt.mode is accepted and not
// used), the synchronous calls refusing an output that does not fit.
namespace {

template <class In, class Out>
void array_scan(std::span<const In> x, std::span<Out> y, workspace& ws, const options& opt, bool exclusive,
                bool waits) {
  if constexpr (std::is_integral_v<In>) {
    integer_array(x, y, ws, opt.stream, exclusive, waits);
  } else {
    float_scan(x, y, ws, opt.mode, opt.stream, exclusive);
    if (waits) wait(opt.stream);
  }
}

template <class In, class Out>
void segment_scan(std::span<const In> x, const segments& s, std::span<Out> y, workspace& ws, const options& opt,
                  bool exclusive, bool waits) {
  if constexpr (std::is_integral_v<In>) {
    integer_segments(x, s, y, ws, opt.stream, exclusive, waits);
  } else {
    float_segments(x, s, y, ws, opt.mode, opt.stream, exclusive);
    if (waits) wait(opt.stream);
  }
}

}  // namespace

#define DETRED_CUDA_SCAN_CALLS(In, Out)                                                                  \
  void cumsum_async(std::span<const In> x, std::span<Out> y, const options& opt) {                       \
    DETRED_HELD(array_scan(x, y, ws, opt, false, false))                                                 \
  }                                                                                                      \
  void exclusive_cumsum_async(std::span<const In> x, std::span<Out> y, const options& opt) {             \
    DETRED_HELD(array_scan(x, y, ws, opt, true, false))                                                  \
  }                                                                                                      \
  void cumsum(std::span<const In> x, std::span<Out> y, const options& opt) {                             \
    DETRED_HELD(array_scan(x, y, ws, opt, false, true))                                                  \
  }                                                                                                      \
  void exclusive_cumsum(std::span<const In> x, std::span<Out> y, const options& opt) {                   \
    DETRED_HELD(array_scan(x, y, ws, opt, true, true))                                                   \
  }                                                                                                      \
  void cumsum_async(std::span<const In> x, segments s, std::span<Out> y, const options& opt) {           \
    DETRED_HELD(segment_scan(x, s, y, ws, opt, false, false))                                            \
  }                                                                                                      \
  void exclusive_cumsum_async(std::span<const In> x, segments s, std::span<Out> y, const options& opt) { \
    DETRED_HELD(segment_scan(x, s, y, ws, opt, true, false))                                             \
  }                                                                                                      \
  void cumsum(std::span<const In> x, segments s, std::span<Out> y, const options& opt) {                 \
    DETRED_HELD(segment_scan(x, s, y, ws, opt, false, true))                                             \
  }                                                                                                      \
  void exclusive_cumsum(std::span<const In> x, segments s, std::span<Out> y, const options& opt) {       \
    DETRED_HELD(segment_scan(x, s, y, ws, opt, true, true))                                              \
  }
DETRED_EACH_SCAN_TYPE(DETRED_CUDA_SCAN_CALLS)
#undef DETRED_CUDA_SCAN_CALLS

#define DETRED_CUDA_SCAN_PIECES(In, T)                                                                       \
  void cumsum_totals_async(std::span<const In> piece, std::span<scan_total<T>> totals, const options& opt) { \
    DETRED_HELD(piece_totals(piece, totals, ws, opt.mode, opt.stream))                                       \
  }                                                                                                          \
  void cumsum_totals(std::span<const In> piece, std::span<scan_total<T>> totals, const options& opt) {       \
    DETRED_HELD(piece_totals(piece, totals, ws, opt.mode, opt.stream); wait(opt.stream))                     \
  }                                                                                                          \
  void cumsum_piece_async(std::span<const In> piece, std::span<const scan_total<T>> before, std::span<T> y,  \
                          const options& opt) {                                                              \
    DETRED_HELD(piece_outputs(piece, before, y, ws, opt.mode, opt.stream))                                   \
  }                                                                                                          \
  void cumsum_piece(std::span<const In> piece, std::span<const scan_total<T>> before, std::span<T> y,        \
                    const options& opt) {                                                                    \
    DETRED_HELD(piece_outputs(piece, before, y, ws, opt.mode, opt.stream); wait(opt.stream))                 \
  }
DETRED_CUDA_SCAN_PIECES(double, double)
DETRED_CUDA_SCAN_PIECES(float, float)
DETRED_CUDA_SCAN_PIECES(float16, float)
DETRED_CUDA_SCAN_PIECES(bfloat16, float)
#undef DETRED_CUDA_SCAN_PIECES

#define DETRED_CUDA_AXIS_SCANS(T)                                                     \
  void cumsum_async(matrix_view<T> a, int axis, std::span<T> y, const options& opt) { \
    DETRED_HELD(axis_scan(a, axis, y, ws, opt.mode, opt.stream))                      \
  }                                                                                   \
  void cumsum(matrix_view<T> a, int axis, std::span<T> y, const options& opt) {       \
    DETRED_HELD(axis_scan(a, axis, y, ws, opt.mode, opt.stream); wait(opt.stream))    \
  }
DETRED_CUDA_AXIS_SCANS(double)
DETRED_CUDA_AXIS_SCANS(float)
#undef DETRED_CUDA_AXIS_SCANS
#undef DETRED_HELD

}  // namespace detred::cuda

namespace detred::cuda_backend {

using cuda::detail::device_copy;

template <class In, class Out>
void staged_scans::scan(std::span<const In> x, std::span<Out> y, bool exclusive, const options& opt) {
  const device_copy in(x.data(), x.size_bytes());
  const device_copy out(nullptr, y.size_bytes());
  const std::span<const In> dx(in.as<const In>(), x.size());
  const std::span<Out> dy(out.as<Out>(), y.size());
  if (exclusive) {
    cuda::exclusive_cumsum(dx, dy, opt);
  } else {
    cuda::cumsum(dx, dy, opt);
  }
  out.copy_to(y.data(), y.size_bytes());
}

template <class In, class Out>
void staged_scans::scan_segments(std::span<const In> x, segments s, std::span<Out> y, bool exclusive,
                                 const options& opt) {
  const device_copy in(x.data(), x.size_bytes());
  const device_copy offsets(s.offsets.data(), s.offsets.size_bytes());
  // Outputs outside every segment keep y's values, as on the CPU: the device buffer starts as a copy of y.
  const device_copy out(y.data(), y.size_bytes());
  const std::span<const In> dx(in.as<const In>(), x.size());
  const segments ds{std::span<const std::uint64_t>(offsets.as<const std::uint64_t>(), s.offsets.size())};
  const std::span<Out> dy(out.as<Out>(), y.size());
  if (exclusive) {
    cuda::exclusive_cumsum(dx, ds, dy, opt);
  } else {
    cuda::cumsum(dx, ds, dy, opt);
  }
  out.copy_to(y.data(), y.size_bytes());
}

template <class T>
void staged_scans::scan_axis(matrix_view<T> a, int axis, std::span<T> y, const options& opt) {
  const std::uint64_t extent = extent_of(a);
  const device_copy in(a.data, extent * sizeof(T));
  const device_copy out(nullptr, y.size_bytes());
  matrix_view<T> da = a;
  da.data = in.as<const T>();
  cuda::cumsum(da, axis, std::span<T>(out.as<T>(), y.size()), opt);
  out.copy_to(y.data(), y.size_bytes());
}

DETRED_CUDA_BACKEND_SCANS()

}  // namespace detred::cuda_backend
