/* SPDX-License-Identifier: BSD-3-Clause */
/* The C++ library's own results, for the C test to compare the C API with. cxx_expected.cpp calls the C++ functions
 * directly, without the C API; each cxx_<name> has the arguments of detred_<name> without the thread count (it runs
 * on one thread) and returns 0, or 1 if the C++ call threw. mode: 0 tree, 1 compensated. */
#ifndef DETRED_TESTS_CXX_EXPECTED_H
#define DETRED_TESTS_CXX_EXPECTED_H

#include <stddef.h>
#include <stdint.h>

#include "detred/detred.h"

#ifdef __cplusplus
extern "C" {
#endif

double cxx_sum_f64(const double* x, size_t n, int mode);
float cxx_sum_f32(const float* x, size_t n, int mode);
int cxx_depth_f64(uint64_t n);
double cxx_abs_sum_factor_f64(uint64_t n, int mode);

/* Operations with a mode. */
int cxx_op_sum_f64(const double* x, size_t n, int mode, double* result);
int cxx_op_sum_f32(const float* x, size_t n, int mode, float* result);
int cxx_op_sum_f16(const uint16_t* x, size_t n, int mode, float* result);
int cxx_op_sum_bf16(const uint16_t* x, size_t n, int mode, float* result);
int cxx_op_asum_f64(const double* x, size_t n, int mode, double* result);
int cxx_op_asum_f32(const float* x, size_t n, int mode, float* result);
int cxx_op_nrm2_f64(const double* x, size_t n, int mode, double* result);
int cxx_op_nrm2_f32(const float* x, size_t n, int mode, float* result);
int cxx_op_stats_f64(const double* x, size_t n, int mode, detred_statistics_f64* result);
int cxx_op_stats_f32(const float* x, size_t n, int mode, detred_statistics_f32* result);
int cxx_op_dot_f64(const double* x, const double* y, size_t n, int mode, double* result);
int cxx_op_dot_f32(const float* x, const float* y, size_t n, int mode, float* result);
int cxx_op_dot_f16(const uint16_t* x, const uint16_t* y, size_t n, int mode, float* result);
int cxx_op_dot_bf16(const uint16_t* x, const uint16_t* y, size_t n, int mode, float* result);

/* Operations without a mode: exact integer sums and the selections. */
int cxx_op_sum_i32(const int32_t* x, size_t n, int64_t* result);
int cxx_op_sum_i64(const int64_t* x, size_t n, int64_t* result);
int cxx_op_sum_u32(const uint32_t* x, size_t n, uint64_t* result);
int cxx_op_sum_u64(const uint64_t* x, size_t n, uint64_t* result);

/* Scans into y (n outputs): exclusive 0 or 1; mode as above (ignored for integers). */
#define DETRED_CXX_SCAN(suffix, C, R) int cxx_scan_##suffix(const C* x, size_t n, int mode, int exclusive, R* y);
DETRED_CXX_SCAN(f64, double, double)
DETRED_CXX_SCAN(f32, float, float)
DETRED_CXX_SCAN(f16, uint16_t, float)
DETRED_CXX_SCAN(bf16, uint16_t, float)
DETRED_CXX_SCAN(i32, int32_t, int64_t)
DETRED_CXX_SCAN(i64, int64_t, int64_t)
DETRED_CXX_SCAN(u32, uint32_t, uint64_t)
DETRED_CXX_SCAN(u64, uint64_t, uint64_t)
#undef DETRED_CXX_SCAN

#define DETRED_CXX_SELECTIONS(suffix, C)                              \
  int cxx_op_min_##suffix(const C* x, size_t n, C* result);           \
  int cxx_op_max_##suffix(const C* x, size_t n, C* result);           \
  int cxx_op_argmin_##suffix(const C* x, size_t n, uint64_t* result); \
  int cxx_op_argmax_##suffix(const C* x, size_t n, uint64_t* result);
DETRED_CXX_SELECTIONS(f64, double)
DETRED_CXX_SELECTIONS(f32, float)
DETRED_CXX_SELECTIONS(i32, int32_t)
DETRED_CXX_SELECTIONS(i64, int64_t)
DETRED_CXX_SELECTIONS(u32, uint32_t)
DETRED_CXX_SELECTIONS(u64, uint64_t)
#undef DETRED_CXX_SELECTIONS

#ifdef __cplusplus
}
#endif

#endif
