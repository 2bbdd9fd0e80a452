// SPDX-License-Identifier: BSD-3-Clause
// The result of detred::stats: the summary statistics of an array from one pass over memory.
#pragma once

#include <cstdint>

// Exported from a shared libdetred, whose other symbols are hidden (cmake/DetredShared.cmake).
#pragma GCC visibility push(default)

namespace detred {

/// Summary statistics of n values (docs/operations.md gives each rule). For n = 0: count 0, sum -0.0, everything
/// else NaN. Any NaN among the values makes every floating-point member NaN except min and max, which follow
/// detred::min and detred::max (NaN too). sample_variance and sample_stddev are NaN for n = 1.
template <class T>
struct statistics {
  std::uint64_t count;  ///< n
  T sum;                ///< bit for bit detred::sum(x) in tree mode
  T mean;               ///< sum / T(n), one rounding (T(n) exact below 2^53 for double, 2^24 for float)
  T variance;           ///< population variance M2 / n
  T sample_variance;    ///< M2 / (n - 1)
  T stddev;             ///< sqrt(variance)
  T sample_stddev;      ///< sqrt(sample_variance)
  T min;                ///< as detred::min: NaN propagates, -0.0 < +0.0
  T max;                ///< as detred::max
};

}  // namespace detred

#pragma GCC visibility pop
