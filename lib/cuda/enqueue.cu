// The host side of the kernels: picks the load path from the pointer's alignment and launches the passes.
// The only translation unit with kernels, so each kernel is instantiated once per operator: 2 load paths for the
// leaf pass, 1 folding pass.
#include <atomic>
#include <cstdint>

#include <cuda_runtime.h>

#include "api/operators.hpp"
#include "cuda_check.hpp"
#include "enqueue.hpp"
#include "fold_pass.cuh"
#include "leaf_pass.cuh"

namespace detred::cuda::detail {
namespace {

std::atomic<std::uint64_t> enqueued{0};

template <class Op>
void enqueue(const typename Op::input* x, std::uint64_t n, const launch_plan& plan, void* partials,
             typename Op::result* result, cudaStream_t stream) {
  using V = typename Op::state;
  // 16-byte loads need a 16-byte aligned base: leaves start every L * sizeof(T) = 16 KiB from it.
  const bool aligned = reinterpret_cast<std::uintptr_t>(x) % 16 == 0;
  V* const a = static_cast<V*>(partials);
  V* const b = a + (plan.blocks > 1 ? plan.blocks : 0);
  const dim3 grid(static_cast<unsigned>(plan.blocks));
  const dim3 block(plan.warps_per_block * warp_size);
  if (aligned) {
    leaf_pass<Op, true><<<grid, block, 0, stream>>>(x, n, plan.leaves_per_warp, a, result);
  } else {
    leaf_pass<Op, false><<<grid, block, 0, stream>>>(x, n, plan.leaves_per_warp, a, result);
  }
  check(cudaGetLastError(), "leaf pass launch");

  std::uint64_t count = plan.blocks;
  V* in = a;
  V* out = b;
  while (count > 1) {
    const std::uint64_t blocks = (count + fold_block_values - 1) / fold_block_values;
    fold_pass<Op><<<static_cast<unsigned>(blocks), fold_threads, 0, stream>>>(in, count, out, result);
    check(cudaGetLastError(), "folding pass launch");
    count = blocks;
    V* const t = in;
    in = out;
    out = t;
  }
}

template <class T>
void enqueue_mode(const T* x, std::uint64_t n, mode m, const launch_plan& plan, void* partials, T* result,
                  stream_t stream) {
  static_assert(fold_block_values == std::uint64_t{fold_threads} * values_per_thread);
  if (plan.blocks > 0xffffffffu) throw error("CUDA sum: " + std::to_string(n) + " elements need too many blocks");
  ++enqueued;
  with_sum_operator<T>(m, [&]<class Op>() { enqueue<Op>(x, n, plan, partials, result, stream); });
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
