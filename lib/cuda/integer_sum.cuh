// SPDX-License-Identifier: BSD-3-Clause
// Exact sums of 32- and 64-bit integers on the GPU. Integer addition is associative, so the exact 128-bit sum has the
// same bits in any order (order/integer_sum.hpp): these kernels skip the canonical order's lanes and trees, which
// cost the leaf pass registers and bandwidth on 64-bit elements, and stream the array like a plain reduction.
//   integer_block_sums:  each thread adds its 16-byte vectors (a grid-stride loop, four loads in flight) and the
//                        elements of the unaligned head and the tail into a 128-bit accumulator; each block writes
//                        the sum of its threads.
//   integer_final_sum:   one block adds the block sums and writes the result.
//   enqueue_integer_sum: launches them (enqueue_reduction sends integer_sum_op here).
// The accumulators wrap modulo 2^128, which no sum of fewer than 2^64 elements of 64 bits reaches: every partial sum
// is exact.
#pragma once

#include <cstdint>
#include <type_traits>

#include "cuda_check.hpp"
#include "detred/order/integer_sum.hpp"
#include "enqueue.hpp"

namespace detred::cuda::detail {

/// Threads of the first kernel's blocks when there are several (at most integer_max_blocks, enqueue.hpp), and
/// the 16-byte vectors a thread takes at least before a second block is launched; a lone block (small n, and the
/// final sum) has 1024 threads.
inline constexpr unsigned integer_threads = 256;
inline constexpr std::uint64_t integer_min_vectors = 4;
inline constexpr unsigned integer_max_threads = 1024;

using uint128 = unsigned __int128;

/// x as a 128-bit two's complement number (sign- or zero-extended).
template <class I>
__device__ __forceinline__ uint128 widened(I x) {
  if constexpr (std::is_signed_v<I>) {
    return static_cast<uint128>(static_cast<__int128>(x));
  } else {
    return static_cast<uint128>(x);
  }
}

/// The elements of one 16-byte vector, widened and added.
template <class I>
__device__ __forceinline__ uint128 vector_sum(const uint4& v) {
  if constexpr (sizeof(I) == 8) {
    const auto a = static_cast<I>((std::uint64_t{v.y} << 32) | v.x);
    const auto b = static_cast<I>((std::uint64_t{v.w} << 32) | v.z);
    return widened(a) + widened(b);
  } else {
    // Four 32-bit elements fit a 64-bit sum exactly.
    return widened(static_cast<std::int64_t>(static_cast<I>(v.x)) + static_cast<I>(v.y) + static_cast<I>(v.z) +
                   static_cast<I>(v.w));
  }
}

/// The block's total, valid in thread 0. Every thread of the block (a whole number of warps) must call it.
__device__ __forceinline__ uint128 block_total(uint128 acc) {
  __shared__ std::uint64_t low[integer_max_threads / 32];
  __shared__ std::uint64_t high[integer_max_threads / 32];
  for (int offset = 16; offset > 0; offset /= 2) {
    const std::uint64_t l = __shfl_down_sync(0xffffffffu, static_cast<std::uint64_t>(acc), offset);
    const std::uint64_t h = __shfl_down_sync(0xffffffffu, static_cast<std::uint64_t>(acc >> 64), offset);
    acc += (static_cast<uint128>(h) << 64) | l;
  }
  const unsigned warp = threadIdx.x / 32;
  if (threadIdx.x % 32 == 0) {
    low[warp] = static_cast<std::uint64_t>(acc);
    high[warp] = static_cast<std::uint64_t>(acc >> 64);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (unsigned w = 1; w < blockDim.x / 32; ++w) acc += (static_cast<uint128>(high[w]) << 64) | low[w];
  }
  return acc;
}

template <class I>
__global__ void __launch_bounds__(integer_max_threads)
    integer_block_sums(const I* __restrict__ x, std::uint64_t n, order::wide_integer* __restrict__ sums) {
  constexpr std::uint64_t per_vector = 16 / sizeof(I);
  // Elements before the first 16-byte boundary (the pointer is aligned to its element), and after the last vector.
  const std::uint64_t misaligned = reinterpret_cast<std::uintptr_t>(x) % 16 / sizeof(I);
  const std::uint64_t head = misaligned == 0 ? 0 : (per_vector - misaligned < n ? per_vector - misaligned : n);
  const std::uint64_t vectors = (n - head) / per_vector;
  const std::uint64_t tail = head + vectors * per_vector;
  const std::uint64_t thread = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  const std::uint64_t threads = std::uint64_t{gridDim.x} * blockDim.x;

  uint128 acc = 0;
  if (thread < head) acc += widened(x[thread]);
  if (thread < n - tail) acc += widened(x[tail + thread]);
  const uint4* const body = reinterpret_cast<const uint4*>(x + head);
  std::uint64_t v = thread;
  for (; v + 3 * threads < vectors; v += 4 * threads) {
    const uint4 a = __ldg(body + v);
    const uint4 b = __ldg(body + v + threads);
    const uint4 c = __ldg(body + v + 2 * threads);
    const uint4 d = __ldg(body + v + 3 * threads);
    acc += vector_sum<I>(a) + vector_sum<I>(b) + vector_sum<I>(c) + vector_sum<I>(d);
  }
  for (; v < vectors; v += threads) acc += vector_sum<I>(__ldg(body + v));

  acc = block_total(acc);
  if (threadIdx.x == 0) sums[blockIdx.x] = {static_cast<std::uint64_t>(acc), static_cast<std::uint64_t>(acc >> 64)};
}

__global__ void __launch_bounds__(integer_max_threads)
    integer_final_sum(const order::wide_integer* __restrict__ sums, std::uint64_t count,
                      order::wide_integer* __restrict__ result) {
  uint128 acc = 0;
  for (std::uint64_t k = threadIdx.x; k < count; k += blockDim.x) {
    acc += (static_cast<uint128>(sums[k].high) << 64) | sums[k].low;
  }
  acc = block_total(acc);
  if (threadIdx.x == 0) *result = {static_cast<std::uint64_t>(acc), static_cast<std::uint64_t>(acc >> 64)};
}

/// Enqueues the exact sum of x[0..n) into `result`: enough blocks that each thread takes integer_min_vectors
/// 16-byte vectors, up to integer_max_blocks, whose sums go to `block_sums` (partial_bytes of the integer sum), then
/// one block adds them. A single block writes the result itself.
template <class I>
void enqueue_integer_sum(const I* x, std::uint64_t n, void* block_sums, order::wide_integer* result,
                         cudaStream_t stream) {
  const std::uint64_t vectors = n / (16 / sizeof(I));
  const std::uint64_t wanted = vectors / (std::uint64_t{integer_threads} * integer_min_vectors);
  const std::uint64_t blocks = wanted < integer_max_blocks ? wanted : integer_max_blocks;
  if (blocks <= 1) {
    integer_block_sums<I><<<1, integer_max_threads, 0, stream>>>(x, n, result);
    check(cudaGetLastError(), "integer sum launch");
    return;
  }
  auto* const sums = static_cast<order::wide_integer*>(block_sums);
  integer_block_sums<I><<<static_cast<unsigned>(blocks), integer_threads, 0, stream>>>(x, n, sums);
  check(cudaGetLastError(), "integer sum launch");
  integer_final_sum<<<1, integer_max_threads, 0, stream>>>(sums, blocks, result);
  check(cudaGetLastError(), "integer sum launch");
}

}  // namespace detred::cuda::detail
