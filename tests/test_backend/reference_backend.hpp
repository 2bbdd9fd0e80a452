// SPDX-License-Identifier: BSD-3-Clause
// A backend built only in the tests: the reference engine (lib/reference) behind the seam of
// lib/core/backend_seam.hpp. It is what a new backend (HIP, SYCL) amounts to: three typed entry points and a table,
// with nothing changed in the front door; backend_seam_test.cpp routes calls to it and compares bits.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "core/backend_seam.hpp"
#include "reference/reference_engine.hpp"

namespace detred::test_backend {

/// How many entries the backend has served, so that a test can tell it was called.
inline std::atomic<int> calls{0};

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
};

/// The backend's table.
inline const backend_seam& seam() {
  static const backend_seam s = seam_of<reference_engine>();
  return s;
}

}  // namespace detred::test_backend
