// Device building blocks shared by the kernels: 16-byte row loads, warp shuffles of a state, and the left-perfect
// fold of up to 32 states held one per lane. Every operation on states goes through the operator (order/ops.hpp);
// nothing here chooses an order of its own beyond evaluating the order's trees in parallel.
#pragma once

#include <cstdint>

#include "detred/order.hpp"

namespace detred::cuda::detail {

inline constexpr unsigned warp_size = 32;
inline constexpr unsigned full_mask = 0xffffffffu;

/// Lanes of the canonical order each thread holds: one 16-byte load's worth. W * sizeof(T) = 512 bytes, so a warp's
/// 32 16-byte loads cover one row of W elements, and thread t holds lanes [t * k, t * k + k).
template <class T>
inline constexpr unsigned lanes_per_thread = 16 / sizeof(T);
static_assert(order::lanes<float> == warp_size * lanes_per_thread<float>);
static_assert(order::lanes<double> == warp_size * lanes_per_thread<double>);

template <class T>
struct vector16;
template <>
struct vector16<float> {
  using type = float4;
};
template <>
struct vector16<double> {
  using type = double2;
};

/// Loads the thread's k lanes of one row. Aligned: one 16-byte load. Otherwise k scalar loads of the same elements,
/// so a misaligned pointer gives every lane the same elements, in the same order, as an aligned one.
template <class T, bool Aligned>
__device__ __forceinline__ void load_row(const T* __restrict__ p, T (&v)[lanes_per_thread<T>]) {
  if constexpr (Aligned) {
    using V16 = typename vector16<T>::type;
    const V16 q = __ldg(reinterpret_cast<const V16*>(p));
    if constexpr (sizeof(T) == 4) {
      v[0] = q.x;
      v[1] = q.y;
      v[2] = q.z;
      v[3] = q.w;
    } else {
      v[0] = q.x;
      v[1] = q.y;
    }
  } else {
#pragma unroll
    for (unsigned s = 0; s < lanes_per_thread<T>; ++s) v[s] = __ldg(p + s);
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

/// The state of lane `from`.
template <class S>
__device__ __forceinline__ S broadcast(S v, unsigned from) {
  return move_words(v, [from](unsigned word) { return __shfl_sync(full_mask, word, from); });
}

/// The state of an empty lane or subtree.
template <class Op>
__device__ __forceinline__ typename Op::state empty() {
  return Op::template identity<typename Op::input>();
}

/// The left-perfect tree over `count` <= 32 states, state i held by lane i; the root lands in lane 0. This is
/// order::fold_pairwise with the 32 values spread over a warp: pairing neighbours level by level, an unpaired last
/// value moving up unchanged. The same holds one level up, so folding the roots of aligned power-of-two groups
/// (leaves per warp, warps per block, blocks per pass) gives the root over the leaves.
template <class Op>
__device__ __forceinline__ typename Op::state warp_fold(typename Op::state v, unsigned count, unsigned lane) {
#pragma unroll
  for (unsigned s = 1; s < warp_size; s *= 2) {
    const typename Op::state other = shuffle_down(v, s);
    if ((lane & (2 * s - 1)) == 0 && lane + s < count) v = Op::combine(v, other);
  }
  return v;
}

}  // namespace detred::cuda::detail
