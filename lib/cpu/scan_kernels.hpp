// SPDX-License-Identifier: BSD-3-Clause
// The per-instruction-set kernels of the scans: one leaf of the canonical scan order (detred/order/scan.hpp), in
// the two steps the driver needs. Compiled per instruction set from scan_engine.inl, into the same translation units
// as the reduction kernels (kernels_<isa>.cpp); the driver (lib/scan/scan_driver.cpp) picks a table at run time.
#pragma once

#include <cstdint>

#include "detred/number_types.hpp"
#include "detred/order.hpp"
#include "detred/order/scan.hpp"

namespace detred::cpu {

template <class... Ops>
struct scan_op_list {};

/// The scan operators: every floating-point input type in both modes.
using scan_ops =
    scan_op_list<order::scan_op<double, order::plain_sums>, order::scan_op<double, order::compensated_sums>,
                 order::scan_op<float, order::plain_sums>, order::scan_op<float, order::compensated_sums>,
                 order::scan_op<float16, order::plain_sums>, order::scan_op<float16, order::compensated_sums>,
                 order::scan_op<bfloat16, order::plain_sums>, order::scan_op<bfloat16, order::compensated_sums>>;

template <class Op>
struct scan_entry {
  /// order::leaf_lane_offsets: the lane scan of the leaf x[0..count) into e[0..W); returns the leaf's total.
  typename Op::state (*lane_offsets)(const typename Op::input* x, std::uint64_t count, typename Op::state* e) = nullptr;
  /// order::leaf_outputs: the leaf's outputs from its bases b[0..W); y may equal x.
  void (*outputs)(const typename Op::input* x, std::uint64_t count, const typename Op::state* b,
                  typename Op::result* y) = nullptr;
};

template <class List>
struct scan_table_for;
template <class... Ops>
struct scan_table_for<scan_op_list<Ops...>> {
  struct type : scan_entry<Ops>... {
    const char* name = nullptr;
  };
};
using scan_table = scan_table_for<scan_ops>::type;

template <class Op>
const scan_entry<Op>& scan_kernels_of(const scan_table& table) {
  return static_cast<const scan_entry<Op>&>(table);
}

// Named <isa>_kernels inside namespace scan_tables so that tests/check_isa_symbols.sh sees them as the instruction
// set's own.
namespace scan_tables {
extern const scan_table baseline_kernels;
#if DETRED_HAVE_X86_KERNELS
extern const scan_table avx2_kernels;
extern const scan_table avx512_kernels;
#endif
#if DETRED_HAVE_NEON_KERNELS
extern const scan_table neon_kernels;
#endif
}  // namespace scan_tables

}  // namespace detred::cpu
