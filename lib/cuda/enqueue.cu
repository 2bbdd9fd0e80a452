// SPDX-License-Identifier: BSD-3-Clause
// The host side of the kernels: picks the load path from the pointers' alignment and launches the passes.
// The only translation unit with the sums' kernels, so each is instantiated once per operator: 2 load paths for the
// leaf pass, 1 folding pass.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>

#include <cuda_runtime.h>

#include "core/operators.hpp"
#include "cuda_check.hpp"
#include "enqueue.hpp"
#include "fold_pass.cuh"
#include "integer_sum.cuh"
#include "leaf_pass.cuh"
#include "partial/unfinalized.hpp"

namespace detred::cuda::detail {
namespace {

std::atomic<std::uint64_t> enqueued{0};

}  // namespace

/// The leaf pass and the folding passes of the canonical order.
template <class Op>
void enqueue_tree(const order::operands<Op>& x, std::uint64_t n, const launch_plan& plan, void* partials,
                  typename Op::result* result, stream_t stream);

template <class Op>
void enqueue_reduction(const order::operands<Op>& x, std::uint64_t n, const launch_plan& plan, void* partials,
                       typename Op::result* result, stream_t stream) {
  static_assert(fold_block_values == std::uint64_t{fold_threads} * values_per_thread);
  if (plan.blocks > 0xffffffffu) throw error("CUDA reduction: " + std::to_string(n) + " elements need too many blocks");
  ++enqueued;
  if constexpr (is_integer_sum<Op>) {
    // Exact, so in any order: kernels of their own, which ignore the plan.
    enqueue_integer_sum(x.data[0], n, partials, result, stream);
  } else {
    enqueue_tree<Op>(x, n, plan, partials, result, stream);
  }
}

template <class Op>
void enqueue_tree(const order::operands<Op>& x, std::uint64_t n, const launch_plan& plan, void* partials,
                  typename Op::result* result, stream_t stream) {
  using N = order::node_of<Op>;
  // Whole-row loads need every operand aligned to a thread's share of a row (16 bytes of lanes): leaves start every
  // L elements from the base, a multiple of that share.
  constexpr std::uintptr_t row_bytes = lanes_per_thread<typename Op::value> * sizeof(typename Op::input);
  bool aligned = true;
  for (unsigned a = 0; a < Op::arity; ++a)
    aligned = aligned && reinterpret_cast<std::uintptr_t>(x.data[a]) % row_bytes == 0;
  N* const a = static_cast<N*>(partials);
  N* const b = a + (plan.blocks > 1 ? plan.blocks : 0);
  const dim3 grid(static_cast<unsigned>(plan.blocks));
  const dim3 block(plan.warps_per_block * warp_size);
  const std::size_t shared = leaf_pass_shared_bytes<Op>(plan.warps_per_block, plan.leaves_per_warp);
  bool launched = false;
  if constexpr (needs_registers<Op>) {
    if (block.x <= 256) {
      if (aligned) {
        leaf_pass<Op, true, 256><<<grid, block, shared, stream>>>(x, n, plan.leaves_per_warp, a, result);
      } else {
        leaf_pass<Op, false, 256><<<grid, block, shared, stream>>>(x, n, plan.leaves_per_warp, a, result);
      }
      launched = true;
    }
  }
  if (!launched && aligned) {
    leaf_pass<Op, true><<<grid, block, shared, stream>>>(x, n, plan.leaves_per_warp, a, result);
  } else if (!launched) {
    leaf_pass<Op, false><<<grid, block, shared, stream>>>(x, n, plan.leaves_per_warp, a, result);
  }
  check(cudaGetLastError(), "leaf pass launch");

  std::uint64_t count = plan.blocks;
  N* in = a;
  N* out = b;
  while (count > 1) {
    const std::uint64_t blocks = (count + fold_block_values - 1) / fold_block_values;
    fold_pass<Op><<<static_cast<unsigned>(blocks), fold_threads, 0, stream>>>(in, count, out, result, n);
    check(cudaGetLastError(), "folding pass launch");
    count = blocks;
    N* const t = in;
    in = out;
    out = t;
  }
}

// The kernels of every operator, emitted here for the API (taking their addresses instantiates them).
template <class List>
struct instantiate_all;
template <class... Ops>
struct instantiate_all<op_list<Ops...>> {
  static constexpr std::tuple pointers{&enqueue_reduction<Ops>...};
};
template struct instantiate_all<all_operators>;
// The sums' subtree roots, unfinalized: device partial states and sums over several GPUs (pieces.cpp).
template struct instantiate_all<op_list<partial::unfinalized<order::sum_op<double, order::plain_sums>>,
                                        partial::unfinalized<order::sum_op<double, order::compensated_sums>>,
                                        partial::unfinalized<order::sum_op<float, order::plain_sums>>,
                                        partial::unfinalized<order::sum_op<float, order::compensated_sums>>>>;

namespace {

template <class T>
void enqueue_mode(const T* x, std::uint64_t n, mode m, const launch_plan& plan, void* partials, T* result,
                  stream_t stream) {
  with_sum_operator<T>(m, [&]<class Op>() {
    enqueue_reduction<Op>(order::operands<Op>{{x}, 0}, n, plan, partials, result, stream);
  });
}

}  // namespace

std::uint64_t enqueued_sums() { return enqueued.load(); }

void enqueue_sum(const double* x, std::uint64_t n, mode m, const launch_plan& plan, void* partials, double* result,
                 stream_t stream) {
  enqueue_mode(x, n, m, plan, partials, result, stream);
}

void enqueue_sum(const float* x, std::uint64_t n, mode m, const launch_plan& plan, void* partials, float* result,
                 stream_t stream) {
  enqueue_mode(x, n, m, plan, partials, result, stream);
}

}  // namespace detred::cuda::detail
