// SPDX-License-Identifier: BSD-3-Clause
// One leaf of the canonical scan order on a thread block: the pieces that every GPU scan kernel is made of (the one
// array and the lines in scan.cu, the pieces of one array in scan_pieces.cu). Thread j of a block of W is lane j of
// the order: the block stages the leaf in shared memory (load_leaf), thread j runs its lane's 32 elements
// (staged_lane_sum), the lane totals go through the order's Kogge-Stone scan (block_lane_scan), and with the leaf's
// offset each thread forms its base and writes its outputs (leaf_outputs). Every addition is the operator's
// (order/ops.hpp via order/scan.hpp).
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include <cuda_runtime.h>

#include "device_ops.cuh"
#include "scan_enqueue.hpp"

namespace detred::cuda::detail {

template <class Op>
struct scan_shape {
  using raw = order::raw_t<typename Op::input>;
  using T = typename Op::value;
  using S = typename Op::state;
  using Y = typename Op::result;
  using N = order::node_of<Op>;
  static constexpr unsigned W = order::lanes<T>;
  static constexpr unsigned R = order::scan_lane_length<T>;
  static constexpr unsigned L = order::leaf_size<T>;
  /// Shared memory holds a leaf with one pad element per 32, so that thread j reading its lane's element r (index
  /// 32 j + r, padded 33 j + r) hits bank (j + r) mod 32: no conflicts.
  static constexpr unsigned padded = L + L / 32;
  /// Blocks of a leaf each multiprocessor should hold at once: 12, the most that 18 KiB of shared memory a block
  /// allows with room to spare, which leaves a thread 42 registers for float (W = 128: ptxas uses 40, no spills;
  /// 8 blocks and 64 registers before) and 85 for double (W = 64: 80 used). A block spends most of its life waiting
  /// for its offset (Nsight Compute: two thirds of the stalls at its barrier), so more of them in flight keep more
  /// loads going: H100, 2^28 floats, 0.59 -> 0.655x CUB's InclusiveSum (docs/scan.md).
  static constexpr unsigned min_blocks = 12;
  static_assert(R == warp_size, "a lane holds 32 elements");
  static_assert(std::is_same_v<N, S>, "the scans' leaf tree joins lane states");
};

__device__ __forceinline__ unsigned padded_index(unsigned i) { return i + i / 32; }

/// log2 of the leaves of a fold span (scan.cu's fold_leaf): the perfect subtrees of fewer than 2^fold_log2 leaves
/// that an offset needs, and the span's root that its last leaf publishes, are folded by warp 0 from the published
/// leaf totals of the span (a lane taking 2^(fold_log2 - 5) consecutive leaves, its loads side by side); only roots
/// of whole spans and above are published and awaited. A leaf total is published without any wait, so the offsets'
/// inputs come sooner than with spans of 32 leaves (one leaf a lane), whose last leaf published the span's root after
/// waiting for the first passes of the other 31, which run beside it: the look-ahead then had to span the blocks
/// resident at once (D = 1024) and the second read of a leaf came from DRAM. 256 leaves: 0.70 -> 0.885x CUB's
/// InclusiveSum for 2^28 floats, 0.66 -> 0.77 for 2^27 doubles, tree (docs/scan.md). Nodes of more than 4 bytes
/// where a thread has 42 registers (W = 128: compensated float and 16-bit states) take spans of 128 leaves: a lane's
/// 8 + 1 nodes in flight at once, in tagged words (scan.cu's publish), would spill.
template <class Op>
inline constexpr unsigned fold_log2 = sizeof(order::node_of<Op>) > 4 && order::lanes<typename Op::value> == 128 ? 7 : 8;

template <class Op>
struct leaf_shared {
  using sh = scan_shape<Op>;
  using raw = typename sh::raw;
  using Y = typename sh::Y;
  /// Outputs overwrite the inputs where they have the same size (thread j replaces each of its elements after reading
  /// it); wider outputs (16-bit floats, int32) get a buffer of their own.
  static constexpr bool in_place = sizeof(raw) == sizeof(Y);
  static constexpr unsigned out_at = in_place ? 0 : sh::padded * sizeof(raw);
  alignas(16) unsigned char items[out_at + sh::padded * sizeof(Y)];
  typename sh::S lanes[sh::W];           ///< the lane scan's levels
  typename sh::S offset;                 ///< O_b
  typename sh::S folded[fold_log2<Op>];  ///< fold_leaf (scan.cu): the span's level-k node before the leaf
  typename sh::S last;                   ///< the leaf's last inclusive state
  unsigned ticket;

