// SPDX-License-Identifier: BSD-3-Clause
// The front door of the scans: argument checks, then the CPU scan engine (floating point) or the exact integer scan.
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "core/batch_checks.hpp"
#include "core/validate.hpp"
#include "cpu/isa_selection.hpp"
#include "detred/scan.hpp"
#include "scan_backend.hpp"
#include "scan_checks.hpp"

namespace detred {
namespace {

const char* name_of(bool exclusive) { return exclusive ? "detred::exclusive_cumsum" : "detred::cumsum"; }

using scan_checks::check_buffers;
using scan_checks::check_overlap;

/// The run options of a scan, after the checks every scan shares.
cpu::run_options checked(const options& opt, bool floating, const char* what) {
  validate(opt);
  scan_checks::check_mode(opt.mode, floating, what);
  if (opt.backend == backend::cuda) {
    throw error(std::string(what) + ": backend cuda has no scan of host arrays (scan device memory with " +
                "detred::cuda::cumsum; docs/scan.md)");
  }
  cpu::resolve(opt.isa);  // an instruction set this CPU lacks is refused even where no kernel runs
  return {.threads = opt.threads, .instruction_set = opt.isa};
}

/// One array, no checks: the floating-point engine in the mode, or the integer scan.
template <class In, class Out>
void scan_array(const In* x, std::uint64_t n, Out* y, mode m, bool exclusive, const cpu::run_options& how) {
  if constexpr (std::is_integral_v<In>) {
    cpu::integer_scan<In, Out>(x, n, y, exclusive);
  } else if (m == mode::compensated) {
    cpu::scan<order::scan_op<In, order::compensated_sums>>(x, n, y, exclusive, how);
  } else {
    cpu::scan<order::scan_op<In, order::plain_sums>>(x, n, y, exclusive, how);
  }
}

template <class In, class Out>
void scan_checked(std::span<const In> x, std::span<Out> y, const options& opt, bool exclusive) {
  const char* what = name_of(exclusive);
  const cpu::run_options how = checked(opt, !std::is_integral_v<In>, what);
  check_buffers(x.data(), x.size(), y.data(), y.size(), what);
  scan_array(x.data(), x.size(), y.data(), opt.mode, exclusive, how);
}

template <class In, class Out>
void scan_segments(std::span<const In> x, segments s, std::span<Out> y, const options& opt, bool exclusive) {
  const char* what = name_of(exclusive);
  const cpu::run_options how = checked(opt, !std::is_integral_v<In>, what);
  check_buffers(x.data(), x.size(), y.data(), y.size(), what);
  validate_segments(s, x.size(), s.offsets.empty() ? 0 : s.offsets.size() - 1, what);
  const std::uint64_t count = s.offsets.size() - 1;
  // Each segment is an array of its own; short ones run one per thread, long ones split their leaves among threads.
  const std::uint64_t long_segment = std::uint64_t{1} << 16;
  const int threads = cpu::thread_count(opt.threads);
  cpu::run_options single = how;
  single.threads = 1;
#pragma omp parallel for schedule(dynamic, 64) num_threads(threads)
  for (std::uint64_t k = 0; k < count; ++k) {
    const std::uint64_t a = s.offsets[k];
    const std::uint64_t n = s.offsets[k + 1] - a;
    if (n < long_segment) scan_array(x.data() + a, n, y.data() + a, opt.mode, exclusive, single);
  }
  for (std::uint64_t k = 0; k < count; ++k) {
    const std::uint64_t a = s.offsets[k];
    const std::uint64_t n = s.offsets[k + 1] - a;
    if (n >= long_segment) scan_array(x.data() + a, n, y.data() + a, opt.mode, exclusive, how);
  }
}

template <class T>
void scan_axis(matrix_view<T> a, int axis, std::span<T> y, const options& opt) {
  const char* what = "detred::cumsum";
  const cpu::run_options how = checked(opt, true, what);
  const axis_lines lines = lines_of(a, axis, axis == 0 ? a.cols : a.rows, "cumsum");
  const std::uint64_t total = a.rows * a.cols;
  if (y.size() != total) {
    throw error(std::string(what) + ": the output holds " + std::to_string(y.size()) + " elements, the " +
                std::to_string(a.rows) + " x " + std::to_string(a.cols) + " matrix " + std::to_string(total));
  }
  const bool row_major = a.layout == layout::row_major;
  const bool packed = a.leading_dimension == (row_major ? a.cols : a.rows);
  if (!(packed && static_cast<const void*>(a.data) == static_cast<const void*>(y.data()))) {
    check_overlap(a.data, extent_of(a), y.data(), y.size(), what);
  }
  // In y (packed), line t's element i lies at t * out_line + i * out_step.
  const std::uint64_t out_line = lines.contiguous ? lines.length : 1;
  const std::uint64_t out_step = lines.contiguous ? 1 : lines.count;
  const int threads = cpu::thread_count(opt.threads);
  cpu::run_options single = how;
  single.threads = 1;
#pragma omp parallel num_threads(threads)
  {
    std::vector<T> line(lines.contiguous ? 0 : lines.length);
#pragma omp for schedule(dynamic, 16)
    for (std::uint64_t t = 0; t < lines.count; ++t) {
      if (lines.contiguous) {
        scan_array(a.data + t * lines.stride, lines.length, y.data() + t * out_line, opt.mode, false, single);
      } else {
        // A strided line is copied to a contiguous one first, and its outputs copied back out.
        for (std::uint64_t i = 0; i < lines.length; ++i) line[i] = a.data[t + i * lines.stride];
        scan_array(line.data(), lines.length, line.data(), opt.mode, false, single);
        for (std::uint64_t i = 0; i < lines.length; ++i) y[t * out_line + i * out_step] = line[i];
      }
    }
  }
}

template <class Op, class T>
typename Op::state state_of(const scan_total<T>& t) {
  if constexpr (std::is_same_v<typename Op::state, T>) {
    return t.sum;
  } else {
    return {t.sum, t.correction};
  }
}
template <class Op, class T>
scan_total<T> total_of(const typename Op::state& s) {
  if constexpr (std::is_same_v<typename Op::state, T>) {
    return {s, T(-0.0)};
  } else {
    return {s.sum, s.correction};
  }
}

template <class In, class T>
void totals_checked(std::span<const In> piece, std::span<scan_total<T>> totals, const options& opt) {
  const char* what = "detred::cumsum_totals";
  const cpu::run_options how = checked(opt, true, what);
  const std::uint64_t m = order::leaf_count<T>(piece.size());
  if (totals.size() != m) {
    throw error(std::string(what) + ": the totals span holds " + std::to_string(totals.size()) + " entries, the " +
                std::to_string(piece.size()) + " elements have " + std::to_string(m) + " leaves");
  }
  const auto run = [&]<class Op>() {
    std::vector<typename Op::state> states(m);
    cpu::scan_totals<Op>(piece.data(), piece.size(), states.data(), how);
    for (std::uint64_t b = 0; b < m; ++b) totals[b] = total_of<Op, T>(states[b]);
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
  const cpu::run_options how = checked(opt, true, what);
  check_buffers(piece.data(), piece.size(), y.data(), y.size(), what);
  const auto run = [&]<class Op>() {
    std::vector<typename Op::state> states(before.size());
    for (std::uint64_t b = 0; b < before.size(); ++b) states[b] = state_of<Op, T>(before[b]);
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
DETRED_SCAN_TYPES(double, double)
DETRED_SCAN_TYPES(float, float)
DETRED_SCAN_TYPES(float16, float)
DETRED_SCAN_TYPES(bfloat16, float)
DETRED_SCAN_TYPES(std::int32_t, std::int64_t)
DETRED_SCAN_TYPES(std::int64_t, std::int64_t)
DETRED_SCAN_TYPES(std::uint32_t, std::uint64_t)
DETRED_SCAN_TYPES(std::uint64_t, std::uint64_t)
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
  if (validated(m) == mode::exact) throw error("detred::cumsum_bound: mode exact is not available for scans");
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
  if (validated(m) == mode::exact) {
    throw error("detred::reference::cumsum: mode exact is not available (scans have tree and compensated mode)");
  }
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
