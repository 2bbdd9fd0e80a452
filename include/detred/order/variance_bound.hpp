// SPDX-License-Identifier: BSD-3-Clause
// The size of the error bound of stats' M2 (moments.hpp), derived in docs/error-bounds.md ("Variance and standard
// deviation"): with R = max x - min x the range of the data,
//   |M2^ - M2| <= gamma_K n R^2 + K n nu,   K = variance_error_terms<T>(n),
// to first order in u, for data whose sums do not overflow. The oracle (verify/oracle/moments.cpp) checks every
// variance and standard deviation against the bound built on it.
#pragma once

#include <cstdint>

#include "detred/order/shape.hpp"

namespace detred::order {

/// K(n) = K_leaf + K_tree with r = ceil(min(n, L) / W) (the longest lane), lambda = log2 W (the lane tree) and
/// t = ceil(log2 m) (the leaf tree over m leaves):
///   K_leaf = 3 r + 5 + 12 lambda + lambda r + lambda^2,   K_tree = t (r + 3 lambda + 4) + ceil(3 t (t + 1) / 2).
/// 0 for n = 0.
constexpr std::uint64_t variance_error_terms(leaf_shape s, std::uint64_t n) {
  if (n == 0) return 0;
  const std::uint64_t in_first_leaf = n < s.leaf_size ? n : s.leaf_size;
  const std::uint64_t r = in_first_leaf / s.lanes + (in_first_leaf % s.lanes != 0 ? 1 : 0);
  const auto lambda = static_cast<std::uint64_t>(exact_log2(s.lanes));
  const auto t = static_cast<std::uint64_t>(ceil_log2(leaf_count(s, n)));
  const std::uint64_t leaf = 3 * r + 5 + 12 * lambda + lambda * r + lambda * lambda;
  const std::uint64_t tree = t * (r + 3 * lambda + 4) + (3 * t * (t + 1) + 1) / 2;
  return leaf + tree;
}
template <class T>
constexpr std::uint64_t variance_error_terms(std::uint64_t n) {
  return variance_error_terms(shape_of<T>, n);
}

}  // namespace detred::order