  __device__ raw* inputs() { return reinterpret_cast<raw*>(items); }
  __device__ Y* outputs() { return reinterpret_cast<Y*>(items + out_at); }
};

/// The second-level cache's eviction priority of a 16-byte access (PTX createpolicy and .L2::cache_hint). The
/// one-array scan's look-ahead reads each leaf twice, D leaves apart: the first read is marked evict-last and the
/// second read and the outputs evict-first, so that the reads in between are the last to leave L2 (scan.cu).
enum class l2_hint : unsigned { normal, evict_last, evict_first };

__device__ __forceinline__ unsigned long long l2_policy(l2_hint hint) {
  unsigned long long policy;
  if (hint == l2_hint::evict_last) {
    asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
  } else {
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
  }
  return policy;
}

/// The policy operand of hinted accesses (0 for l2_hint::normal, which takes none): formed once per leaf, not per
/// access (the compiler does not merge the asm statements).
__device__ __forceinline__ unsigned long long l2_policy_of(l2_hint hint) {
  return hint == l2_hint::normal ? 0 : l2_policy(hint);
}

/// A 16-byte load with `hint`, whose policy operand is l2_policy_of(hint).
__device__ __forceinline__ uint4 load16(const void* p, l2_hint hint, unsigned long long policy) {
  if (hint == l2_hint::normal) return *static_cast<const uint4*>(p);
  uint4 w;
  asm volatile("ld.global.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
               : "=r"(w.x), "=r"(w.y), "=r"(w.z), "=r"(w.w)
               : "l"(p), "l"(policy));
  return w;
}

/// A 16-byte store with `hint`, whose policy operand is l2_policy_of(hint).
__device__ __forceinline__ void store16(void* p, const uint4& w, l2_hint hint, unsigned long long policy) {
  if (hint == l2_hint::normal) {
    *static_cast<uint4*>(p) = w;
    return;
  }
  asm volatile("st.global.L2::cache_hint.v4.u32 [%0], {%1, %2, %3, %4}, %5;" ::"l"(p), "r"(w.x), "r"(w.y), "r"(w.z),
               "r"(w.w), "l"(policy)
               : "memory");
}

/// Stages the leaf x[0..count) in shared memory, coalesced; thread j then reads its lane, elements [32 j, 32 j + 32).
/// The 16-byte loads of a whole aligned leaf carry `hint`.
template <class Op>
__device__ __forceinline__ void load_leaf(const typename scan_shape<Op>::raw* x, unsigned count, leaf_shared<Op>& sh,
                                          unsigned j, l2_hint hint = l2_hint::normal) {
  using shape = scan_shape<Op>;
  using raw = typename shape::raw;
  auto* items = sh.inputs();
  if (count == shape::L && reinterpret_cast<std::uintptr_t>(x) % 16 == 0) {
    // 16-byte loads: thread j takes chunks j, j + W, ... of P elements (the padded stores meet no bank twice).
    constexpr unsigned P = 16 / sizeof(raw);
    const unsigned long long policy = l2_policy_of(hint);
#pragma unroll
    for (unsigned s = 0; s < shape::R / P; ++s) {
      const unsigned c = j + s * shape::W;
      const uint4 w = load16(x + c * P, hint, policy);
      raw e[P];
      memcpy(e, &w, sizeof w);
#pragma unroll
      for (unsigned q = 0; q < P; ++q) items[padded_index(c * P + q)] = e[q];
    }
  } else if (count == shape::L) {
#pragma unroll
    for (unsigned s = 0; s < shape::R; ++s) items[padded_index(j + s * shape::W)] = x[j + s * shape::W];
  } else {
    for (unsigned i = j; i < count; i += shape::W) items[padded_index(i)] = x[i];
  }
  __syncthreads();
}

/// Whether a leaf of Op can be staged by stage_leaf_async: cp.async copies 4, 8 or 16 bytes, and the padded layout
/// puts 16-byte chunks off their alignment, so elements of 4 and 8 bytes are copied one by one (16-bit ones are
/// loaded by load_leaf).
template <class Op>
inline constexpr bool can_stage_async = sizeof(typename scan_shape<Op>::raw) == 4 ||
                                        sizeof(typename scan_shape<Op>::raw) == 8;

/// load_leaf's staging, asynchronous: starts the copies of x[0..count) into the padded buffer and returns at once,
/// so that the block can wait for something else meanwhile; await_staged_leaf ends it. The buffer must be free.
template <class Op>
__device__ __forceinline__ void stage_leaf_async(const typename scan_shape<Op>::raw* x, unsigned count,
                                                 leaf_shared<Op>& sh, unsigned j, l2_hint hint) {
  using shape = scan_shape<Op>;
  using raw = typename shape::raw;
  static_assert(can_stage_async<Op>);
  auto* items = sh.inputs();
  const unsigned long long policy = l2_policy_of(hint);
  for (unsigned i = j; i < count; i += shape::W) {
    const auto to = static_cast<unsigned>(__cvta_generic_to_shared(items + padded_index(i)));
    if (hint == l2_hint::normal) {
      asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(to), "l"(x + i), "n"(sizeof(raw)) : "memory");
    } else {
      asm volatile("cp.async.ca.shared.global.L2::cache_hint [%0], [%1], %2, %3;" ::"r"(to), "l"(x + i),
                   "n"(sizeof(raw)), "l"(policy)
                   : "memory");
    }
  }
  asm volatile("cp.async.commit_group;" ::: "memory");
}

