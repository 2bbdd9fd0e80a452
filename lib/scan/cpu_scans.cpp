// SPDX-License-Identifier: BSD-3-Clause
// The CPU backend's scans, as its seam takes them (lib/cpu/seam.cpp): one array on the threaded driver (or the exact
// integer scan), segments spread over threads, and the lines of a matrix axis. The front door (scan_api.cpp) has
// checked the arguments.
#include <algorithm>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include "core/batch_checks.hpp"
#include "core/scan_types.hpp"
#include "cpu/isa_selection.hpp"
#include "scan_backend.hpp"

namespace detred::cpu {
namespace {

/// The run options of opt; an instruction set this CPU lacks is refused here, even for the integer scans that use no
/// kernel, so that every CPU scan treats opt.isa alike.
run_options how_of(const options& opt) {
  resolve(opt.isa);
  return {.threads = opt.threads, .instruction_set = opt.isa};
}

/// One array: the floating-point engine in the mode, or the integer scan.
template <class In, class Out>
void scan_array(const In* x, std::uint64_t n, Out* y, mode m, bool exclusive, const run_options& how) {
  if constexpr (std::is_integral_v<In>) {
    integer_scan<In, Out>(x, n, y, exclusive);
  } else if (m == mode::compensated) {
    scan<order::scan_op<In, order::compensated_sums>>(x, n, y, exclusive, how);
  } else {
    scan<order::scan_op<In, order::plain_sums>>(x, n, y, exclusive, how);
  }
}

}  // namespace

template <class In, class Out>
void backend_scans::scan(std::span<const In> x, std::span<Out> y, bool exclusive, const options& opt) {
  scan_array(x.data(), x.size(), y.data(), opt.mode, exclusive, how_of(opt));
}

template <class In, class Out>
void backend_scans::scan_segments(std::span<const In> x, segments s, std::span<Out> y, bool exclusive,
                                  const options& opt) {
  const run_options how = how_of(opt);
  const std::uint64_t count = s.offsets.size() - 1;
  // Each segment is an array of its own; short ones run one per thread, long ones split their leaves among threads.
  const std::uint64_t long_segment = std::uint64_t{1} << 16;
  const int threads = thread_count(opt.threads);
  run_options single = how;
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
void backend_scans::scan_axis(matrix_view<T> a, int axis, std::span<T> y, const options& opt) {
  const run_options how = how_of(opt);
  const axis_lines lines = lines_of(a, axis, axis == 0 ? a.cols : a.rows, "cumsum");
  const int threads = thread_count(opt.threads);
  run_options single = how;
  single.threads = 1;
  if (lines.contiguous) {
    // Each line is a contiguous run, and so is its place in y (packed): line t's outputs start at t * length.
#pragma omp parallel for schedule(dynamic, 16) num_threads(threads)
    for (std::uint64_t t = 0; t < lines.count; ++t) {
      scan_array(a.data + t * lines.stride, lines.length, y.data() + t * lines.length, opt.mode, false, single);
    }
    return;
  }
  // Lines of elements `stride` apart (the columns of a row-major matrix): element i of line t is a.data[t + i *
  // stride], and y[t + i * count]. Neighbouring lines are gathered together into contiguous lines, a group at a time,
  // so that each row of the group is one run of consecutive elements (a cache line of doubles) rather than one
  // element per row; each gathered line is then scanned alone, as the one-array call, and its outputs scattered
  // back the same way. The group shrinks for long lines, so that its buffer stays within 4 MiB per thread.
  const std::uint64_t fitting = (std::uint64_t{4} << 20) / (sizeof(T) * (lines.length == 0 ? 1 : lines.length));
  const std::uint64_t group = std::max<std::uint64_t>(1, std::min<std::uint64_t>(64 / sizeof(T), fitting));
  const std::uint64_t groups = (lines.count + group - 1) / group;
#pragma omp parallel num_threads(threads)
  {
    std::vector<T> block(group * lines.length);
#pragma omp for schedule(dynamic, 4)
    for (std::uint64_t g = 0; g < groups; ++g) {
      const std::uint64_t first = g * group;
      const std::uint64_t width = std::min(group, lines.count - first);
      for (std::uint64_t i = 0; i < lines.length; ++i) {
        for (std::uint64_t b = 0; b < width; ++b) block[b * lines.length + i] = a.data[first + b + i * lines.stride];
      }
      for (std::uint64_t b = 0; b < width; ++b) {
        T* line = block.data() + b * lines.length;
        scan_array(line, lines.length, line, opt.mode, false, single);
      }
      for (std::uint64_t i = 0; i < lines.length; ++i) {
        for (std::uint64_t b = 0; b < width; ++b) y[first + b + i * lines.count] = block[b * lines.length + i];
      }
    }
  }
}

#define DETRED_CPU_SCAN_TYPE(In, Out)                                                                      \
  template void backend_scans::scan<In, Out>(std::span<const In>, std::span<Out>, bool, const options&);   \
  template void backend_scans::scan_segments<In, Out>(std::span<const In>, segments, std::span<Out>, bool, \
                                                      const options&);
DETRED_EACH_SCAN_TYPE(DETRED_CPU_SCAN_TYPE)
#undef DETRED_CPU_SCAN_TYPE
template void backend_scans::scan_axis<double>(matrix_view<double>, int, std::span<double>, const options&);
template void backend_scans::scan_axis<float>(matrix_view<float>, int, std::span<float>, const options&);

}  // namespace detred::cpu
