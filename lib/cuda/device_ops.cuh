// SPDX-License-Identifier: BSD-3-Clause
// Device building blocks shared by the kernels: 16-byte row loads, warp shuffles of a state, and the left-perfect
// fold of up to 32 states held one per lane. Every operation on states goes through the operator (order/ops.hpp);
// nothing here chooses an order of its own beyond evaluating the order's trees in parallel.
#pragma once

#include <cstdint>

#include "detred/order.hpp"

namespace detred::cuda::detail {

inline constexpr unsigned warp_size = 32;
inline constexpr unsigned full_mask = 0xffffffffu;

/// Lanes of the canonical order each thread holds: 16 bytes of lane values. W * sizeof(value) = 512 bytes, so a
/// warp's 32 threads cover one row of W lanes, and thread t holds lanes [t * k, t * k + k).
template <class V>
inline constexpr unsigned lanes_per_thread = 16 / sizeof(V);
static_assert(order::lanes<float> == warp_size * lanes_per_thread<float>);
static_assert(order::lanes<double> == warp_size * lanes_per_thread<double>);

/// An unsigned word of `bytes` (4, 8 or 16) for one read-only load.
template <unsigned bytes>
struct load_word;
template <>
struct load_word<2> {
  using type = unsigned short;
};
template <>
struct load_word<4> {
  using type = unsigned int;
};
template <>
struct load_word<8> {
  using type = uint2;
};
template <>
struct load_word<16> {
  using type = uint4;
};

/// Loads the thread's k stored elements of one row of an operand (k lanes' worth, as stored: 16 bytes of float or
/// double, 8 bytes of 16-bit floats or int32 under 64-bit lanes). Aligned: one load of all k. Otherwise k loads of
/// one element each, so a misaligned pointer gives every lane the same elements, in the same order, as an aligned
/// one.
template <class Input, unsigned k, bool Aligned>
__device__ __forceinline__ void load_row(const Input* __restrict__ p, order::raw_t<Input> (&v)[k]) {
  if constexpr (Aligned) {
    using word = typename load_word<k * sizeof(Input)>::type;
    const word w = __ldg(reinterpret_cast<const word*>(p));
    memcpy(v, &w, sizeof w);
  } else {
    using word = typename load_word<sizeof(Input) == 8 ? 8 : sizeof(Input)>::type;
#pragma unroll
    for (unsigned s = 0; s < k; ++s) {
      if constexpr (sizeof(Input) == 8) {
        const unsigned long long w = __ldg(reinterpret_cast<const unsigned long long*>(p + s));
        memcpy(&v[s], &w, sizeof w);
      } else {
        const word w = __ldg(reinterpret_cast<const word*>(p + s));
        memcpy(&v[s], &w, sizeof w);
      }
    }
  }
}

/// Element i of operand a as stored, by one read-only load of its own width. The public entry points take typed
/// pointers, so every element is aligned to its size (order::operands::element's memcpy would be lowered to a load
/// per byte, as nvcc cannot see that).
template <class Op>
__device__ __forceinline__ order::raw_t<typename Op::input> load_element(const order::operands<Op>& x, unsigned a,
                                                                         std::uint64_t i) {
  using raw = order::raw_t<typename Op::input>;
  const auto w = __ldg(reinterpret_cast<const typename load_word<sizeof(raw)>::type*>(x.data[a] + i));
  raw r;
  memcpy(&r, &w, sizeof r);
  return r;
}

/// order::accumulate_element with load_element's loads.
template <class Op>
__device__ __forceinline__ typename Op::state accumulate_loaded(const typename Op::state& s,
                                                                const order::operands<Op>& x, std::uint64_t i) {
  if constexpr (Op::arity == 1) {
    return Op::accumulate(s, load_element<Op>(x, 0, i));
  } else {
    return Op::accumulate(s, load_element<Op>(x, 0, i), load_element<Op>(x, 1, i));
  }
}

/// A state moved between the lanes of a warp 32 bits at a time, by `move(word)` (a warp shuffle): any operator's
/// state (order/ops.hpp), bit for bit.
template <class S, class Move>
__device__ __forceinline__ S move_words(S v, Move move) {
  static_assert(sizeof(S) % 4 == 0, "states are whole 32-bit words");
  unsigned w[sizeof(S) / 4];
  memcpy(w, &v, sizeof v);
#pragma unroll
  for (unsigned i = 0; i < sizeof(S) / 4; ++i) w[i] = move(w[i]);
  memcpy(&v, w, sizeof v);
  return v;
}

/// The state of lane + d.
template <class S>
__device__ __forceinline__ S shuffle_down(S v, unsigned d) {
  return move_words(v, [d](unsigned word) { return __shfl_down_sync(full_mask, word, d); });
}

/// The state of lane ^ d.
template <class S>
__device__ __forceinline__ S shuffle_xor(S v, unsigned d) {
  return move_words(v, [d](unsigned word) { return __shfl_xor_sync(full_mask, word, d); });
}

/// The state of lane `from`.
template <class S>
__device__ __forceinline__ S broadcast(S v, unsigned from) {
  return move_words(v, [from](unsigned word) { return __shfl_sync(full_mask, word, from); });
}

/// The node of an empty subtree.
template <class Op>
__device__ __forceinline__ order::node_of<Op> empty() {
  return order::empty_node<Op>();
}

/// The left-perfect tree over `count` <= 32 nodes, node i held by lane i; the root lands in lane 0. This is
/// order::fold_pairwise with the 32 values spread over a warp: pairing neighbours level by level, an unpaired last
/// value moving up unchanged. The same holds one level up, so folding the roots of aligned power-of-two groups
/// (leaves per warp, warps per block, blocks per pass) gives the root over the leaves.
template <class Op>
__device__ __forceinline__ order::node_of<Op> warp_fold(order::node_of<Op> v, unsigned count, unsigned lane) {
#pragma unroll
  for (unsigned s = 1; s < warp_size; s *= 2) {
    const order::node_of<Op> other = shuffle_down(v, s);
    if ((lane & (2 * s - 1)) == 0 && lane + s < count) v = order::merge<Op>(v, other);
  }
  return v;
}

}  // namespace detred::cuda::detail
