// SPDX-License-Identifier: BSD-3-Clause
// The documented error bounds of each operation and mode, as functions of n (docs/error-bounds.md derives them).
#pragma once

#include <cstdint>

#include "detred/options.hpp"

// Exported from a shared libdetred, whose other symbols are hidden (cmake/DetredShared.cmake); function templates
// also each with [[gnu::visibility("default")]], which their explicit instantiations in lib/ need.
#pragma GCC visibility push(default)

namespace detred {

/// The floating-point operations that have a documented error bound. min, max, argmin and argmax round nothing
/// (they are exact); the variances of detred::stats have no bound of this form (docs/error-bounds.md says why).
enum class bounded_op {
  sum,   ///< detred::sum:  R = sum x_i,             A = sum |x_i|
  dot,   ///< detred::dot:  R = sum x_i y_i,         A = sum |x_i y_i|
  asum,  ///< detred::asum: R = sum |x_i|            (relative: abs_sum_factor = 0)
  nrm2,  ///< detred::nrm2: R = sqrt(sum x_i^2)      (relative: abs_sum_factor = 0)
  mean,  ///< statistics::mean = fl(sum / n): R = sum x_i / n, A = sum |x_i| / n
};

/// The bound of one operation on n elements:
///
///     |R - result| <= result_factor * |R| + abs_sum_factor * A + absolute
///
/// with R the exact result and A the operation's sum of magnitudes (bounded_op lists both), for every input whose
/// computation does not overflow. Every factor is rounded upward from its exact value, so evaluating the right-hand
/// side with upward-rounded arithmetic gives a true bound. For the sum:
///   tree:        result_factor = 0,  abs_sum_factor = gamma_D
///   compensated: result_factor = u,  abs_sum_factor = (1 + u) * gamma_D * gamma_D'
///   exact:       result_factor = u,  abs_sum_factor = 0, depth = correction_depth = 0 (the correctly rounded
///                result: within half an ulp; detred verify checks it for equality with the oracle's rounding)
/// with gamma_k = k u / (1 - k u), D = depth(n), D' = correction_depth(n), u the unit roundoff of the type.
/// `absolute` covers underflow: products that fall below the normal range (dot) and results that do (nrm2, mean);
/// it is a few multiples of the smallest subnormal, and 0 for sum and asum, whose additions are exact when they
/// underflow.
struct error_bound {
  int depth;             ///< D(n) of the canonical order
  int correction_depth;  ///< D'(n): compensated mode's correction sum (0 in tree mode)
  double unit_roundoff;  ///< u
  double result_factor;
  double abs_sum_factor;
  double absolute = 0;
};

/// The documented error bound of detred::sum for n elements of type T (float or double) in mode m. D(n) itself is
/// detred::order::depth<T>(n). Throws detred::error for an unknown mode.
template <class T>
[[gnu::visibility("default")]] error_bound bound(std::uint64_t n, mode m);

/// The documented error bound of operation op for n elements (pairs, for dot) of type T in mode m. 16-bit inputs are
/// computed in float and take T = float. For bounded_op::mean (detred::mean; in tree mode also detred::stats' mean),
/// modes tree and compensated bound fl(sum / fl(n)) with that mode's sum, mode exact the exact mean rounded once.
/// bound<T>(bounded_op::sum, n, m) equals bound<T>(n, m). Throws detred::error for an unknown operation or mode.
/// Mode exact: one rounding (nrm2: of the square root; mean: of the quotient).
template <class T>
[[gnu::visibility("default")]] error_bound bound(bounded_op op, std::uint64_t n, mode m);

extern template error_bound bound<double>(std::uint64_t n, mode m);
extern template error_bound bound<float>(std::uint64_t n, mode m);
extern template error_bound bound<double>(bounded_op op, std::uint64_t n, mode m);
extern template error_bound bound<float>(bounded_op op, std::uint64_t n, mode m);

}  // namespace detred

#pragma GCC visibility pop
