/* SPDX-License-Identifier: BSD-3-Clause */
/* The C API's scans (detred_cumsum_*, detred_exclusive_cumsum_*): every output bit for bit against the C++ library
 * (cxx_expected.cpp, one thread) for sizes around the leaf boundaries, both modes and several thread counts, in place
 * where the types allow; then the errors: exact mode, NULL arrays, overlapping buffers, and an integer output that
 * does not fit (DETRED_OVERFLOW with y left unchanged). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cxx_expected.h"
#include "detred/detred.h"

void check_scans(void);

static const int scan_threads[] = {0, 1, 2, 3};
#define SCAN_THREADS (sizeof scan_threads / sizeof scan_threads[0])
#define SCAN_UNTOUCHED 0xa5

static int scan_untouched(const void* p, size_t size) {
  const unsigned char* b = (const unsigned char*)p;
  for (size_t i = 0; i < size; ++i)
    if (b[i] != SCAN_UNTOUCHED) return 0;
  return 1;
}

/* compare_scan_<suffix>(x, n): both scans, every mode (modes = 2) or none (modes = 1: integers) and thread count,
 * against C++; the bytes of every output must match. */
#define COMPARE_SCAN(suffix, C, R, MODE_ARG, modes)                                                                   \
  static void compare_scan_##suffix(const C* x, size_t n) {                                                           \
    R* want = allocate(n, sizeof *want);                                                                              \
    R* got = allocate(n, sizeof *got);                                                                                \
    for (int exclusive = 0; exclusive <= 1; ++exclusive) {                                                            \
      for (int mode = 0; mode < (modes); ++mode) {                                                                    \
        const int threw = cxx_scan_##suffix(x, n, mode, exclusive, want);                                             \
        for (size_t t = 0; t < SCAN_THREADS; ++t) {                                                                   \
          memset(got, SCAN_UNTOUCHED, n * sizeof *got);                                                               \
          const detred_status s = exclusive ? detred_exclusive_cumsum_##suffix(x, n, MODE_ARG scan_threads[t], got)   \
                                            : detred_cumsum_##suffix(x, n, MODE_ARG scan_threads[t], got);            \
          const int ok = threw ? (s != DETRED_OK && scan_untouched(got, n * sizeof *got))                             \
                               : (s == DETRED_OK && memcmp(got, want, n * sizeof *got) == 0);                         \
          check(ok, exclusive ? "detred_exclusive_cumsum_" #suffix " == C++" : "detred_cumsum_" #suffix " == C++", n, \
                mode, scan_threads[t]);                                                                               \
        }                                                                                                             \
      }                                                                                                               \
    }                                                                                                                 \
    free(want);                                                                                                       \
    free(got);                                                                                                        \
  }
#define WITH_MODE (detred_mode) mode,
#define NO_MODE
COMPARE_SCAN(f64, double, double, WITH_MODE, 2)
COMPARE_SCAN(f32, float, float, WITH_MODE, 2)
COMPARE_SCAN(f16, uint16_t, float, WITH_MODE, 2)
COMPARE_SCAN(bf16, uint16_t, float, WITH_MODE, 2)
COMPARE_SCAN(i32, int32_t, int64_t, NO_MODE, 1)
COMPARE_SCAN(i64, int64_t, int64_t, NO_MODE, 1)
COMPARE_SCAN(u32, uint32_t, uint64_t, NO_MODE, 1)
COMPARE_SCAN(u64, uint64_t, uint64_t, NO_MODE, 1)

/* In place (y = x) gives the out-of-place bits. */
static void check_in_place(const double* x, size_t n) {
  double* want = allocate(n, sizeof *want);
  double* y = allocate(n, sizeof *y);
  for (int mode = 0; mode <= 1; ++mode) {
    cxx_scan_f64(x, n, mode, 0, want);
    memcpy(y, x, n * sizeof *y);
    check(detred_cumsum_f64(y, n, (detred_mode)mode, 2, y) == DETRED_OK && memcmp(y, want, n * sizeof *y) == 0,
          "detred_cumsum_f64 in place", n, mode, 2);
  }
  free(want);
  free(y);
}

static void compare_scans(size_t n) {
  double* d = allocate(n, sizeof *d);
  float* f = allocate(n, sizeof *f);
  uint16_t* h = allocate(n, sizeof *h);
  uint16_t* b = allocate(n, sizeof *b);
  int32_t* i32 = allocate(n, sizeof *i32);
  int64_t* i64 = allocate(n, sizeof *i64);
  uint32_t* u32 = allocate(n, sizeof *u32);
  uint64_t* u64 = allocate(n, sizeof *u64);
  for (size_t i = 0; i < n; ++i) {
    d[i] = next_value();
    f[i] = (float)d[i];
    h[i] = (uint16_t)(0x3c00u + (next_bits() & 0x3ffu)); /* [1, 2) */
    b[i] = (uint16_t)(bits_f32((float)d[i]) >> 16);
    i32[i] = (int32_t)(uint32_t)next_bits();
    i64[i] = (int64_t)(next_bits() >> 22) - (INT64_C(1) << 41);
    u32[i] = (uint32_t)next_bits();
    u64[i] = next_bits() >> 22;
  }
  compare_scan_f64(d, n);
  compare_scan_f32(f, n);
  compare_scan_f16(h, n);
  compare_scan_bf16(b, n);
  compare_scan_i32(i32, n);
  compare_scan_i64(i64, n);
  compare_scan_u32(u32, n);
  compare_scan_u64(u64, n);
  check_in_place(d, n);
  free(d);
  free(f);
  free(h);
  free(b);
  free(i32);
  free(i64);
  free(u32);
  free(u64);
}

