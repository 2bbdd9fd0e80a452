// SPDX-License-Identifier: BSD-3-Clause
// A backend built only in the tests: the reference engine (lib/reference) behind the seam of
// lib/core/backend_seam.hpp. It is what a new backend (HIP, SYCL) amounts to: three typed entry points for the
// reductions, three for the scans, and a table, with nothing changed in the front door; backend_seam_test.cpp routes
// calls to it and compares bits.
#pragma once

#include <atomic>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include "core/backend_seam.hpp"
#include "core/batch_checks.hpp"
#include "detred/scan.hpp"
#include "reference/reference_engine.hpp"

namespace detred::test_backend {

/// How many entries the backend has served, so that a test can tell it was called.
inline std::atomic<int> calls{0};

/// The backend's scans: the reference scan of floating-point inputs (detred::reference::cumsum), a checked running
/// sum of integers; exclusive outputs are the inclusive ones shifted by one, after the identity (-0.0, or 0).
struct reference_scans {
  template <class In, class Out>
  static void scan(std::span<const In> x, std::span<Out> y, bool exclusive, const options& opt) {
    ++calls;
    scan_one<In, Out>(x, y, exclusive, opt);
  }
  template <class In, class Out>
  static void scan_one(std::span<const In> x, std::span<Out> y, bool exclusive, const options& opt) {
    std::vector<Out> inclusive(x.size());
    if constexpr (std::is_integral_v<In>) {
      Out p = 0;
      for (std::size_t i = 0; i < x.size(); ++i) {
        if (__builtin_add_overflow(p, static_cast<Out>(x[i]), &p)) throw overflow_error("test backend: overflow");
        inclusive[i] = p;
      }
    } else {
      reference::cumsum(x, std::span<Out>(inclusive), opt.mode);
    }
    for (std::size_t i = 0; i < y.size(); ++i) {
      if (!exclusive) {
        y[i] = inclusive[i];
      } else {
        y[i] = i == 0 ? (std::is_integral_v<Out> ? Out(0) : Out(-0.0)) : inclusive[i - 1];
      }
    }
  }
  template <class In, class Out>
  static void scan_segments(std::span<const In> x, segments s, std::span<Out> y, bool exclusive, const options& opt) {
    ++calls;
    for (std::size_t k = 0; k + 1 < s.offsets.size(); ++k) {
      const std::uint64_t a = s.offsets[k];
      const std::uint64_t n = s.offsets[k + 1] - a;
      scan_one<In, Out>(x.subspan(a, n), y.subspan(a, n), exclusive, opt);
    }
  }
  /// Each line gathered into a contiguous copy, scanned, and its outputs written where the CPU puts them (the
  /// matrix packed in its own layout).
  template <class T>
  static void scan_axis(matrix_view<T> a, int axis, std::span<T> y, const options& opt) {
    ++calls;
    const axis_lines lines = lines_of(a, axis, axis == 0 ? a.cols : a.rows, "cumsum");
    std::vector<T> line(lines.length);
    for (std::uint64_t t = 0; t < lines.count; ++t) {
      for (std::uint64_t i = 0; i < lines.length; ++i) {
        line[i] = lines.contiguous ? a.data[t * lines.stride + i] : a.data[t + i * lines.stride];
      }
      scan_one<T, T>(line, line, false, opt);
      for (std::uint64_t i = 0; i < lines.length; ++i) {
        (lines.contiguous ? y[t * lines.length + i] : y[t + i * lines.count]) = line[i];
      }
    }
  }
};

struct reference_engine {
  template <class Op>
  static typename Op::result reduce(const order::operands<Op>& x, std::uint64_t n, const options&) {
    ++calls;
    return reference::reduce<Op>(x, n);
  }
  /// Each line on its own, its indices counted from its first element (as every backend does).
  template <class Op>
  static void reduce_lines(const order::operands<Op>& x, std::uint64_t, const line_set& lines, std::uint64_t count,
                           typename Op::result* results, const options&) {
    ++calls;
    for (std::uint64_t k = 0; k < count; ++k) {
      order::operands<Op> line = x.advanced(lines.start(k));
      line.first = 0;
      results[k] = reference::reduce<Op>(line, lines.size(k));
    }
  }
  /// Each strided line gathered into a contiguous copy first.
  template <class Op>
  static void reduce_strided_lines(const order::operands<Op>& x, std::uint64_t, std::uint64_t length,
                                   std::uint64_t stride, std::uint64_t count, typename Op::result* results,
                                   const options&) {
    ++calls;
    std::vector<std::vector<typename Op::input>> copies(Op::arity, std::vector<typename Op::input>(length));
    for (std::uint64_t t = 0; t < count; ++t) {
      order::operands<Op> line{};
      for (unsigned a = 0; a < Op::arity; ++a) {
        for (std::uint64_t i = 0; i < length; ++i) copies[a][i] = x.data[a][t + i * stride];
        line.data[a] = copies[a].data();
      }
      results[t] = reference::reduce<Op>(line, length);
    }
  }
  using scans = reference_scans;
};

/// The backend's table.
inline const backend_seam& seam() {
  static const backend_seam s = seam_of<reference_engine>();
  return s;
}

}  // namespace detred::test_backend