/// Waits for the block's stage_leaf_async copies; then every thread may read the staged leaf.
__device__ __forceinline__ void await_staged_leaf() {
  asm volatile("cp.async.wait_all;" ::: "memory");
  __syncthreads();
}

/// The number of elements of lane j in a leaf of `count`.
template <class Op>
__device__ __forceinline__ unsigned lane_live(unsigned count, unsigned j) {
  constexpr unsigned R = scan_shape<Op>::R;
  const unsigned begin = j * R;
  return begin >= count ? 0 : (count - begin < R ? count - begin : R);
}

/// The running sum of lane j's elements, read from the staged leaf.
template <class Op>
__device__ __forceinline__ typename Op::state staged_lane_sum(leaf_shared<Op>& sh, unsigned j, unsigned live) {
  using T = typename Op::value;
  const auto* items = sh.inputs() + padded_index(j * scan_shape<Op>::R);  // a lane's 32 elements are not padded apart
  typename Op::state p = Op::template identity<T>();
  if (live == warp_size) {
#pragma unroll
    for (unsigned r = 0; r < warp_size; ++r) p = Op::template accumulate<T>(p, items[r]);
  } else {
    for (unsigned r = 0; r < live; ++r) p = Op::template accumulate<T>(p, items[r]);
  }
  return p;
}

/// The running sum of a lane's first `live` elements. Every loop over a lane's registers is unrolled with a guard:
/// an index the compiler cannot resolve would move the array to local memory.
template <class Op>
__device__ __forceinline__ typename Op::state lane_sum(const typename scan_shape<Op>::raw (&v)[warp_size],
                                                       unsigned live) {
  using T = typename Op::value;
  typename Op::state p = Op::template identity<T>();
#pragma unroll
  for (unsigned r = 0; r < warp_size; ++r) {
    if (r < live) p = Op::template accumulate<T>(p, v[r]);
  }
  return p;
}

/// A lane's run of up to 32 contiguous elements into registers: 16-byte loads when the run is whole and aligned.
template <class E>
__device__ __forceinline__ void load_run(const E* p, unsigned live, E (&v)[warp_size]) {
  constexpr unsigned per = 16 / sizeof(E);
  if (live == warp_size && reinterpret_cast<std::uintptr_t>(p) % 16 == 0) {
#pragma unroll
    for (unsigned c = 0; c < warp_size / per; ++c) {
      const uint4 w = *reinterpret_cast<const uint4*>(p + c * per);
      memcpy(&v[c * per], &w, sizeof w);
    }
  } else {
#pragma unroll
    for (unsigned r = 0; r < warp_size; ++r) {
      if (r < live) v[r] = p[r];
    }
  }
}

