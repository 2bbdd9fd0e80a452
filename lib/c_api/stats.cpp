// SPDX-License-Identifier: BSD-3-Clause
// The C API's summary statistics: the C++ statistics<T> as the C structs of detred.h. One line per exported function
// (the macro is in forward.hpp).
#include "detred/stats.hpp"
#include "detred/detred.h"
#include "forward.hpp"

namespace detred::c_api {
namespace {

template <class C, class T>
C c_statistics(const detred::statistics<T>& s) {
  return {s.count, s.sum, s.mean, s.variance, s.sample_variance, s.stddev, s.sample_stddev, s.min, s.max};
}

}  // namespace

detred_statistics_f64 to_c(const detred::statistics<double>& s) { return c_statistics<detred_statistics_f64>(s); }
detred_statistics_f32 to_c(const detred::statistics<float>& s) { return c_statistics<detred_statistics_f32>(s); }

}  // namespace detred::c_api

DETRED_C_WITH_MODE(detred_stats_f64, detred::stats, double, double, detred_statistics_f64)
DETRED_C_WITH_MODE(detred_stats_f32, detred::stats, float, float, detred_statistics_f32)
