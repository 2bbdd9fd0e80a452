// SPDX-License-Identifier: BSD-3-Clause
// The shape of the canonical order: how n elements are cut into leaves and lanes, and the depth D(n) that the error
// bounds are stated in. docs/canonical-order.md gives the reasons for every number here.
#pragma once

#include <cstdint>
#include <limits>

#include "detred/config.hpp"

namespace detred {

/// Version of the canonical order. Result bits are a pure function of (operation, mode, type, n, values, version).
/// Changing anything under detred/order/ that alters a result bit requires bumping it (and the golden vectors).
/// Version 2 changed stats' variances and standard deviations (docs/canonical-order.md, Versions); the shape and
/// every other result are those of version 1.
inline constexpr int order_version = 2;

namespace order {

/// W lanes per leaf and L elements per leaf; both powers of two, L a multiple of W. A structural type, so that the
/// benchmark that chose W and L can instantiate the engines with other shapes.
struct leaf_shape {
  std::uint64_t lanes;
  std::uint64_t leaf_size;
};

/// The shape of the canonical order (unchanged since version 1), per element type. W * sizeof(T) = 512 bytes: eight
/// AVX-512 registers of accumulators on the CPU, one warp's 16-byte loads on the GPU. L = 32 W: long enough that the
/// per-leaf lane tree costs little, short enough that the depth (and so the error bound) stays small.
template <class T>
inline constexpr leaf_shape shape_of = leaf_shape{512 / sizeof(T), 32 * (512 / sizeof(T))};

template <class T>
inline constexpr std::uint64_t lanes = shape_of<T>.lanes;
template <class T>
inline constexpr std::uint64_t leaf_size = shape_of<T>.leaf_size;

/// Unit roundoff u: 2^-53 for double, 2^-24 for float.
template <class T>
inline constexpr double unit_roundoff = static_cast<double>(std::numeric_limits<T>::epsilon()) / 2;

// The inline namespace gives the code below a name of its own in each translation unit that sets DETRED_ORDER_ABI:
// the per-instruction-set kernels set it, so an inline function compiled with AVX-512 can never be merged by the
// linker into code that runs on a CPU without AVX-512. Types stay shared.
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
DETRED_HOST_DEVICE constexpr std::uint64_t leaf_count(leaf_shape s, std::uint64_t n) {
  return n / s.leaf_size + (n % s.leaf_size != 0 ? 1 : 0);
}
template <class T>
DETRED_HOST_DEVICE constexpr std::uint64_t leaf_count(std::uint64_t n) {
  return leaf_count(shape_of<T>, n);
}

/// D(n): an upper bound on the number of rounded additions on any path from an element to the root of the tree
/// (shorter lanes and shallower branches of the leaf tree have fewer; additions of the identity are exact):
///   (r - 1)          the lane chain: r = ceil(min(n, L) / W) elements in the longest lane, the first of which is
///                    combined with the identity exactly;
///   + log2 W         the lane tree;
///   + ceil(log2 m)   the left-perfect leaf tree over m = ceil(n / L) leaves.
/// D(0) = 0. Tree-mode sums satisfy |S - S^| <= gamma_D * sum |x_i| (docs/error-bounds.md).
DETRED_HOST_DEVICE constexpr int depth(leaf_shape s, std::uint64_t n) {
  if (n == 0) return 0;
  const std::uint64_t in_first_leaf = n < s.leaf_size ? n : s.leaf_size;
  const std::uint64_t longest_lane = in_first_leaf / s.lanes + (in_first_leaf % s.lanes != 0 ? 1 : 0);
  return static_cast<int>(longest_lane - 1) + exact_log2(s.lanes) + ceil_log2(leaf_count(s, n));
}
template <class T>
DETRED_HOST_DEVICE constexpr int depth(std::uint64_t n) {
  return depth(shape_of<T>, n);
}

/// D'(n): the largest number of rounded additions an error term passes through in the correction sum of
/// compensated mode. Lane steps add one addition each; each tree level adds two ((c1 + c2) + e).
template <class T>
DETRED_HOST_DEVICE constexpr int correction_depth(std::uint64_t n) {
  if (n == 0) return 0;
  const int tree_levels = exact_log2(lanes<T>) + ceil_log2(leaf_count<T>(n));
  return depth<T>(n) + tree_levels;
}

}  // namespace DETRED_ORDER_ABI
}  // namespace order
}  // namespace detred
