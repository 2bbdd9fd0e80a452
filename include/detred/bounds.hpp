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

/// D(n) of the canonical order for the element type (see order.hpp).
int depth_f64(std::uint64_t n);
int depth_f32(std::uint64_t n);

template <class T>
int depth(std::uint64_t n);
template <>
inline int depth<double>(std::uint64_t n) {
  return depth_f64(n);
}
template <>
inline int depth<float>(std::uint64_t n) {
  return depth_f32(n);
}

error_bound bound_f64(std::uint64_t n, mode m);
error_bound bound_f32(std::uint64_t n, mode m);

/// The documented error bound for n elements of type T in mode m. Throws detred::error for an unknown mode.
template <class T>
error_bound bound(std::uint64_t n, mode m);
template <>
inline error_bound bound<double>(std::uint64_t n, mode m) {
  return bound_f64(n, m);
}
template <>
inline error_bound bound<float>(std::uint64_t n, mode m) {
  return bound_f32(n, m);
}

}  // namespace detred
