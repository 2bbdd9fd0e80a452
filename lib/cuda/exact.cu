// SPDX-License-Identifier: BSD-3-Clause
// Exact mode's kernel: one launch computes the exact sum, |x| sum or dot product of a device array and rounds it
// once (docs/exact.md, "On the GPU"). Arrays of float16 and bfloat16 are first widened exactly to float (one more
// launch, into the workspace), as the CPU's exact mode widens them.
//
// Every term reaches a superaccumulator (include/detred/exact/superaccumulator.hpp) without rounding, so the order
// of the additions cannot matter and atomics are free to pick it:
//   1. each thread keeps its running sum as a floating-point expansion of expansion_size doubles, updated by
//      error-free TwoSum steps: the expansion plus what it spilled is always the exact sum of the thread's terms.
//      A term that a step cannot hold (the last step leaves an error), a term of 2^960 or more (kept out so that no
//      step can overflow), and a product whose error term would be subnormal go to the block's superaccumulator in
//      shared memory, as integer digits added with atomics. The loads come in chunks (unroll vectors per thread),
//      and each chunk first takes a fast path that is checked once per chunk (float_chunk, two_level_chunk); a
//      chunk that fails the check is added again, term by term, from the state before it;
//   2. the warps merge their threads' expansions the same way (shuffles), and each warp's expansion goes to the
//      block's superaccumulator;
//   3. each block adds its words to the global superaccumulator in the workspace, each word split into its low 32
//      bits and its carry, so that every global word changes by less than 2^33 per block;
//   4. the last block to finish (a counter) reads the global words, rounds once (exact::round_words, on the nonzero
//      words only) and sets the accumulator back to zero for the next call.
#include <algorithm>
#include <cstdint>
#include <string>

#include <cuda_runtime.h>

#include "cuda_check.hpp"
#include "detred/order/lane_values.hpp"
#include "exact_enqueue.hpp"
#include "exact_terms.cuh"

