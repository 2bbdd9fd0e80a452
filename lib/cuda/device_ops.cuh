// Device building blocks shared by the kernels: 16-byte row loads, warp shuffles of an accumulator, and the
// left-perfect fold of up to 32 values held one per lane. Every addition goes through order::accumulate and
// order::combine; nothing here chooses an order of its own beyond evaluating the order's trees in parallel.
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

/// The empty accumulator: -0.0, or (-0.0, -0.0) in compensated mode (order::accumulator_identity, built here from
/// order::identity because a constexpr class-type constant cannot be read in device code).
template <class V>
struct empty_accumulator {
  __device__ static V value() { return order::identity<V>(); }
};
template <class T>
struct empty_accumulator<order::pair<T>> {
  __device__ static order::pair<T> value() { return {order::identity<T>(), order::identity<T>()}; }
};

__device__ __forceinline__ float shuffle_down(float v, unsigned d) { return __shfl_down_sync(full_mask, v, d); }
__device__ __forceinline__ double shuffle_down(double v, unsigned d) { return __shfl_down_sync(full_mask, v, d); }
template <class T>
__device__ __forceinline__ order::pair<T> shuffle_down(order::pair<T> v, unsigned d) {
  return {shuffle_down(v.sum, d), shuffle_down(v.correction, d)};
}

__device__ __forceinline__ float broadcast(float v, unsigned from) { return __shfl_sync(full_mask, v, from); }
__device__ __forceinline__ double broadcast(double v, unsigned from) { return __shfl_sync(full_mask, v, from); }
template <class T>
__device__ __forceinline__ order::pair<T> broadcast(order::pair<T> v, unsigned from) {
  return {broadcast(v.sum, from), broadcast(v.correction, from)};
}

/// The left-perfect tree over `count` <= 32 values, value i held by lane i; the root lands in lane 0.
/// Pairing neighbours level by level, an unpaired last value moving up unchanged, builds exactly the left-perfect
/// tree: after level l the live values are the roots of aligned blocks of 2^l values with one ragged last block,
/// which are the subtrees order::subtree_stack combines. The same holds one level up, so folding the roots of
/// aligned power-of-two groups (leaves per warp, warps per block, blocks per pass) gives the root over the leaves.
template <class V>
__device__ __forceinline__ V warp_fold(V v, unsigned count, unsigned lane) {
#pragma unroll
  for (unsigned s = 1; s < warp_size; s *= 2) {
    const V other = shuffle_down(v, s);
    if ((lane & (2 * s - 1)) == 0 && lane + s < count) v = order::combine(v, other);
  }
  return v;
}

/// The same left-perfect fold over a thread's own registers v[0..count), count <= N, N a power of two.
template <class V, unsigned N>
__device__ __forceinline__ V register_fold(V (&v)[N], unsigned count) {
#pragma unroll
  for (unsigned s = 1; s < N; s *= 2) {
#pragma unroll
    for (unsigned i = 0; i + s < N; i += 2 * s) {
      if (i + s < count) v[i] = order::combine(v[i], v[i + s]);
    }
  }
  return v[0];
}

}  // namespace detred::cuda::detail
