// The documented error bounds of each mode, as functions of n (docs/error-bounds.md derives them).
#pragma once

#include <cstdint>

#include "detred/options.hpp"

namespace detred {

/// |S - result| <= result_factor * |S| + abs_sum_factor * sum|x_i|, where S is the exact sum, for every input whose
/// tree-mode sum does not overflow. Both factors are rounded upward from their exact values, so using them with
/// upward-rounded arithmetic gives a true bound.
///   tree:        result_factor = 0,  abs_sum_factor = gamma_D
///   compensated: result_factor = u,  abs_sum_factor = (1 + u) * gamma_D * gamma_D'
/// with gamma_k = k u / (1 - k u), D = depth(n), D' = correction_depth(n), u the unit roundoff of the type.
struct error_bound {
  int depth;             ///< D(n) of the canonical order
  int correction_depth;  ///< D'(n): compensated mode's correction sum (0 in tree mode)
  double unit_roundoff;  ///< u
  double result_factor;
  double abs_sum_factor;
};

/// The documented error bound for n elements of type T (float or double) in mode m. D(n) itself is
/// detred::order::depth<T>(n). Throws detred::error for an unknown mode.
template <class T>
error_bound bound(std::uint64_t n, mode m);

extern template error_bound bound<double>(std::uint64_t n, mode m);
extern template error_bound bound<float>(std::uint64_t n, mode m);

}  // namespace detred