/// The reverse: registers to a run of `live` contiguous outputs.
template <class E>
__device__ __forceinline__ void store_run(E* p, unsigned live, const E (&v)[warp_size]) {
  constexpr unsigned per = 16 / sizeof(E);
  if (live == warp_size && reinterpret_cast<std::uintptr_t>(p) % 16 == 0) {
#pragma unroll
    for (unsigned c = 0; c < warp_size / per; ++c) {
      uint4 w;
      memcpy(&w, &v[c * per], sizeof w);
      *reinterpret_cast<uint4*>(p + c * per) = w;
    }
  } else {
#pragma unroll
    for (unsigned r = 0; r < warp_size; ++r) {
      if (r < live) p[r] = v[r];
    }
  }
}

/// order::lane_scan evaluated by the block, lane j's total held by thread j: returns e[j]; `total` gets the leaf's.
/// Every level goes through shared memory: at a level d below 32 a lane of the second warp and beyond reads a lane of
/// the warp before it (Kogge-Stone's t[j - d] crosses warps), which a warp shuffle cannot reach.
template <class Op>
__device__ __forceinline__ typename Op::state block_lane_scan(typename Op::state t, unsigned j, leaf_shared<Op>& sh,
                                                              typename Op::state& total) {
  using shape = scan_shape<Op>;
  using S = typename Op::state;
#pragma unroll
  for (unsigned d = 1; d < shape::W; d *= 2) {
    sh.lanes[j] = t;
    __syncthreads();
    if (j >= d) t = Op::combine(sh.lanes[j - d], t);
    __syncthreads();
  }
  sh.lanes[j] = t;
  __syncthreads();
  const S e = j == 0 ? Op::template identity<typename Op::value>() : sh.lanes[j - 1];
  total = sh.lanes[shape::W - 1];
  __syncthreads();
  return e;
}

/// An output from its state: order::scan_value, or for an integer scan the value's low word, noting in
/// (bad, bad_value) the first output (by index) that does not fit.
template <class Op>
__device__ __forceinline__ typename Op::result emit(const typename Op::state& s, std::uint64_t index,
                                                    std::uint64_t& bad, order::wide_integer& bad_value) {
  if constexpr (is_integer_scan<Op>) {
    if (!Op::fits(s) && index < bad) {
      bad = index;
      bad_value = s;
    }
    return static_cast<typename Op::result>(s.low);
  } else {
    return order::scan_value(s);
  }
}

/// Records (index, value) in the overflow record if index is below the one there. Called by at most one thread of
/// a warp, so the lock cannot stall a warp against itself.
inline __device__ void record_overflow(overflow_record* r, std::uint64_t index, order::wide_integer v, bool is_signed) {
  bool done = false;
  while (!done) {
    if (atomicCAS(&r->lock, 0u, 1u) == 0u) {
      __threadfence();
      volatile overflow_record* vr = r;
      if (index < vr->index) {
        vr->index = index;
        vr->low = v.low;
        vr->high = v.high;
        vr->is_signed = is_signed ? 1u : 0u;
      }
      __threadfence();
      atomicExch(&r->lock, 0u);
      done = true;
    }
  }
}

/// The warp's first overflow (threads hold increasing indices, so the lowest thread that has one) goes to the record.
template <class Op>
__device__ __forceinline__ void report_overflow(overflow_record* r, std::uint64_t bad, order::wide_integer bad_value) {
  if constexpr (is_integer_scan<Op>) {
    const unsigned have = __ballot_sync(full_mask, bad != ~std::uint64_t{0});
    if (have != 0 && (threadIdx.x % warp_size) == static_cast<unsigned>(__ffs(have) - 1)) {
      record_overflow(r, bad, bad_value, std::is_signed_v<typename Op::result>);
    }
  }
}

