// SPDX-License-Identifier: BSD-3-Clause
// The per-instruction-set kernels of the CPU backend. Each table is compiled in its own translation unit with its
// own target flags (kernels_<isa>.cpp, from lane_engine.inl); the driver picks one at run time (isa_selection.hpp).
#pragma once

#include <cstdint>

#include "core/operators.hpp"
#include "cpu_backend.hpp"
#include "detred/order.hpp"

namespace detred::cpu {

/// The operators the CPU backend runs: each gets a kernel in every instruction set's table. A new operator is
/// added here (lib/api/operators.hpp names the list every backend shares).
using cpu_ops = all_operators;

/// Operand bytes of a call from which the leaf loops that prefetch also ask for the leaf three ahead into the
/// second-level cache (lane_engine.inl): half of a 2 MiB one. Smaller calls are mostly in cache already, where the
/// requests only cost instructions (min at 2^14 doubles on one thread: 59 GB/s with them, 69 without).
inline constexpr std::uint64_t streaming_bytes = std::uint64_t{1} << 20;

/// The root node of the left-perfect leaf tree over x[0..n): the canonical value of the subtree whose leaves hold
/// x[0..n). x must start on a leaf boundary of the whole array; n may end mid-leaf. streaming: the subtree is part of
/// a call of at least streaming_bytes (how far its loops prefetch; the result does not depend on it).
template <class Op>
using subtree_fn = order::node_of<Op> (*)(order::operands<Op> x, std::uint64_t n, bool streaming);

/// results[k] = Op over line k of `lines`, each line in its own canonical order, for k in [first, last); lines
/// longer than `longest` are skipped (the driver gives them every thread). Returns how many were skipped.
template <class Op>
using lines_fn = std::uint64_t (*)(order::operands<Op> x, const line_set& lines, std::uint64_t first,
                                   std::uint64_t last, std::uint64_t longest, typename Op::result* results);

/// results[t] = Op over the line x[t], x[t + stride], ..., x[t + (length - 1) * stride], for t in [first, last)
/// (the columns of a row-major matrix, the rows of a column-major one). `scratch` holds strided_scratch_bytes.
template <class Op>
using strided_lines_fn = void (*)(order::operands<Op> x, std::uint64_t length, std::uint64_t stride,
                                  std::uint64_t first, std::uint64_t last, typename Op::result* results, void* scratch,
                                  std::uint64_t scratch_bytes);

/// Scratch memory the strided kernel takes per call (the kernels allocate nothing): enough for the widest panel of
/// any instruction set and operator.
inline constexpr std::uint64_t strided_scratch_bytes = std::uint64_t{4} << 20;

template <class Op>
struct kernel_entry {
  subtree_fn<Op> subtree = nullptr;
  lines_fn<Op> lines = nullptr;
  strided_lines_fn<Op> strided_lines = nullptr;
};

template <class... Ops>
struct kernel_table_of : kernel_entry<Ops>... {
  const char* name = nullptr;
};

template <class List>
struct table_for;
template <class... Ops>
struct table_for<op_list<Ops...>> {
  using type = kernel_table_of<Ops...>;
};
using kernel_table = table_for<cpu_ops>::type;

/// The kernels of operator Op in a table.
template <class Op>
const kernel_entry<Op>& kernels_of(const kernel_table& table) {
  return static_cast<const kernel_entry<Op>&>(table);
}
template <class Op>
subtree_fn<Op> subtree_kernel(const kernel_table& table) {
  return kernels_of<Op>(table).subtree;
}

extern const kernel_table baseline_kernels;
#if DETRED_HAVE_X86_KERNELS
extern const kernel_table avx2_kernels;
extern const kernel_table avx512_kernels;
#endif
#if DETRED_HAVE_NEON_KERNELS
extern const kernel_table neon_kernels;
#endif

}  // namespace detred::cpu
