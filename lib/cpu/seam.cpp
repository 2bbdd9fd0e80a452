// SPDX-License-Identifier: BSD-3-Clause
// The CPU backend's seam (lib/core/backend_seam.hpp): its typed entry points, as the front door calls them. The
// operators of the canonical order run on the lane engine (driver.cpp, batch_driver.cpp), the order-free exact
// operators on exact mode's drivers (lib/exact), the scans on the scan driver (lib/scan).
#include "core/backend_seam.hpp"
#include "cpu_backend.hpp"
#include "exact/exact_operators.hpp"
#include "scan/scan_backend.hpp"

namespace detred::cpu {
namespace {

run_options how(const options& opt) { return {.threads = opt.threads, .instruction_set = opt.isa}; }

struct cpu_backend {
  template <class Op>
  static typename Op::result reduce(const order::operands<Op>& x, std::uint64_t n, const options& opt) {
    if constexpr (exact::is_exact_op<Op>) {
      return exact_cpu::reduce<Op>(x, n, how(opt));
    } else {
      return cpu::reduce<Op>(x, n, how(opt));
    }
  }
  template <class Op>
  static void reduce_lines(const order::operands<Op>& x, std::uint64_t, const line_set& lines, std::uint64_t count,
                           typename Op::result* results, const options& opt) {
    if constexpr (exact::is_exact_op<Op>) {
      exact_cpu::reduce_lines<Op>(x, lines, count, results, how(opt));
    } else {
      cpu::reduce_lines<Op>(x, lines, count, results, how(opt));
    }
  }
  template <class Op>
  static void reduce_strided_lines(const order::operands<Op>& x, std::uint64_t, std::uint64_t length,
                                   std::uint64_t stride, std::uint64_t count, typename Op::result* results,
                                   const options& opt) {
    if constexpr (exact::is_exact_op<Op>) {
      exact_cpu::reduce_strided_lines<Op>(x, length, stride, count, results, how(opt));
    } else {
      cpu::reduce_strided_lines<Op>(x, length, stride, count, results, how(opt));
    }
  }
  using scans = backend_scans;
};

}  // namespace

const backend_seam& seam() {
  static const backend_seam s = seam_of<cpu_backend>();
  return s;
}

}  // namespace detred::cpu