/// The outputs of the staged leaf (count elements; positions index..index + count of the output array) from thread
/// j's e[j] and the offset in sh.offset, staged in shared memory and stored to y[0..count). Exclusive: y[k + 1] is
/// the inclusive output k, and y[0] gets `first` if write_first or is left to the caller. sh.last gets the leaf's
/// last inclusive state. The 16-byte stores of a whole aligned inclusive leaf carry `hint`.
template <class Op, bool Exclusive>
__device__ __forceinline__ void leaf_outputs(unsigned count, const typename Op::state& e, unsigned j,
                                             leaf_shared<Op>& sh, typename Op::result* y, std::uint64_t index,
                                             bool write_first, const typename Op::state& first,
                                             overflow_record* overflow, l2_hint hint = l2_hint::normal) {
  using shape = scan_shape<Op>;
  using T = typename Op::value;
  using S = typename Op::state;
  using Y = typename Op::result;
  S base;
  order::lane_bases<Op>(sh.offset, &e, &base, 1);
  std::uint64_t bad = ~std::uint64_t{0};
  order::wide_integer bad_value{0, 0};
  const unsigned begin = j * shape::R;
  const unsigned live = lane_live<Op>(count, j);
  const auto* in = sh.inputs() + padded_index(begin);
  Y* out = sh.outputs() + padded_index(begin);
  // Inclusive output k is staged at k; an exclusive scan stores it at k + 1.
  const std::uint64_t shift = Exclusive ? 1 : 0;
  S p = Op::template identity<T>();
  const auto step = [&](unsigned r) {
    p = Op::template accumulate<T>(p, in[r]);  // read before out[r] may overwrite it
    const S s = Op::combine(base, p);
    if (!Exclusive || begin + r + 1 < count) out[r] = emit<Op>(s, index + begin + r + shift, bad, bad_value);
    if (begin + r + 1 == count) sh.last = s;
  };
  if (live == warp_size) {
#pragma unroll
    for (unsigned r = 0; r < warp_size; ++r) step(r);
  } else {
    for (unsigned r = 0; r < live; ++r) step(r);
  }
  Y first_value{};
  if (Exclusive && write_first && j == 0) first_value = emit<Op>(first, index, bad, bad_value);
  report_overflow<Op>(overflow, bad, bad_value);
  __syncthreads();
  const Y* staged = sh.outputs();
  if constexpr (Exclusive) {
    if (write_first && j == 0) y[0] = first_value;
    for (unsigned i = 1 + j; i < count; i += shape::W) y[i] = staged[padded_index(i - 1)];
  } else if (count == shape::L && reinterpret_cast<std::uintptr_t>(y) % 16 == 0) {
    constexpr unsigned P = 16 / sizeof(Y);
    const unsigned long long policy = l2_policy_of(hint);
#pragma unroll
    for (unsigned s = 0; s < shape::R / P; ++s) {
      const unsigned c = j + s * shape::W;
      Y e[P];
#pragma unroll
      for (unsigned q = 0; q < P; ++q) e[q] = staged[padded_index(c * P + q)];
      uint4 w;
      memcpy(&w, e, sizeof w);
      store16(y + c * P, w, hint, policy);
    }
  } else if (count == shape::L) {
#pragma unroll
    for (unsigned s = 0; s < shape::R; ++s) y[j + s * shape::W] = staged[padded_index(j + s * shape::W)];
  } else {
    for (unsigned i = j; i < count; i += shape::W) y[i] = staged[padded_index(i)];
  }
  __syncthreads();  // the buffer takes the next leaf
}

/// The number of elements of leaf f of an array of n.
template <class Op>
__device__ __forceinline__ unsigned leaf_elements(std::uint64_t n, std::uint64_t f) {
  constexpr unsigned L = scan_shape<Op>::L;
  const std::uint64_t start = f * L;
  return n - start < L ? static_cast<unsigned>(n - start) : L;
}

/// The leaf tree's perfect subtrees of a scan of `leaves` leaves, stored level by level: level k holds the
/// leaves >> k roots of 2^k leaves each (level 0 the leaf totals). Index of node i of level k.
__host__ __device__ __forceinline__ std::uint64_t node_index(std::uint64_t leaves, int k, std::uint64_t i) {
  std::uint64_t base = 0;
  for (int l = 0; l < k; ++l) base += leaves >> l;
  return base + i;
}

/// The nodes of every level of that tree.
inline std::uint64_t tree_nodes(std::uint64_t leaves) {
  int levels = 0;
  while (levels < 64 && (leaves >> levels) != 0) ++levels;
  return node_index(leaves, levels, 0);
}

}  // namespace detred::cuda::detail
