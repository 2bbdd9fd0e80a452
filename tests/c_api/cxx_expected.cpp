// SPDX-License-Identifier: BSD-3-Clause
// The C++ side of the C API test: the library's results through its C++ API, for c_api_test.c and
// c_api_ops_test.c to compare with. Written without lib/c_api's code, so that a mistake there cannot hide here.
#include "cxx_expected.h"

#include <span>

#include "detred/bounds.hpp"
#include "detred/dot.hpp"
#include "detred/extrema.hpp"
#include "detred/norms.hpp"
#include "detred/number_types.hpp"
#include "detred/scan.hpp"
#include "detred/stats.hpp"
#include "detred/sum.hpp"

namespace {

detred::mode mode_of(int m) { return m == 0 ? detred::mode::tree : detred::mode::compensated; }

template <class E, class C>
std::span<const E> as(const C* x, size_t n) {
  return {reinterpret_cast<const E*>(x), n};
}

// *result = compute(), or 1 if it threw.
template <class R, class Compute>
int store(R* result, Compute compute) {
  try {
    *result = compute();
    return 0;
  } catch (const detred::error&) {
    return 1;
  }
}

template <class C, class T>
C c_statistics(const detred::statistics<T>& s) {
  C c;
  c.count = s.count;
  c.sum = s.sum;
  c.mean = s.mean;
  c.variance = s.variance;
  c.sample_variance = s.sample_variance;
  c.stddev = s.stddev;
  c.sample_stddev = s.sample_stddev;
  c.min = s.min;
  c.max = s.max;
  return c;
}

}  // namespace

extern "C" {

double cxx_sum_f64(const double* x, size_t n, int mode) {
  return detred::sum(std::span<const double>(x, n), {.mode = mode_of(mode), .threads = 1});
}
float cxx_sum_f32(const float* x, size_t n, int mode) {
  return detred::sum(std::span<const float>(x, n), {.mode = mode_of(mode), .threads = 1});
}
int cxx_depth_f64(uint64_t n) { return detred::bound<double>(n, detred::mode::tree).depth; }
double cxx_abs_sum_factor_f64(uint64_t n, int mode) { return detred::bound<double>(n, mode_of(mode)).abs_sum_factor; }

#define CXX_WITH_MODE(name, call, C, E, R)                                                          \
  int cxx_op_##name(const C* x, size_t n, int mode, R* result) {                                    \
    return store(result, [&] { return call(as<E>(x, n), {.mode = mode_of(mode), .threads = 1}); }); \
  }
CXX_WITH_MODE(sum_f64, detred::sum, double, double, double)
CXX_WITH_MODE(sum_f32, detred::sum, float, float, float)
CXX_WITH_MODE(sum_f16, detred::sum, uint16_t, detred::float16, float)
CXX_WITH_MODE(sum_bf16, detred::sum, uint16_t, detred::bfloat16, float)
CXX_WITH_MODE(asum_f64, detred::asum, double, double, double)
CXX_WITH_MODE(asum_f32, detred::asum, float, float, float)
CXX_WITH_MODE(nrm2_f64, detred::nrm2, double, double, double)
CXX_WITH_MODE(nrm2_f32, detred::nrm2, float, float, float)

int cxx_op_stats_f64(const double* x, size_t n, int mode, detred_statistics_f64* result) {
  return store(result, [&] {
    return c_statistics<detred_statistics_f64>(detred::stats(as<double>(x, n), {.mode = mode_of(mode), .threads = 1}));
  });
}
int cxx_op_stats_f32(const float* x, size_t n, int mode, detred_statistics_f32* result) {
  return store(result, [&] {
    return c_statistics<detred_statistics_f32>(detred::stats(as<float>(x, n), {.mode = mode_of(mode), .threads = 1}));
  });
}

#define CXX_DOT(suffix, C, E, R)                                                                                \
  int cxx_op_dot_##suffix(const C* x, const C* y, size_t n, int mode, R* result) {                              \
    return store(result,                                                                                        \
                 [&] { return detred::dot(as<E>(x, n), as<E>(y, n), {.mode = mode_of(mode), .threads = 1}); }); \
  }
CXX_DOT(f64, double, double, double)
CXX_DOT(f32, float, float, float)
CXX_DOT(f16, uint16_t, detred::float16, float)
CXX_DOT(bf16, uint16_t, detred::bfloat16, float)

#define CXX_EXACT(name, call, C, R)                                          \
  int cxx_op_##name(const C* x, size_t n, R* result) {                       \
    return store(result, [&] { return call(as<C>(x, n), {.threads = 1}); }); \
  }
CXX_EXACT(sum_i32, detred::sum, int32_t, int64_t)
CXX_EXACT(sum_i64, detred::sum, int64_t, int64_t)
CXX_EXACT(sum_u32, detred::sum, uint32_t, uint64_t)
CXX_EXACT(sum_u64, detred::sum, uint64_t, uint64_t)

#define CXX_SELECTIONS(suffix, C)                         \
  CXX_EXACT(min_##suffix, detred::min, C, C)              \
  CXX_EXACT(max_##suffix, detred::max, C, C)              \
  CXX_EXACT(argmin_##suffix, detred::argmin, C, uint64_t) \
  CXX_EXACT(argmax_##suffix, detred::argmax, C, uint64_t)
CXX_SELECTIONS(f64, double)
CXX_SELECTIONS(f32, float)
CXX_SELECTIONS(i32, int32_t)
CXX_SELECTIONS(i64, int64_t)
CXX_SELECTIONS(u32, uint32_t)
CXX_SELECTIONS(u64, uint64_t)

// One thread, in tree mode for the integers (which no mode changes).
#define CXX_SCAN(suffix, C, E, R)                                                                          \
  int cxx_scan_##suffix(const C* x, size_t n, int mode, int exclusive, R* y) {                             \
    try {                                                                                                  \
      const detred::options opt{.mode = mode_of(mode), .threads = 1};                                      \
      const std::span<R> out(y, n);                                                                        \
      exclusive ? detred::exclusive_cumsum(as<E>(x, n), out, opt) : detred::cumsum(as<E>(x, n), out, opt); \
      return 0;                                                                                            \
    } catch (const detred::error&) {                                                                       \
      return 1;                                                                                            \
    }                                                                                                      \
  }
CXX_SCAN(f64, double, double, double)
CXX_SCAN(f32, float, float, float)
CXX_SCAN(f16, uint16_t, detred::float16, float)
CXX_SCAN(bf16, uint16_t, detred::bfloat16, float)
CXX_SCAN(i32, int32_t, int32_t, int64_t)
CXX_SCAN(i64, int64_t, int64_t, int64_t)
CXX_SCAN(u32, uint32_t, uint32_t, uint64_t)
CXX_SCAN(u64, uint64_t, uint64_t, uint64_t)

}  // extern "C"
