/* SPDX-License-Identifier: BSD-3-Clause */
/* Every operation of detred.h other than the float sums: each function bit for bit against the C++ library
 * (cxx_expected.cpp) for sizes around the leaf boundaries, every mode and several thread counts; then the rules and
 * error paths of each family: 16-bit floats, exact integer sums and DETRED_OVERFLOW, selections (NaN, signed zeros,
 * ties, DETRED_EMPTY), dot, statistics. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cxx_expected.h"
#include "detred/detred.h"

void check_operations(void);

static const int thread_counts[] = {0, 1, 2, 3};
#define THREAD_COUNTS (sizeof thread_counts / sizeof thread_counts[0])

/* The output starts as this byte pattern, so that a call that writes nothing (or writes on failure) shows. */
#define UNTOUCHED 0xa5

static int untouched(const void* p, size_t size) {
  const unsigned char* b = (const unsigned char*)p;
  for (size_t i = 0; i < size; ++i)
    if (b[i] != UNTOUCHED) return 0;
  return 1;
}

/* The outcome of one call against the C++ library's: the same bytes, or (when C++ threw) a failure that left the
 * output unchanged. */
static void compare(int cxx_threw, detred_status status, const void* got, const void* want, size_t size,
                    const char* what, size_t n, int mode, int threads) {
  if (cxx_threw) {
    check(status != DETRED_OK && untouched(got, size), what, n, mode, threads);
  } else {
    check(status == DETRED_OK && memcmp(got, want, size) == 0, what, n, mode, threads);
  }
}

/* compare_<name>(x[, y], n): detred_<name> for every mode and thread count against cxx_op_<name>. */
#define COMPARE_WITH_MODE(name, C, R)                                                                     \
  static void compare_##name(const C* x, size_t n) {                                                      \
    for (int mode = 0; mode <= 1; ++mode) {                                                               \
      R want;                                                                                             \
      const int threw = cxx_op_##name(x, n, mode, &want);                                                 \
      for (size_t t = 0; t < THREAD_COUNTS; ++t) {                                                        \
        R got;                                                                                            \
        memset(&got, UNTOUCHED, sizeof got);                                                              \
        const detred_status s = detred_##name(x, n, (detred_mode)mode, thread_counts[t], &got);           \
        compare(threw, s, &got, &want, sizeof got, "detred_" #name " == C++", n, mode, thread_counts[t]); \
      }                                                                                                   \
    }                                                                                                     \
  }
#define COMPARE_DOT(name, C, R)                                                                           \
  static void compare_##name(const C* x, const C* y, size_t n) {                                          \
    for (int mode = 0; mode <= 1; ++mode) {                                                               \
      R want;                                                                                             \
      const int threw = cxx_op_##name(x, y, n, mode, &want);                                              \
      for (size_t t = 0; t < THREAD_COUNTS; ++t) {                                                        \
        R got;                                                                                            \
        memset(&got, UNTOUCHED, sizeof got);                                                              \
        const detred_status s = detred_##name(x, y, n, (detred_mode)mode, thread_counts[t], &got);        \
        compare(threw, s, &got, &want, sizeof got, "detred_" #name " == C++", n, mode, thread_counts[t]); \
      }                                                                                                   \
    }                                                                                                     \
  }
#define COMPARE_EXACT(name, C, R)                                                                     \
  static void compare_##name(const C* x, size_t n) {                                                  \
    R want;                                                                                           \
    const int threw = cxx_op_##name(x, n, &want);                                                     \
    for (size_t t = 0; t < THREAD_COUNTS; ++t) {                                                      \
      R got;                                                                                          \
      memset(&got, UNTOUCHED, sizeof got);                                                            \
      const detred_status s = detred_##name(x, n, thread_counts[t], &got);                            \
      compare(threw, s, &got, &want, sizeof got, "detred_" #name " == C++", n, -1, thread_counts[t]); \
    }                                                                                                 \
  }