/* A failing call: the status, the output unchanged, and a message containing `needle`. */
static void scan_fails(detred_status got, detred_status want, const void* y, size_t size, const char* needle,
                       const char* what) {
  check(got == want && scan_untouched(y, size), what, 0, -1, -1);
  if (strstr(detred_last_error(), needle) == NULL) {
    check(0, "detred_last_error names the problem", 0, -1, -1);
    printf("  %s: message was '%s', wanted '%s'\n", what, detred_last_error(), needle);
  }
}

static void check_scan_errors(void) {
  const double x[4] = {1.0, 2.0, 3.0, 4.0};
  double y[4];
  memset(y, SCAN_UNTOUCHED, sizeof y);
  scan_fails(detred_cumsum_f64(x, 4, DETRED_MODE_EXACT, 0, y), DETRED_INVALID_ARGUMENT, y, sizeof y,
             "mode exact is not available", "cumsum: exact mode refused");
  scan_fails(detred_cumsum_f64(NULL, 4, DETRED_MODE_TREE, 0, y), DETRED_INVALID_ARGUMENT, y, sizeof y, "x is NULL",
             "cumsum: NULL x");
  check(detred_cumsum_f64(x, 4, DETRED_MODE_TREE, 0, NULL) == DETRED_INVALID_ARGUMENT &&
            strstr(detred_last_error(), "y is NULL") != NULL,
        "cumsum: NULL y", 4, 0, 0);
  check(detred_cumsum_f64(NULL, 0, DETRED_MODE_TREE, 0, NULL) == DETRED_OK, "cumsum: n = 0 takes NULL", 0, 0, 0);
  scan_fails(detred_exclusive_cumsum_f32((const float*)x, 4, (detred_mode)7, 0, (float*)y), DETRED_INVALID_ARGUMENT, y,
             sizeof y, "mode", "exclusive_cumsum: unknown mode");
  double z[5] = {1.0, 2.0, 3.0, 4.0, 5.0};
  check(detred_cumsum_f64(z, 4, DETRED_MODE_TREE, 0, z + 1) == DETRED_INVALID_ARGUMENT &&
            strstr(detred_last_error(), "overlaps") != NULL,
        "cumsum: overlapping x and y refused", 4, 0, 0);

  /* An output that does not fit int64: DETRED_OVERFLOW naming it, y unchanged (the scratch buffer). */
  const int64_t big[3] = {INT64_MAX, 1, 2};
  int64_t out[3];
  memset(out, SCAN_UNTOUCHED, sizeof out);
  scan_fails(detred_cumsum_i64(big, 3, 0, out), DETRED_OVERFLOW, out, sizeof out, "output 1", "cumsum_i64 overflow");
  /* In place too: x is left as it was. */
  int64_t same[3] = {INT64_MAX, 1, 2};
  check(detred_cumsum_i64(same, 3, 0, same) == DETRED_OVERFLOW && same[0] == INT64_MAX && same[1] == 1 && same[2] == 2,
        "cumsum_i64 overflow in place leaves x", 3, -1, 0);
  /* The exclusive scan's total is no output: it may pass the type. */
  const uint64_t top[2] = {UINT64_MAX, 1};
  uint64_t excl[2];
  check(detred_exclusive_cumsum_u64(top, 2, 0, excl) == DETRED_OK && excl[0] == 0 && excl[1] == UINT64_MAX,
        "exclusive_cumsum_u64 of a total beyond uint64", 2, -1, 0);

  /* A known case: running sums, -0.0 as the exclusive empty sum. */
  double e[4];
  check(detred_exclusive_cumsum_f64(x, 4, DETRED_MODE_COMPENSATED, 0, e) == DETRED_OK &&
            bits_f64(e[0]) == bits_f64(-0.0) && e[1] == 1.0 && e[2] == 3.0 && e[3] == 6.0,
        "exclusive_cumsum_f64 of 1, 2, 3, 4", 4, 1, 0);
}

void check_scans(void) {
  const size_t sizes[] = {0, 1, 2, 63, 2047, 2048, 2049, 4096, 4097, 3 * 4096 + 5, 100003};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) compare_scans(sizes[k]);
  check_scan_errors();
}