namespace detred::cuda::detail {
namespace {

constexpr int threads_per_block = 256;
/// Loads in flight per thread: enough independent 16-byte loads to cover the memory latency.
constexpr int unroll = 4;
/// Blocks per SM that the launch bounds promise room for (registers): the float sum's chunks are small, the
/// two-level chunks hold their spills, a dot its two operands. The grid never has more blocks than fit at once.
template <exact_kind Kind, class T>
constexpr int blocks_per_sm = Kind != exact_kind::dot&& std::is_same_v<T, float> ? 4
                              : Kind != exact_kind::dot                          ? 3
                                                                                 : 2;
/// Fewest elements per thread: below this, fewer blocks finish sooner (the end of a block costs more than a load).
constexpr std::uint64_t min_elements_per_thread = 16;
/// Most elements per block: each block-level digit stays below 2^63 even if every term spilled into it
/// (2^30 terms * 2^32 per digit, plus the warps' expansions).
constexpr std::uint64_t max_elements_per_block = std::uint64_t{1} << 30;

/// The global accumulator, in the workspace: words of a superaccumulator in two's complement, its flags and the
/// count of blocks that have added theirs.
struct global_accumulator {
  unsigned long long word[superaccumulator::words];
  unsigned int flags;
  unsigned int blocks_done;
};
static_assert(sizeof(global_accumulator) <= exact_accumulator_bytes);

/// The elements [0, head) and [tail_begin, n) that the vector loads do not cover: taken by the grid's first threads.
template <exact_kind Kind, class T>
__device__ void add_edges(thread_sum& t, const T* x, const T* y, std::uint64_t head, std::uint64_t tail_begin,
                          std::uint64_t n, std::uint64_t thread, block_accumulator& acc) {
  if (thread < head) add_element<Kind>(t, x[thread], Kind == exact_kind::dot ? y[thread] : T{}, acc);
  const std::uint64_t i = tail_begin + thread;
  if (i < n) add_element<Kind>(t, x[i], Kind == exact_kind::dot ? y[i] : T{}, acc);
}

/// The last block's one thread: the rounded result, or the normalized state, from the global words.
template <class T>
__device__ __noinline__ void finish(std::int64_t* total, int lowest, int highest, unsigned flags, exact_output<T> out) {
  if (out.state != nullptr) {
    for (int k = 0; k < superaccumulator::words; ++k) out.state->word[k] = total[k];
    out.state->pending = 0;
    out.state->flags = flags;
    exact::normalize(*out.state);
  } else if (out.finishes != exact::finish::rounded) {
    superaccumulator whole;
    for (int k = 0; k < superaccumulator::words; ++k) whole.word[k] = total[k];
    whole.pending = 0;
    whole.flags = flags;
    *out.result = exact::finish_to<T>(out.finishes, whole, out.count);
  } else {
    *out.result = exact::round_words<T>(total, lowest, highest, flags);
  }
}

template <exact_kind Kind, class T, bool Vectors>
__global__ void __launch_bounds__(threads_per_block, blocks_per_sm<Kind, T>)
    exact_kernel(const T* __restrict__ x, const T* __restrict__ y, std::uint64_t n, std::uint64_t head,
                 global_accumulator* __restrict__ global, exact_output<T> out) {
  using V = typename vector_of<T>::type;
  constexpr int width = vector_of<T>::width;
  __shared__ block_accumulator acc;
  __shared__ bool last_block;
  for (int k = threadIdx.x; k < superaccumulator::words; k += blockDim.x) acc.word[k] = 0;
  if (threadIdx.x == 0) acc.flags = 0;
  __syncthreads();

  thread_sum t{};
  const std::uint64_t thread = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  const std::uint64_t threads = std::uint64_t{gridDim.x} * blockDim.x;
  if constexpr (Vectors) {
    const std::uint64_t vectors = (n - head) / width;
    const V* xv = reinterpret_cast<const V*>(x + head);
    const V* yv = reinterpret_cast<const V*>(y + head);
    for (std::uint64_t base = std::uint64_t{blockIdx.x} * blockDim.x * unroll + threadIdx.x; base < vectors;
         base += threads * unroll) {
      V vx[unroll], vy[unroll];
#pragma unroll
      for (int u = 0; u < unroll; ++u) {
        const std::uint64_t i = base + static_cast<std::uint64_t>(u) * blockDim.x;
        if (i < vectors) {
          vx[u] = xv[i];
          if constexpr (Kind == exact_kind::dot) vy[u] = yv[i];
        }
      }
      if (base + static_cast<std::uint64_t>(unroll - 1) * blockDim.x < vectors) {
        T cx[unroll * width], cy[unroll * width];
#pragma unroll
        for (int u = 0; u < unroll; ++u) {
#pragma unroll
          for (int k = 0; k < width; ++k) {
            cx[u * width + k] = element(vx[u], k);
            cy[u * width + k] = Kind == exact_kind::dot ? element(vy[u], k) : T{};
          }
        }
        if constexpr (Kind != exact_kind::dot && std::is_same_v<T, float>) {
          float_chunk<Kind == exact_kind::asum>(t, cx, acc);
        } else {
          two_level_chunk<Kind, T>(t, cx, cy, acc);
        }
      } else {
#pragma unroll
        for (int u = 0; u < unroll; ++u) {
          if (base + static_cast<std::uint64_t>(u) * blockDim.x < vectors) {
            for (int k = 0; k < width; ++k) {
              add_element<Kind, T>(t, element(vx[u], k), Kind == exact_kind::dot ? element(vy[u], k) : T{}, acc);
            }
          }
        }
      }
    }
    add_edges<Kind>(t, x, y, head, head + vectors * width, n, thread, acc);
  } else {
    for (std::uint64_t i = thread; i < n; i += threads) {
      add_element<Kind, T>(t, x[i], Kind == exact_kind::dot ? y[i] : T{}, acc);
    }
  }

  // The warp's expansions merged into lane 0's: lanes below `offset` take in their partner's components.
  const unsigned lane = threadIdx.x % 32;
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) {
    double other[expansion_size];
#pragma unroll
    for (int k = 0; k < expansion_size; ++k) other[k] = __shfl_down_sync(0xffffffffu, t.a[k], offset);
    if (lane < offset) {
#pragma unroll
      for (int k = 0; k < expansion_size; ++k) {
        if (other[k] != 0) insert(t, other[k], acc);
      }
    }
  }
  const unsigned flags = __reduce_or_sync(0xffffffffu, t.flags);
  if (lane == 0) {
#pragma unroll
    for (int k = 0; k < expansion_size; ++k) {
      if (t.a[k] != 0) deposit(acc, t.a[k]);
    }
    if (flags != 0) atomicOr(&acc.flags, flags);
  }
  __syncthreads();

  // The block's words into the global ones: low 32 bits in place, the (signed) rest one word up.
  for (int k = threadIdx.x; k < superaccumulator::words; k += blockDim.x) {
    const auto v = static_cast<long long>(acc.word[k]);
    if (v == 0) continue;
    if (k + 1 == superaccumulator::words) {
      atomicAdd(&global->word[k], static_cast<unsigned long long>(v));
    } else {
      const long long carry = v >> superaccumulator::digit_bits;
      const long long low = v - carry * (1ll << superaccumulator::digit_bits);
      if (low != 0) atomicAdd(&global->word[k], static_cast<unsigned long long>(low));
      if (carry != 0) atomicAdd(&global->word[k + 1], static_cast<unsigned long long>(carry));
    }
  }
  if (threadIdx.x == 0 && acc.flags != 0) atomicOr(&global->flags, acc.flags);
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) last_block = atomicAdd(&global->blocks_done, 1u) == gridDim.x - 1;
  __syncthreads();
  if (!last_block) return;
  __threadfence();