#define COMPARE_SELECTIONS(suffix, C)                             \
  COMPARE_EXACT(min_##suffix, C, C)                               \
  COMPARE_EXACT(max_##suffix, C, C)                               \
  COMPARE_EXACT(argmin_##suffix, C, uint64_t)                     \
  COMPARE_EXACT(argmax_##suffix, C, uint64_t)                     \
  static void compare_selections_##suffix(const C* x, size_t n) { \
    compare_min_##suffix(x, n);                                   \
    compare_max_##suffix(x, n);                                   \
    compare_argmin_##suffix(x, n);                                \
    compare_argmax_##suffix(x, n);                                \
  }

COMPARE_WITH_MODE(sum_f16, uint16_t, float)
COMPARE_WITH_MODE(sum_bf16, uint16_t, float)
COMPARE_WITH_MODE(asum_f64, double, double)
COMPARE_WITH_MODE(asum_f32, float, float)
COMPARE_WITH_MODE(nrm2_f64, double, double)
COMPARE_WITH_MODE(nrm2_f32, float, float)
COMPARE_WITH_MODE(stats_f64, double, detred_statistics_f64)
COMPARE_WITH_MODE(stats_f32, float, detred_statistics_f32)
COMPARE_DOT(dot_f64, double, double)
COMPARE_DOT(dot_f32, float, float)
COMPARE_DOT(dot_f16, uint16_t, float)
COMPARE_DOT(dot_bf16, uint16_t, float)
COMPARE_EXACT(sum_i32, int32_t, int64_t)
COMPARE_EXACT(sum_i64, int64_t, int64_t)
COMPARE_EXACT(sum_u32, uint32_t, uint64_t)
COMPARE_EXACT(sum_u64, uint64_t, uint64_t)
COMPARE_SELECTIONS(f64, double)
COMPARE_SELECTIONS(f32, float)
COMPARE_SELECTIONS(i32, int32_t)
COMPARE_SELECTIONS(i64, int64_t)
COMPARE_SELECTIONS(u32, uint32_t)
COMPARE_SELECTIONS(u64, uint64_t)

/* A finite binary16: random bits, with an all-ones exponent (Inf, NaN) moved down. */
static uint16_t finite_f16(void) {
  uint16_t b = (uint16_t)next_bits();
  if ((b & 0x7c00u) == 0x7c00u) b ^= 0x4000u;
  return b;
}

/* A bfloat16 of the magnitudes of next_value(): the upper half of a float. */
static uint16_t finite_bf16(void) { return (uint16_t)(bits_f32((float)next_value()) >> 16); }

/* Every function against the C++ library for n elements: random data of each type, and data with few distinct values
 * (many ties and signed zeros) for the selections. */
static void compare_all(size_t n) {
  double* d = allocate(n, sizeof *d);
  double* d2 = allocate(n, sizeof *d2);
  float* f = allocate(n, sizeof *f);
  float* f2 = allocate(n, sizeof *f2);
  uint16_t* h = allocate(n, sizeof *h);
  uint16_t* h2 = allocate(n, sizeof *h2);
  uint16_t* b = allocate(n, sizeof *b);
  uint16_t* b2 = allocate(n, sizeof *b2);
  int32_t* i32 = allocate(n, sizeof *i32);
  int64_t* i64 = allocate(n, sizeof *i64);
  uint32_t* u32 = allocate(n, sizeof *u32);
  uint64_t* u64 = allocate(n, sizeof *u64);
  for (size_t i = 0; i < n; ++i) {
    d[i] = next_value();
    d2[i] = next_value();
    f[i] = (float)d[i];
    f2[i] = (float)d2[i];
    h[i] = finite_f16();
    h2[i] = finite_f16();
    b[i] = finite_bf16();
    b2[i] = finite_bf16();
    i32[i] = (int32_t)(uint32_t)next_bits();                    /* any int32: a sum of 2^32 of them fits int64 */
    i64[i] = (int64_t)(next_bits() >> 22) - (INT64_C(1) << 41); /* |x| <= 2^41: sums of 2^20 fit int64 */
    u32[i] = (uint32_t)next_bits();
    u64[i] = next_bits() >> 22;
  }
  compare_sum_f16(h, n);
  compare_sum_bf16(b, n);
  compare_asum_f64(d, n);
  compare_asum_f32(f, n);
  compare_nrm2_f64(d, n);
  compare_nrm2_f32(f, n);
  compare_stats_f64(d, n);
  compare_stats_f32(f, n);
  compare_dot_f64(d, d2, n);
  compare_dot_f32(f, f2, n);
  compare_dot_f16(h, h2, n);
  compare_dot_bf16(b, b2, n);
  compare_sum_i32(i32, n);
  compare_sum_i64(i64, n);
  compare_sum_u32(u32, n);
  compare_sum_u64(u64, n);
  compare_selections_f64(d, n);
  compare_selections_f32(f, n);
  compare_selections_i32(i32, n);
  compare_selections_i64(i64, n);
  compare_selections_u32(u32, n);
  compare_selections_u64(u64, n);

  static const double few[] = {-1.0, -0.0, 0.0, 1.0, 2.0};
  for (size_t i = 0; i < n; ++i) {
    const uint64_t r = next_bits() % 5;
    d[i] = few[r];
    f[i] = (float)few[r];
    i32[i] = (int32_t)r - 2;
    i64[i] = (int64_t)r - 2;
    u32[i] = (uint32_t)r;
    u64[i] = r;
  }
  compare_selections_f64(d, n);
  compare_selections_f32(f, n);
  compare_selections_i32(i32, n);
  compare_selections_i64(i64, n);
  compare_selections_u32(u32, n);
  compare_selections_u64(u64, n);
  compare_stats_f64(d, n);
  if (n > 100) {
    d[n / 2] = NAN;
    d[n / 3] = NAN;
    compare_selections_f64(d, n);
    compare_stats_f64(d, n);
  }

  free(d);
  free(d2);
  free(f);
  free(f2);
  free(h);
  free(h2);
  free(b);
  free(b2);
  free(i32);
  free(i64);
  free(u32);
  free(u64);
}

/* A failing call: the status, the output unchanged, and a message containing `needle`. */
static void check_fails(detred_status got, detred_status want, const void* output, size_t size, const char* needle,
                        const char* what) {
  check(got == want && untouched(output, size), what, 0, -1, -1);
  if (strstr(detred_last_error(), needle) == NULL) {
    check(0, "detred_last_error names the problem", 0, -1, -1);
    printf("  %s: message was '%s', wanted '%s'\n", what, detred_last_error(), needle);
  }
}

static void check_half_precision(void) {
  const uint16_t h[] = {0x3c00u, 0x4000u, 0x0001u}; /* 1, 2 and the smallest subnormal 2^-24 */
  const uint16_t b[] = {0x3f80u, 0x4040u};          /* 1 and 3 */
  float s = 0;
  check(detred_sum_f16(h, 2, DETRED_MODE_TREE, 0, &s) == DETRED_OK && s == 3.0f, "f16: 1 + 2 = 3", 2, 0, 0);
  check(detred_sum_f16(h + 2, 1, DETRED_MODE_TREE, 0, &s) == DETRED_OK && s == ldexpf(1.0f, -24),
        "f16 subnormal widened exactly", 1, 0, 0);
  check(detred_sum_bf16(b, 2, DETRED_MODE_COMPENSATED, 0, &s) == DETRED_OK && s == 4.0f, "bf16: 1 + 3 = 4", 2, 1, 0);
  check(detred_dot_bf16(b, b, 2, DETRED_MODE_TREE, 0, &s) == DETRED_OK && s == 10.0f, "bf16 dot: 1 + 9", 2, 0, 0);
  /* 4096 halves of 1.0: 4096 in float (a binary16 accumulator would stop at 2048). */
  uint16_t ones[4096];
  for (size_t i = 0; i < 4096; ++i) ones[i] = 0x3c00u;
  check(detred_sum_f16(ones, 4096, DETRED_MODE_TREE, 2, &s) == DETRED_OK && s == 4096.0f, "f16 sums in float", 4096, 0,
        2);
  check(detred_sum_f16(NULL, 0, DETRED_MODE_TREE, 0, &s) == DETRED_OK && bits_f32(s) == 0x80000000u,
        "empty f16 sum is -0.0f", 0, 0, 0);
  float out;
  memset(&out, UNTOUCHED, sizeof out);
  check_fails(detred_sum_bf16(NULL, 3, DETRED_MODE_TREE, 0, &out), DETRED_INVALID_ARGUMENT, &out, sizeof out,
              "x is NULL", "bf16: NULL x");
}

static void check_integer_sums(void) {
  const int64_t top = INT64_MAX;
  int64_t cancelling[10001];
  for (size_t i = 0; i < 10001; ++i) cancelling[i] = i < 5000 ? top : -top;
  cancelling[10000] = 5; /* every partial sum past the first overflows int64; the exact sum is 5 */
  int64_t s = 0;
  for (size_t t = 0; t < THREAD_COUNTS; ++t)
    check(detred_sum_i64(cancelling, 10001, thread_counts[t], &s) == DETRED_OK && s == 5,
          "i64: exact through intermediate overflow", 10001, -1, thread_counts[t]);

  int64_t out;
  memset(&out, UNTOUCHED, sizeof out);
  const int64_t over[] = {INT64_MAX, 1};
  check_fails(detred_sum_i64(over, 2, 0, &out), DETRED_OVERFLOW, &out, sizeof out, "9223372036854775808",
              "i64 sum above INT64_MAX: DETRED_OVERFLOW with the exact sum");
  const int64_t under[] = {INT64_MIN, -1};
  check_fails(detred_sum_i64(under, 2, 0, &out), DETRED_OVERFLOW, &out, sizeof out, "-9223372036854775809",
              "i64 sum below INT64_MIN: DETRED_OVERFLOW");
  const int64_t lowest[] = {INT64_MIN, 0};
  check(detred_sum_i64(lowest, 2, 0, &s) == DETRED_OK && s == INT64_MIN, "INT64_MIN fits", 2, -1, 0);
  uint64_t u = 0, uout;
  memset(&uout, UNTOUCHED, sizeof uout);
  const uint64_t uover[] = {UINT64_MAX, 1};
  check_fails(detred_sum_u64(uover, 2, 0, &uout), DETRED_OVERFLOW, &uout, sizeof uout, "18446744073709551616",
              "u64 sum above UINT64_MAX: DETRED_OVERFLOW");
  const uint32_t umax[] = {UINT32_MAX, UINT32_MAX, UINT32_MAX};
  check(detred_sum_u32(umax, 3, 0, &u) == DETRED_OK && u == 3 * (uint64_t)UINT32_MAX, "u32 sums widen to u64", 3, -1,
        0);
  const int32_t imin[] = {INT32_MIN, INT32_MIN};
  check(detred_sum_i32(imin, 2, 0, &s) == DETRED_OK && s == 2 * (int64_t)INT32_MIN, "i32 sums widen to i64", 2, -1, 0);
  check(detred_sum_i32(NULL, 0, 0, &s) == DETRED_OK && s == 0, "empty integer sum is 0", 0, -1, 0);
  check(strcmp(detred_status_string(DETRED_OVERFLOW), "overflow") == 0, "status string overflow", 0, -1, -1);
  memset(&out, UNTOUCHED, sizeof out);
  check_fails(detred_sum_i64(over, 2, -1, &out), DETRED_INVALID_ARGUMENT, &out, sizeof out, "threads",
              "integer sum: negative thread count");
}

static void check_selections(void) {
  const double zeros[] = {0.0, -0.0, 0.0};
  double v = 1;
  uint64_t i = 9;
  check(detred_min_f64(zeros, 3, 0, &v) == DETRED_OK && bits_f64(v) == bits_f64(-0.0), "min(+0, -0) is -0", 3, -1, 0);
  check(detred_max_f64(zeros + 1, 2, 0, &v) == DETRED_OK && bits_f64(v) == bits_f64(0.0), "max(-0, +0) is +0", 2, -1,
        0);
  check(detred_argmin_f64(zeros, 3, 0, &i) == DETRED_OK && i == 1, "argmin: -0 below +0", 3, -1, 0);
  check(detred_argmax_f64(zeros, 3, 0, &i) == DETRED_OK && i == 0, "argmax: first of the tied +0", 3, -1, 0);
  const float with_nan[] = {3.0f, NAN, 1.0f, NAN};
  float f = 0;
  check(detred_min_f32(with_nan, 4, 0, &f) == DETRED_OK && bits_f32(f) == 0x7fc00000u, "min with NaN: canonical NaN", 4,
        -1, 0);
  check(detred_argmax_f32(with_nan, 4, 0, &i) == DETRED_OK && i == 1, "argmax: the first NaN", 4, -1, 0);
  const int32_t ties[] = {5, -7, 3, -7, 5};
  int32_t m = 0;
  check(detred_argmin_i32(ties, 5, 0, &i) == DETRED_OK && i == 1, "argmin: the first of ties", 5, -1, 0);
  check(detred_argmax_i32(ties, 5, 0, &i) == DETRED_OK && i == 0, "argmax: the first of ties", 5, -1, 0);
  check(detred_min_i32(ties, 5, 0, &m) == DETRED_OK && m == -7, "min i32", 5, -1, 0);
  const uint64_t extremes[] = {1, UINT64_MAX, 0};
  uint64_t u = 7;
  check(detred_max_u64(extremes, 3, 0, &u) == DETRED_OK && u == UINT64_MAX, "max u64", 3, -1, 0);
  check(detred_argmin_u64(extremes, 3, 0, &i) == DETRED_OK && i == 2, "argmin u64", 3, -1, 0);

  double out;
  uint64_t index;
  memset(&out, UNTOUCHED, sizeof out);
  memset(&index, UNTOUCHED, sizeof index);
  check_fails(detred_min_f64(zeros, 0, 0, &out), DETRED_EMPTY, &out, sizeof out, "detred_min_f64: the array is empty",
              "min of an empty array: DETRED_EMPTY");
  check_fails(detred_argmax_u32(NULL, 0, 0, &index), DETRED_EMPTY, &index, sizeof index, "empty",
              "argmax of an empty array: DETRED_EMPTY");
  check_fails(detred_argmin_f32(NULL, 2, 0, &index), DETRED_INVALID_ARGUMENT, &index, sizeof index, "x is NULL",
              "argmin: NULL x");
  check_fails(detred_max_f64(zeros, 3, -4, &out), DETRED_INVALID_ARGUMENT, &out, sizeof out, "threads",
              "max: negative thread count");
  check(detred_min_i64(NULL, 0, 0, NULL) == DETRED_INVALID_ARGUMENT, "min: NULL result", 0, -1, 0);
  check(strcmp(detred_status_string(DETRED_EMPTY), "empty") == 0, "status string empty", 0, -1, -1);
}

static void check_dot(void) {
  double x[3000], ones[3000], s = 0, t = 1;
  for (size_t i = 0; i < 3000; ++i) {
    x[i] = next_value();
    ones[i] = 1.0;
  }
  for (int mode = 0; mode <= 1; ++mode) {
    check(detred_dot_f64(x, ones, 3000, (detred_mode)mode, 2, &s) == DETRED_OK &&
              detred_sum_f64(x, 3000, (detred_mode)mode, 0, &t) == DETRED_OK && bits_f64(s) == bits_f64(t),
          "dot with ones is the sum", 3000, mode, 2);
  }
  const float big[] = {1e8f, 1.0f, -1e8f, 3.0f}, weights[] = {1.0f, 1.0f, 1.0f, 0.5f};
  float f = 0;
  check(detred_dot_f32(big, weights, 4, DETRED_MODE_COMPENSATED, 0, &f) == DETRED_OK && f == 2.5f,
        "compensated dot recovers cancelling products", 4, 1, 0);
  double out;
  memset(&out, UNTOUCHED, sizeof out);
  check_fails(detred_dot_f64(x, NULL, 3, DETRED_MODE_TREE, 0, &out), DETRED_INVALID_ARGUMENT, &out, sizeof out,
              "y is NULL", "dot: NULL y");
  check_fails(detred_dot_f64(NULL, x, 3, DETRED_MODE_TREE, 0, &out), DETRED_INVALID_ARGUMENT, &out, sizeof out,
              "x is NULL", "dot: NULL x");
  check_fails(detred_dot_f64(x, x, 3, (detred_mode)7, 0, &out), DETRED_INVALID_ARGUMENT, &out, sizeof out,
              "unknown mode", "dot: unknown mode");
  check(detred_dot_f64(NULL, NULL, 0, DETRED_MODE_TREE, 0, &s) == DETRED_OK && bits_f64(s) == bits_f64(-0.0),
        "empty dot is -0.0", 0, 0, 0);
  check(detred_nrm2_f64(NULL, 0, DETRED_MODE_TREE, 0, &s) == DETRED_OK && bits_f64(s) == 0, "empty nrm2 is +0.0", 0, 0,
        0);
  const double huge[] = {1e200, 1e200};
  check(detred_nrm2_f64(huge, 2, DETRED_MODE_TREE, 0, &s) == DETRED_OK && fabs(s / (sqrt(2.0) * 1e200) - 1) < 1e-15,
        "nrm2 does not overflow", 2, 0, 0);
}

static void check_statistics(void) {
  const double few[] = {1, 2, 3, 4};
  detred_statistics_f64 s;
  check(detred_stats_f64(few, 4, DETRED_MODE_TREE, 0, &s) == DETRED_OK && s.count == 4 && s.sum == 10 &&
            s.mean == 2.5 && s.variance == 1.25 && s.sample_variance == 5.0 / 3.0 && s.stddev == sqrt(1.25) &&
            s.sample_stddev == sqrt(5.0 / 3.0) && s.min == 1 && s.max == 4,
        "stats of 1, 2, 3, 4", 4, 0, 0);
  check(detred_stats_f64(NULL, 0, DETRED_MODE_TREE, 0, &s) == DETRED_OK && s.count == 0 &&
            bits_f64(s.sum) == bits_f64(-0.0) && isnan(s.mean) && isnan(s.min),
        "stats of nothing: count 0, sum -0.0, the rest NaN", 0, 0, 0);
  detred_statistics_f32 out;
  memset(&out, UNTOUCHED, sizeof out);
  const float x[] = {1.0f, 2.0f};
  check_fails(detred_stats_f32(x, 2, DETRED_MODE_COMPENSATED, 0, &out), DETRED_INVALID_ARGUMENT, &out, sizeof out,
              "tree mode only", "stats: compensated mode is not available");
  check_fails(detred_stats_f32(NULL, 2, DETRED_MODE_TREE, 0, &out), DETRED_INVALID_ARGUMENT, &out, sizeof out,
              "x is NULL", "stats: NULL x");
  check(detred_stats_f32(x, 2, DETRED_MODE_TREE, 0, NULL) == DETRED_INVALID_ARGUMENT, "stats: NULL result", 2, 0, 0);
}

void check_operations(void) {
  /* Around the leaf sizes (2048 doubles, 4096 floats), a ragged tree of leaves, and a multi-threaded size. */
  const size_t sizes[] = {0, 1, 2, 63, 64, 2047, 2048, 2049, 4096, 4097, 3 * 4096 + 5, 100003, (1u << 20) + 7};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) compare_all(sizes[k]);
  check_half_precision();
  check_integer_sums();
  check_selections();
  check_dot();
  check_statistics();
}
