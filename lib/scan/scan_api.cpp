// SPDX-License-Identifier: BSD-3-Clause
// The front door of the scans: argument checks, then the backend's scan through its seam (lib/core/backend_seam.hpp):
// the CPU's (lib/scan/cpu_scans.cpp), or, with backend::cuda, the GPU's scans of the arrays staged in device memory
// (lib/cuda/scan_api.cpp). The pieces' calls (cumsum_totals, cumsum_piece) of host arrays run on the CPU.
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "api/backends.hpp"
#include "core/batch_checks.hpp"
#include "core/scan_totals.hpp"
#include "core/scan_types.hpp"
#include "core/validate.hpp"
#include "cpu/isa_selection.hpp"
#include "detred/catalogue.hpp"
#include "detred/scan.hpp"
#include "scan_backend.hpp"
#include "scan_checks.hpp"

namespace detred {
namespace {

const char* name_of(bool exclusive) { return exclusive ? "detred::exclusive_cumsum" : "detred::cumsum"; }

using scan_checks::check_buffers;
using scan_checks::check_overlap;

/// The backend of a scan of In elements in call shape s, after the checks every scan shares: the mode and the backend
/// as the catalogue has them (detred/catalogue.hpp; the one refusal of a mode is checked_mode's).
template <class In>
backend checked(const options& opt, bool exclusive, call_shape s, const char* what) {
  validate(opt);
  const operation op = exclusive ? operation::exclusive_cumsum : operation::cumsum;
  const backend b = backend_of(opt);
  if (!catalogue::has(op, element_type_of<In>(), b, s)) {
    throw error(std::string(what) + ": backend " + to_string(b) + " has no " + to_string(op) + " of " +
                to_string(element_type_of<In>()) + " in this call shape (docs/scan.md)");
  }
  checked_mode<In>(opt.mode, op, b, s, what);
  return b;
}

/// The entry of In in one of the seam's scan tables, or the error that backend b lacks it.
template <class In, class Fn>
Fn entry_of(const std::array<Fn, backend_seam::element_types>& table, backend b, const char* what) {
  const Fn f = table[static_cast<std::size_t>(element_type_of<In>())];
  if (f == nullptr) throw error(std::string(what) + ": backend " + to_string(b) + " implements no such scan");
  return f;
}

template <class In, class Out>
void scan_checked(std::span<const In> x, std::span<Out> y, const options& opt, bool exclusive) {
  const char* what = name_of(exclusive);
  const backend b = checked<In>(opt, exclusive, call_shape::array, what);
  check_buffers(x.data(), x.size(), y.data(), y.size(), what);
  entry_of<In>(seam_for(b).scan, b, what)(x.data(), x.size(), y.data(), exclusive, opt);
}

template <class In, class Out>
void scan_segments(std::span<const In> x, segments s, std::span<Out> y, const options& opt, bool exclusive) {
  const char* what = name_of(exclusive);
  const backend b = checked<In>(opt, exclusive, call_shape::segments, what);
  check_buffers(x.data(), x.size(), y.data(), y.size(), what);
  validate_segments(s, x.size(), s.offsets.empty() ? 0 : s.offsets.size() - 1, what);
  entry_of<In>(seam_for(b).scan_segments, b, what)(x.data(), x.size(), s, y.data(), exclusive, opt);
}

template <class T>
void scan_axis(matrix_view<T> a, int axis, std::span<T> y, const options& opt) {
  const char* what = "detred::cumsum";
  const backend b = checked<T>(opt, false, call_shape::axis, what);
  lines_of(a, axis, axis == 0 ? a.cols : a.rows, "cumsum");
  scan_checks::check_axis_output(a, y.data(), y.size(), what);
  entry_of<T>(seam_for(b).scan_axis, b, what)(&a, axis, y.data(), y.size(), opt);
}

/// The host pieces run on the CPU; those of device memory are detred::cuda's (the catalogue lists both backends for
/// the call shape, so backend::cuda is refused here by name rather than by the catalogue).
void refuse_device_backend(const options& opt, const char* what, const char* device_call) {
  if (opt.backend == backend::cuda) {
    throw error(std::string(what) + ": host arrays are scanned in pieces on the CPU; for pieces in GPU memory call " +
                device_call + " (detred/cuda_scan.hpp)");
  }
}

/// The CPU's run options of the pieces' calls.
cpu::run_options cpu_run_options(const options& opt) {
  cpu::resolve(opt.isa);
  return {.threads = opt.threads, .instruction_set = opt.isa};
}

template <class In, class T>
void totals_checked(std::span<const In> piece, std::span<scan_total<T>> totals, const options& opt) {
  const char* what = "detred::cumsum_totals";
  refuse_device_backend(opt, what, "detred::cuda::cumsum_totals");
  checked<In>(opt, false, call_shape::partial_state, what);
  const cpu::run_options how = cpu_run_options(opt);
  const std::uint64_t m = order::leaf_count<T>(piece.size());
  scan_checks::check_totals(piece.size(), m, totals.size(), what);
  const auto run = [&]<class Op>() {
    std::vector<typename Op::state> states(m);
    cpu::scan_totals<Op>(piece.data(), piece.size(), states.data(), how);
    for (std::uint64_t b = 0; b < m; ++b) totals[b] = scan_totals::total_of<Op, T>(states[b]);
  };
  if (opt.mode == mode::compensated) {
    run.template operator()<order::scan_op<In, order::compensated_sums>>();
  } else {
    run.template operator()<order::scan_op<In, order::plain_sums>>();
  }
}

template <class In, class T>
void piece_checked(std::span<const In> piece, std::span<const scan_total<T>> before, std::span<T> y,
                   const options& opt) {
  const char* what = "detred::cumsum_piece";
  refuse_device_backend(opt, what, "detred::cuda::cumsum_piece");
  checked<In>(opt, false, call_shape::partial_state, what);
  const cpu::run_options how = cpu_run_options(opt);
  check_buffers(piece.data(), piece.size(), y.data(), y.size(), what);
  const auto run = [&]<class Op>() {
    std::vector<typename Op::state> states(before.size());
    for (std::uint64_t b = 0; b < before.size(); ++b) states[b] = scan_totals::state_of<Op, T>(before[b]);
    cpu::scan<Op>(piece.data(), piece.size(), y.data(), false, how, states);
  };
  if (opt.mode == mode::compensated) {
    run.template operator()<order::scan_op<In, order::compensated_sums>>();
  } else {
    run.template operator()<order::scan_op<In, order::plain_sums>>();
  }
}

}  // namespace

#define DETRED_SCAN_PIECES(In, T)                                                                      \
  void cumsum_totals(std::span<const In> piece, std::span<scan_total<T>> totals, const options& opt) { \
    totals_checked<In, T>(piece, totals, opt);                                                         \
  }                                                                                                    \
  void cumsum_piece(std::span<const In> piece, std::span<const scan_total<T>> before, std::span<T> y,  \
                    const options& opt) {                                                              \
    piece_checked<In, T>(piece, before, y, opt);                                                       \
  }
DETRED_SCAN_PIECES(double, double)
DETRED_SCAN_PIECES(float, float)
DETRED_SCAN_PIECES(float16, float)
DETRED_SCAN_PIECES(bfloat16, float)
#undef DETRED_SCAN_PIECES

#define DETRED_SCAN_TYPES(In, Out)                                                                 \
  void cumsum(std::span<const In> x, std::span<Out> y, const options& opt) {                       \
    scan_checked<In, Out>(x, y, opt, false);                                                       \
  }                                                                                                \
  void exclusive_cumsum(std::span<const In> x, std::span<Out> y, const options& opt) {             \
    scan_checked<In, Out>(x, y, opt, true);                                                        \
  }                                                                                                \
  void cumsum(std::span<const In> x, segments s, std::span<Out> y, const options& opt) {           \
    scan_segments<In, Out>(x, s, y, opt, false);                                                   \
  }                                                                                                \
  void exclusive_cumsum(std::span<const In> x, segments s, std::span<Out> y, const options& opt) { \
    scan_segments<In, Out>(x, s, y, opt, true);                                                    \
  }
DETRED_EACH_SCAN_TYPE(DETRED_SCAN_TYPES)
#undef DETRED_SCAN_TYPES

#define DETRED_SCAN_IN_PLACE(T)                                                             \
  void cumsum(std::span<T> x, const options& opt) { scan_checked<T, T>(x, x, opt, false); } \
  void exclusive_cumsum(std::span<T> x, const options& opt) { scan_checked<T, T>(x, x, opt, true); }
DETRED_SCAN_IN_PLACE(double)
DETRED_SCAN_IN_PLACE(float)
DETRED_SCAN_IN_PLACE(std::int64_t)
DETRED_SCAN_IN_PLACE(std::uint64_t)
#undef DETRED_SCAN_IN_PLACE

void cumsum(matrix_view<double> a, int axis, std::span<double> y, const options& opt) { scan_axis(a, axis, y, opt); }
void cumsum(matrix_view<float> a, int axis, std::span<float> y, const options& opt) { scan_axis(a, axis, y, opt); }

template <class T>
scan_bound cumsum_bound(std::uint64_t i, mode m) {
  checked_mode<T>(m, operation::cumsum, backend::cpu, call_shape::array, "detred::cumsum_bound");
  const std::uint64_t n = i + 1;  // output i is an output of every array of at least i + 1 elements
  const int d = order::scan_depth<T>(n);
  const double u = order::unit_roundoff<T>;
  const auto gamma = [u](int k) { return k * u / (1 - k * u); };
  if (m == mode::tree) return {d, 0, u, 0, gamma(d)};
  const int dc = order::scan_correction_depth<T>(n);
  return {d, dc, u, u, (1 + u) * gamma(d) * gamma(dc)};
}
template scan_bound cumsum_bound<double>(std::uint64_t i, mode m);
template scan_bound cumsum_bound<float>(std::uint64_t i, mode m);

namespace reference {
namespace {
template <class In, class Out>
void reference_cumsum(std::span<const In> x, std::span<Out> y, mode m) {
  check_buffers(x.data(), x.size(), y.data(), y.size(), "detred::reference::cumsum");
  checked_mode<In>(m, operation::cumsum, backend::cpu, call_shape::array, "detred::reference::cumsum");
  if (m == mode::compensated) {
    order::reference_scan<order::scan_op<In, order::compensated_sums>>(x.data(), x.size(), y.data());
  } else {
    order::reference_scan<order::scan_op<In, order::plain_sums>>(x.data(), x.size(), y.data());
  }
}
}  // namespace
void cumsum(std::span<const double> x, std::span<double> y, mode m) { reference_cumsum(x, y, m); }
void cumsum(std::span<const float> x, std::span<float> y, mode m) { reference_cumsum(x, y, m); }
void cumsum(std::span<const float16> x, std::span<float> y, mode m) { reference_cumsum(x, y, m); }
void cumsum(std::span<const bfloat16> x, std::span<float> y, mode m) { reference_cumsum(x, y, m); }
}  // namespace reference

}  // namespace detred