  // The last block: every other block's words are in place (they fenced before counting). The words come into
  // shared memory (and the global ones go back to zero), the block finds the nonzero ones, one thread rounds.
  __shared__ std::int64_t total[superaccumulator::words];
  __shared__ int lowest, highest;
  __shared__ unsigned total_flags;
  if (threadIdx.x == 0) {
    lowest = superaccumulator::words;
    highest = -1;
    total_flags = __ldcg(&global->flags);
    global->flags = 0;
    global->blocks_done = 0;
  }
  __syncthreads();
  for (int k = threadIdx.x; k < superaccumulator::words; k += blockDim.x) {
    total[k] = static_cast<std::int64_t>(__ldcg(&global->word[k]));
    global->word[k] = 0;
    if (total[k] != 0) {
      atomicMin(&lowest, k);
      atomicMax(&highest, k);
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) finish(total, lowest, highest, total_flags, out);
}

template <exact_kind Kind, class T>
void launch(const T* x, const T* y, std::uint64_t n, void* accumulator, exact_output<T> out, stream_t stream) {
  constexpr int width = vector_of<T>::width;
  constexpr std::uintptr_t vector_bytes = sizeof(typename vector_of<T>::type);
  const auto address = reinterpret_cast<std::uintptr_t>(x);
  // Vector loads need x (and y) at the same offset from a 16-byte boundary; the head elements before it go scalar.
  const bool vectors =
      Kind != exact_kind::dot || address % vector_bytes == reinterpret_cast<std::uintptr_t>(y) % vector_bytes;
  std::uint64_t head = (vector_bytes - address % vector_bytes) % vector_bytes / sizeof(T);
  if (head > n) head = n;

  int device = 0;
  int sms = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
  const std::uint64_t per_block_min = std::uint64_t{threads_per_block} * min_elements_per_thread;
  std::uint64_t blocks = (n + per_block_min - 1) / per_block_min;
  const auto resident = static_cast<std::uint64_t>(sms) * blocks_per_sm<Kind, T>;
  if (blocks > resident) blocks = resident;
  const std::uint64_t blocks_for_capacity = (n + max_elements_per_block - 1) / max_elements_per_block;
  if (blocks < blocks_for_capacity) blocks = blocks_for_capacity;
  if (blocks == 0) blocks = 1;
  if (blocks > 0x7fffffffu)
    throw error("CUDA exact reduction: " + std::to_string(n) + " elements need too many blocks");
  // The edges are taken by the first threads: the grid must have at least width of them (it has 256).
  static_assert(threads_per_block >= 2 * width);

  auto* global = static_cast<global_accumulator*>(accumulator);
  const dim3 grid(static_cast<unsigned>(blocks));
  if (vectors) {
    exact_kernel<Kind, T, true><<<grid, threads_per_block, 0, stream>>>(x, y, n, head, global, out);
  } else {
    exact_kernel<Kind, T, false><<<grid, threads_per_block, 0, stream>>>(x, y, n, head, global, out);
  }
  check(cudaGetLastError(), "exact reduction launch");
}

/// out[i] = x[i] widened exactly to float (order::widen, the CPU's widening).
template <class In>
__global__ void widen_kernel(const In* __restrict__ x, float* __restrict__ out, std::uint64_t n) {
  const auto* raw = reinterpret_cast<const order::raw_t<In>*>(x);
  const std::uint64_t threads = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += threads) {
    out[i] = order::widen<float, In>(raw[i]);
  }
}

}  // namespace

template <class In>
void enqueue_widen(const In* x, float* out, std::uint64_t n, stream_t stream) {
  if (n == 0) return;
  constexpr std::uint64_t threads = 256;
  const std::uint64_t blocks = std::min<std::uint64_t>((n + threads - 1) / threads, std::uint64_t{1} << 16);
  widen_kernel<In><<<static_cast<unsigned>(blocks), threads, 0, stream>>>(x, out, n);
  check(cudaGetLastError(), "exact mode's widening launch");
}
template void enqueue_widen<float16>(const float16*, float*, std::uint64_t, stream_t);
template void enqueue_widen<bfloat16>(const bfloat16*, float*, std::uint64_t, stream_t);

template <class T>
void enqueue_exact(exact_kind kind, const T* x, const T* y, std::uint64_t n, void* accumulator, exact_output<T> out,
                   stream_t stream) {
  switch (kind) {
    case exact_kind::sum:
      return launch<exact_kind::sum>(x, y, n, accumulator, out, stream);
    case exact_kind::asum:
      return launch<exact_kind::asum>(x, y, n, accumulator, out, stream);
    case exact_kind::dot:
      return launch<exact_kind::dot>(x, y, n, accumulator, out, stream);
  }
}

template void enqueue_exact<double>(exact_kind, const double*, const double*, std::uint64_t, void*,
                                    exact_output<double>, stream_t);
template void enqueue_exact<float>(exact_kind, const float*, const float*, std::uint64_t, void*, exact_output<float>,
                                   stream_t);

}  // namespace detred::cuda::detail
