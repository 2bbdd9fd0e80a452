// SPDX-License-Identifier: BSD-3-Clause
// stats' min and max on the GPU, kept per thread instead of per lane. Which element is the smallest does not depend on
// how the elements are grouped (totalOrder keys are a total order), so a thread may keep one pair of keys over every
// element it loads, across all the leaves of its run, and the lanes (and their tree of shuffles) carry only the sums
// (order::moment_sums). The result is the node the lanes would have given: order::moments_op::with_extremes applies
// the same NaN rule to the pair.
#pragma once

#include <cstdint>
#include <cstring>

#include "detred/order.hpp"
#include "device_ops.cuh"

namespace detred::cuda::detail {

/// What an operator's lanes hold on the GPU (`lanes`), and whether its threads keep the extremes apart.
template <class Op>
struct lane_operator {
  using lanes = Op;
  static constexpr bool extremes_apart = false;
};
template <class T>
struct lane_operator<order::moments_op<T>> {
  using lanes = typename order::moments_op<T>::sums;
  static constexpr bool extremes_apart = true;
};

/// No extremes kept apart: every call does nothing.
struct no_extremes {
  template <unsigned R, unsigned k, class Rows>
  __device__ void take_rows(const Rows&) {}
  template <class X>
  __device__ void take(X) {}
};

/// One thread's smallest and largest totalOrder key (order::total_order_key) of the T it has taken.
template <class T>
struct thread_extremes {
  using key_t = order::signed_bits_t<T>;
  key_t low = key(order::moments_op<T>::low::identity());
  key_t high = key(order::moments_op<T>::high::identity());

  __device__ static key_t key(T x) {
    const T k = order::total_order_key(x);
    key_t r;
    memcpy(&r, &k, sizeof r);
    return r;
  }
  __device__ void take(T x) {
    const key_t k = key(x);
    low = k < low ? k : low;
    high = k > high ? k : high;
  }
  /// R rows of k elements each (rows[u].v[0] is row u), taken by the whole warp. Every key takes the full update:
  /// filtering batches by their keys' high words (one vote a batch, the full update only where some thread of the
  /// warp might meet a new extreme) paid while the leaf pass of doubles spilled (0.806 -> 0.827x CUB Sum on the H200),
  /// and cost once the run's lane roots moved to shared memory: 0.900-0.905x with it, 0.908-0.913x without
  /// (docs/cuda.md).
  template <unsigned R, unsigned k, class Rows>
  __device__ void take_rows(const Rows& rows) {
#pragma unroll
    for (unsigned u = 0; u < R; ++u) {
#pragma unroll
      for (unsigned s = 0; s < k; ++s) take(rows[u].v[0][s]);
    }
  }
  /// The warp's pair, valid in lane 0.
  __device__ thread_extremes warp_reduced() const {
    thread_extremes r = *this;
#pragma unroll
    for (unsigned d = warp_size / 2; d >= 1; d /= 2) {
      const key_t other_low = shuffle_down(r.low, d);
      const key_t other_high = shuffle_down(r.high, d);
      r.low = other_low < r.low ? other_low : r.low;
      r.high = other_high > r.high ? other_high : r.high;
    }
    return r;
  }
  /// The keys as the T whose bits they are (what order::moments_op::with_extremes takes).
  __device__ T low_key() const { return as_value(low); }
  __device__ T high_key() const { return as_value(high); }
  __device__ static T as_value(key_t k) {
    T r;
    memcpy(&r, &k, sizeof r);
    return r;
  }
};

/// The extremes a thread of Op's leaf pass keeps: thread_extremes for stats, nothing for the others.
template <class Op>
struct extremes_for {
  using type = no_extremes;
};
template <class T>
struct extremes_for<order::moments_op<T>> {
  using type = thread_extremes<T>;
};
template <class Op>
using extremes_of = typename extremes_for<Op>::type;

/// node with the warp's extremes joined in (lane 0's result is the one that counts).
template <class Op>
__device__ __forceinline__ order::node_of<Op> with_warp_extremes(const order::node_of<Op>& node,
                                                                 const extremes_of<Op>& mine) {
  if constexpr (lane_operator<Op>::extremes_apart) {
    const auto warp = mine.warp_reduced();
    return Op::with_extremes(node, warp.low_key(), warp.high_key());
  } else {
    return node;
  }
}

}  // namespace detred::cuda::detail
