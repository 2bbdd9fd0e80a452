// The canonical order, version 1: the one definition of which floating-point additions a reduction performs.
//
// Every backend (the scalar reference, the SIMD paths, the OpenMP driver, the CUDA kernels) calls these functions;
// none re-derives the order. docs/canonical-order.md states the same order in prose, with the reasons.
//
//   leaves     element i belongs to leaf i / L (L = leaf_size<T>); the last leaf may be ragged.
//   lanes      inside a leaf, element i belongs to lane i % W (W = lanes<T>). Each lane starts at the identity -0.0
//              and adds its elements in increasing index order.
//   lane tree  halving: for h = W/2, W/4, ..., 1: lane[j] = lane[j] (+) lane[j + h] for j < h. lane[0] is the leaf.
//   leaf tree  left-perfect: T(0..m) = T(0..p) (+) T(p..m), p the largest power of two below m.
//   finalize   tree: the root, with any NaN replaced by the canonical quiet NaN.
//              compensated: see finalize(pair) below.
//
// Changing anything in this file that alters a result bit requires bumping order_version (and the golden vectors).
#pragma once

#include <cstdint>
#include <limits>

#include "detred/config.hpp"

namespace detred {

/// Version of the canonical order. Result bits are a pure function of (operation, mode, type, n, values, version).
inline constexpr int order_version = 1;

namespace order {
/// Lanes per leaf (W) and elements per leaf (L), per element type. Both are powers of two and L is a multiple of W.
/// W * sizeof(T) = 512 bytes: eight AVX-512 registers of accumulators on the CPU, one warp's 16-byte loads on the GPU.
/// L = 32 W: long enough that the per-leaf lane tree costs little, short enough that the depth (and so the error
/// bound) stays small. docs/canonical-order.md gives the measurements behind both choices.
template <class T>
struct shape;

template <>
struct shape<double> {
  static constexpr std::uint64_t lanes = 64;
  static constexpr std::uint64_t leaf_size = 2048;
};

template <>
struct shape<float> {
  static constexpr std::uint64_t lanes = 128;
  static constexpr std::uint64_t leaf_size = 4096;
};

template <class T>
inline constexpr std::uint64_t lanes = shape<T>::lanes;
template <class T>
inline constexpr std::uint64_t leaf_size = shape<T>::leaf_size;

/// Unit roundoff u: 2^-53 for double, 2^-24 for float.
template <class T>
inline constexpr double unit_roundoff = static_cast<double>(std::numeric_limits<T>::epsilon()) / 2;

/// Compensated mode's accumulator: the sum and the running correction.
template <class T>
struct pair {
  T sum;
  T correction;
};

/// The starting value of a lane, and the value of an empty reduction, for either accumulator type.
template <class V>
struct accumulator_identity;
template <>
struct accumulator_identity<double> {
  static constexpr double value = -0.0;
};
template <>
struct accumulator_identity<float> {
  static constexpr float value = -0.0f;
};
template <class T>
struct accumulator_identity<pair<T>> {
  static constexpr pair<T> value = {T(-0.0), T(-0.0)};
};

// Everything below is code. The inline namespace gives it a name of its own in each translation unit that sets
// DETRED_ORDER_ABI: the per-instruction-set kernels set it, so an inline function compiled with AVX-512 can never be
// merged by the linker into code that runs on a CPU without AVX-512. Types above stay shared.
#ifndef DETRED_ORDER_ABI
#define DETRED_ORDER_ABI portable
#endif
inline namespace DETRED_ORDER_ABI {

/// ceil(log2(m)) for m >= 1; 0 for m <= 1.
DETRED_HOST_DEVICE constexpr int ceil_log2(std::uint64_t m) {
  int k = 0;
  while (k < 64 && (std::uint64_t{1} << k) < m) ++k;
  return k;
}

/// log2 of a power of two.
DETRED_HOST_DEVICE constexpr int exact_log2(std::uint64_t power_of_two) { return ceil_log2(power_of_two); }

/// Number of leaves holding n elements: ceil(n / L).
template <class T>
DETRED_HOST_DEVICE constexpr std::uint64_t leaf_count(std::uint64_t n) {
  return n / leaf_size<T> + (n % leaf_size<T> != 0 ? 1 : 0);
}

/// Largest power of two strictly below m (m >= 2): the split point of the left-perfect leaf tree.
DETRED_HOST_DEVICE constexpr std::uint64_t left_split(std::uint64_t m) {
  std::uint64_t p = 1;
  while (p * 2 < m) p *= 2;
  return p;
}

/// D(n): the largest number of rounded additions on any path from an element to the root of the tree-mode sum.
///   (r - 1)          the lane chain: r = ceil(min(n, L) / W) elements in the longest lane, the first of which is
///                    added to the identity exactly;
///   + log2 W         the lane tree;
///   + ceil(log2 m)   the left-perfect leaf tree over m = ceil(n / L) leaves.
/// D(0) = 0. Tree mode satisfies |S - S^| <= gamma_D * sum |x_i| (docs/error-bounds.md).
template <class T>
DETRED_HOST_DEVICE constexpr int depth(std::uint64_t n) {
  if (n == 0) return 0;
  const std::uint64_t in_first_leaf = n < leaf_size<T> ? n : leaf_size<T>;
  const std::uint64_t longest_lane = in_first_leaf / lanes<T> + (in_first_leaf % lanes<T> != 0 ? 1 : 0);
  return static_cast<int>(longest_lane - 1) + exact_log2(lanes<T>) + ceil_log2(leaf_count<T>(n));
}

/// D'(n): the largest number of rounded additions an error term passes through in the correction sum of
/// compensated mode. Lane steps add one addition each; each tree level adds two ((c1 + c2) + e).
template <class T>
DETRED_HOST_DEVICE constexpr int correction_depth(std::uint64_t n) {
  if (n == 0) return 0;
  const int tree_levels = exact_log2(lanes<T>) + ceil_log2(leaf_count<T>(n));
  return depth<T>(n) + tree_levels;
}

/// The sum identity. -0.0, not +0.0: (-0.0) + x == x bit for bit for every x, so a sum of -0.0s stays -0.0 and
/// padding a ragged leaf with the identity changes nothing.
template <class T>
DETRED_HOST_DEVICE constexpr T identity() {
  return T(-0.0);
}

/// True for NaN. Written as a comparison so that it is constexpr and identical on host and device.
template <class T>
DETRED_HOST_DEVICE constexpr bool is_nan(T x) {
  return x != x;
}

/// True for finite x: x - x is 0 for finite x and NaN for +-Inf and NaN.
template <class T>
DETRED_HOST_DEVICE constexpr bool is_finite(T x) {
  return (x - x) == (x - x);
}

/// The one NaN every reduction returns: the positive quiet NaN with an empty payload (0x7ff8000000000000 for
/// double, 0x7fc00000 for float). x86 and CUDA propagate NaN payloads differently; this removes the difference.
template <class T>
DETRED_HOST_DEVICE constexpr T canonical_nan() {
  return std::numeric_limits<T>::quiet_NaN();
}

// ---------------------------------------------------------------------------------------------------------------
// Tree mode: plain additions.

/// Adds one element to a lane.
template <class T>
DETRED_HOST_DEVICE constexpr T accumulate(T lane, T x) {
  return lane + x;
}

/// Joins two subtrees.
template <class T>
DETRED_HOST_DEVICE constexpr T combine(T a, T b) {
  return a + b;
}

template <class T>
DETRED_HOST_DEVICE constexpr T finalize(T root) {
  return is_nan(root) ? canonical_nan<T>() : root;
}

// ---------------------------------------------------------------------------------------------------------------
// Compensated mode: an error-free (sum, correction) pair through the same tree.

/// Knuth's TwoSum, branch-free, six operations in exactly this order: s + e == a + b exactly (barring overflow).
template <class T>
DETRED_HOST_DEVICE constexpr pair<T> two_sum(T a, T b) {
  const T s = a + b;
  const T bb = s - a;
  const T e = (a - (s - bb)) + (b - bb);
  return {s, e};
}

/// Adds one element to a lane: (s, e) = TwoSum(s, x); c = c + e.
template <class T>
DETRED_HOST_DEVICE constexpr pair<T> accumulate(pair<T> lane, T x) {
  const pair<T> t = two_sum(lane.sum, x);
  return {t.sum, lane.correction + t.correction};
}

/// Joins two subtrees: (s, e) = TwoSum(s1, s2); c = (c1 + c2) + e.
template <class T>
DETRED_HOST_DEVICE constexpr pair<T> combine(pair<T> a, pair<T> b) {
  const pair<T> t = two_sum(a.sum, b.sum);
  return {t.sum, (a.correction + b.correction) + t.correction};
}

/// The result of compensated mode.
///   - s not finite (an Inf or NaN among the inputs, or overflow): s, with NaN made canonical. The sum component
///     performs exactly the additions of tree mode, so this equals the tree-mode result.
///   - c not finite (TwoSum's intermediate s - a overflowed although s did not): s, the tree-mode result; the
///     correction is lost but the result stays a number.
///   - c == 0: s. This keeps the sign of a zero sum (-0.0 + +0.0 would turn a sum of -0.0s into +0.0).
///   - otherwise: s + c.
template <class T>
DETRED_HOST_DEVICE constexpr T finalize(pair<T> root) {
  if (!is_finite(root.sum)) return finalize(root.sum);
  if (!is_finite(root.correction) || root.correction == T(0)) return root.sum;
  return root.sum + root.correction;
}

// ---------------------------------------------------------------------------------------------------------------
// The lane tree and the leaf tree, for any accumulator type V (T in tree mode, pair<T> in compensated mode).

/// The steps of the halving lane tree over `width` lanes (a power of two), in order: for h = width/2, ..., 1, lane j
/// takes lane j + h for every j < h. `step(j, h, count)` must perform lane[j + i] = combine(lane[j + i], lane[j + i +
/// h]) for i < count. Code holding G lanes per register passes `group` = G and receives count = G while h >= G (one
/// register operation per call), then count = 1; scalar code passes group = 1.
template <class Step>
DETRED_HOST_DEVICE constexpr void lane_tree_steps(std::uint64_t width, std::uint64_t group, Step step) {
  DETRED_UNROLL
  for (std::uint64_t h = width / 2; h >= 1; h /= 2) {
    const std::uint64_t count = h >= group ? group : 1;
    DETRED_UNROLL
    for (std::uint64_t j = 0; j < h; j += count) step(j, h, count);
  }
}

/// The halving lane tree over acc[0..width): afterwards acc[0] holds the leaf's value.
template <class V>
DETRED_HOST_DEVICE constexpr void fold_lanes(V* acc, std::uint64_t width) {
  lane_tree_steps(width, 1,
                  [acc](std::uint64_t j, std::uint64_t h, std::uint64_t) { acc[j] = combine(acc[j], acc[j + h]); });
}

/// The left-perfect leaf tree in streaming form: a stack of perfect subtrees kept like a binary counter.
/// Push subtrees left to right; each push names how many leaves the subtree covers. Pushing single leaves, or
/// aligned blocks of 2^k leaves followed by one ragged last block, builds exactly T(0..m).
template <class V>
class subtree_stack {
 public:
  DETRED_HOST_DEVICE constexpr void push(V value, std::uint64_t leaves) {
    while (depth_ > 0 && leaves_[depth_ - 1] == leaves) {
      --depth_;
      value = combine(values_[depth_], value);
      leaves *= 2;
    }
    values_[depth_] = value;
    leaves_[depth_] = leaves;
    ++depth_;
  }

  /// Folds the stack from the top (smallest, rightmost subtree) down: the root of the left-perfect tree.
  DETRED_HOST_DEVICE constexpr V root() const {
    if (depth_ == 0) return accumulator_identity<V>::value;
    V acc = values_[depth_ - 1];
    for (int k = depth_ - 2; k >= 0; --k) acc = combine(values_[k], acc);
    return acc;
  }

 private:
  // A binary counter of up to 2^64 leaves has at most 65 entries.
  // Left uninitialized: entries at and above depth_ are never read, and zeroing 65 entries on every call would cost
  // more than summing a small array.
  V values_[65];
  std::uint64_t leaves_[65];
  int depth_ = 0;
};

}  // namespace DETRED_ORDER_ABI
}  // namespace order
}  // namespace detred
