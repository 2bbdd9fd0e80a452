/* SPDX-License-Identifier: BSD-3-Clause */
/* The C API's test, compiled as C99: the sums of detred.h bit for bit against the C++ library (cxx_expected.cpp)
 * and the reference, for sizes around the leaf boundaries, both modes, several thread counts and special values;
 * every error path: status, message, output left unchanged; then every other operation (operations_test.c). Prints one
 * line per failed check and a closing "N passed, N failed" line; exits 1 if any check failed. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cxx_expected.h"
#include "detred/detred.h"

/* Every other operation: operations_test.c. */
void check_operations(void);
void check_scans(void);

static void check_sums(size_t n) {
  double* x = allocate(n, sizeof *x);
  float* y = allocate(n, sizeof *y);
  for (size_t i = 0; i < n; ++i) {
    x[i] = next_value();
    y[i] = (float)x[i];
  }
  const int thread_counts[] = {0, 1, 2, 3};
  for (int mode = 0; mode <= 1; ++mode) {
    const double expected64 = cxx_sum_f64(x, n, mode);
    const float expected32 = cxx_sum_f32(y, n, mode);
    double ref64 = 0;
    float ref32 = 0;
    check(detred_reference_sum_f64(x, n, (detred_mode)mode, &ref64) == DETRED_OK, "reference f64 status", n, mode, 0);
    check(detred_reference_sum_f32(y, n, (detred_mode)mode, &ref32) == DETRED_OK, "reference f32 status", n, mode, 0);
    check(bits_f64(ref64) == bits_f64(expected64), "reference f64 bits == C++ detred::sum", n, mode, 0);
    check(bits_f32(ref32) == bits_f32(expected32), "reference f32 bits == C++ detred::sum", n, mode, 0);
    for (size_t t = 0; t < sizeof thread_counts / sizeof thread_counts[0]; ++t) {
      double s64 = 1.5;
      float s32 = 1.5f;
      const int threads = thread_counts[t];
      check(detred_sum_f64(x, n, (detred_mode)mode, threads, &s64) == DETRED_OK, "sum f64 status", n, mode, threads);
      check(detred_sum_f32(y, n, (detred_mode)mode, threads, &s32) == DETRED_OK, "sum f32 status", n, mode, threads);
      check(bits_f64(s64) == bits_f64(expected64), "sum f64 bits == C++ detred::sum", n, mode, threads);
      check(bits_f32(s32) == bits_f32(expected32), "sum f32 bits == C++ detred::sum", n, mode, threads);
    }
  }
  free(x);
  free(y);
}

static void check_special_values(void) {
  double s = 1.0;
  check(detred_sum_f64(NULL, 0, DETRED_MODE_TREE, 0, &s) == DETRED_OK, "empty sum with x = NULL", 0, 0, 0);
  check(bits_f64(s) == 0x8000000000000000u, "empty sum is -0.0", 0, 0, 0);
  float f = 1.0f;
  check(detred_sum_f32(NULL, 0, DETRED_MODE_COMPENSATED, 0, &f) == DETRED_OK, "empty f32 sum", 0, 1, 0);
  check(bits_f32(f) == 0x80000000u, "empty f32 sum is -0.0", 0, 1, 0);

  double x[5000];
  for (size_t i = 0; i < 5000; ++i) x[i] = (double)i;
  x[4321] = -NAN; /* a NaN with the sign bit set comes back as the canonical quiet NaN */
  for (int mode = 0; mode <= 1; ++mode) {
    check(detred_sum_f64(x, 5000, (detred_mode)mode, 2, &s) == DETRED_OK, "NaN input status", 5000, mode, 2);
    check(bits_f64(s) == 0x7ff8000000000000u, "NaN input gives the canonical NaN", 5000, mode, 2);
  }
  x[4321] = INFINITY;
  x[17] = -INFINITY;
  check(detred_sum_f64(x, 5000, DETRED_MODE_TREE, 0, &s) == DETRED_OK && bits_f64(s) == 0x7ff8000000000000u,
        "+Inf with -Inf gives the canonical NaN", 5000, 0, 0);
  x[17] = 1.0;
  check(detred_sum_f64(x, 5000, DETRED_MODE_COMPENSATED, 0, &s) == DETRED_OK && s == INFINITY, "+Inf gives +Inf", 5000,
        1, 0);
}

/* A failing call returns the status, leaves the output unchanged and sets a message containing `needle`. */
static void check_failure(detred_status got, detred_status want, double output, const char* needle, const char* what) {
  check(got == want, what, 0, -1, -1);
  check(output == 7.0, "output left unchanged on failure", 0, -1, -1);
  check(strstr(detred_last_error(), needle) != NULL, "detred_last_error names the problem", 0, -1, -1);
  if (strstr(detred_last_error(), needle) == NULL)
    printf("  message was: '%s', wanted '%s'\n", detred_last_error(), needle);
}

static void check_errors(void) {
  const double x[3] = {1.0, 2.0, 3.0};
  double s = 7.0;
  check(strcmp(detred_last_error(), "") == 0, "no message before any failure", 0, -1, -1);
  check_failure(detred_sum_f64(NULL, 3, DETRED_MODE_TREE, 0, &s), DETRED_INVALID_ARGUMENT, s, "x is NULL",
                "NULL x with n > 0");
  check(detred_sum_f64(x, 3, DETRED_MODE_TREE, 0, NULL) == DETRED_INVALID_ARGUMENT, "NULL result", 3, 0, 0);
  check(strstr(detred_last_error(), "result is NULL") != NULL, "NULL result message", 3, 0, 0);
  check_failure(detred_sum_f64(x, 3, (detred_mode)7, 0, &s), DETRED_INVALID_ARGUMENT, s, "unknown mode",
                "unknown mode");
  check_failure(detred_sum_f64(x, 3, DETRED_MODE_TREE, -2, &s), DETRED_INVALID_ARGUMENT, s, "threads",
                "negative thread count (the C++ library's detred::error)");
  check_failure(detred_reference_sum_f64(x, 3, (detred_mode)-1, &s), DETRED_INVALID_ARGUMENT, s, "unknown mode",
                "reference: unknown mode");
  check(strncmp(detred_last_error(), "detred: ", 8) == 0, "messages start with 'detred: '", 0, -1, -1);

  /* A success leaves the last message as it was. */
  check(detred_sum_f64(x, 3, DETRED_MODE_TREE, 0, &s) == DETRED_OK && s == 6.0, "a sum after a failure", 3, 0, 0);
  check(strstr(detred_last_error(), "unknown mode") != NULL, "success keeps the last message", 3, 0, 0);

  detred_error_bound b;
  check(detred_bound_f64(1000000, DETRED_MODE_TREE, &b) == DETRED_OK, "bound status", 1000000, 0, 0);
  check(b.depth == cxx_depth_f64(1000000) && b.depth == 46, "bound depth == C++ (46 at 10^6)", 1000000, 0, 0);
  check(b.abs_sum_factor == cxx_abs_sum_factor_f64(1000000, 0), "bound factor == C++", 1000000, 0, 0);
  check(detred_bound_f64(1000000, DETRED_MODE_COMPENSATED, &b) == DETRED_OK &&
            b.abs_sum_factor == cxx_abs_sum_factor_f64(1000000, 1) && b.correction_depth > b.depth,
        "compensated bound == C++", 1000000, 1, 0);
  check(detred_bound_f32(10, (detred_mode)3, &b) == DETRED_INVALID_ARGUMENT, "bound: unknown mode", 10, 3, 0);
  check(detred_bound_f32(10, DETRED_MODE_TREE, NULL) == DETRED_INVALID_ARGUMENT, "bound: NULL result", 10, 0, 0);

  check(strcmp(detred_status_string(DETRED_OK), "ok") == 0, "status string ok", 0, -1, -1);
  check(strcmp(detred_status_string(DETRED_DEVICE_ERROR), "device error") == 0, "status string", 0, -1, -1);
  check(strcmp(detred_status_string((detred_status)99), "unknown status") == 0, "unknown status", 0, -1, -1);
  check(strcmp(detred_mode_name(DETRED_MODE_COMPENSATED), "compensated") == 0, "mode name", 0, -1, -1);
  check(detred_mode_name((detred_mode)5) == NULL, "no name for an unknown mode", 0, -1, -1);
  check(strcmp(detred_mode_name(DETRED_MODE_EXACT), "exact") == 0, "exact mode name", 0, -1, -1);

  /* Exact mode: the correctly rounded sum, with no intermediate overflow, and the correctly rounded norm. */
  const double big = 0.75 * 1.7976931348623157e308, cancelling[5] = {big, -big, big, -big, big};
  check(detred_sum_f64(cancelling, 5, DETRED_MODE_EXACT, 0, &s) == DETRED_OK && bits_f64(s) == bits_f64(big),
        "exact sum without intermediate overflow", 5, DETRED_MODE_EXACT, 0);
  /* sqrt(1 + 4 + 9) = sqrt(14), the square root of the exact sum of squares rounded once; the mean has no exact
   * mode. */
  check(detred_nrm2_f64(x, 3, DETRED_MODE_EXACT, 0, &s) == DETRED_OK && s == sqrt(14.0), "exact nrm2", 3,
        DETRED_MODE_EXACT, 0);
  check(detred_bound_f64(100, DETRED_MODE_EXACT, &b) == DETRED_OK && b.abs_sum_factor == 0 && b.depth == 0,
        "exact bound", 100, DETRED_MODE_EXACT, 0);
  check(detred_order_version() == 2, "order version 2", 0, -1, -1);
  check(strlen(detred_library_version()) >= 5, "library version", 0, -1, -1);
}

/* detred_reduce: every named function's bits by name, the catalogue's result sizes, and its refusals. */
static void check_reduce_by_name(void) {
  double x[1000], y[1000];
  for (int i = 0; i < 1000; ++i) {
    x[i] = (double)((i * 7919) % 1000) / 997.0 - 0.5;
    y[i] = (double)((i * 104729) % 1000) / 991.0 - 0.5;
  }
  const detred_mode modes[] = {DETRED_MODE_TREE, DETRED_MODE_COMPENSATED, DETRED_MODE_EXACT};
  for (int k = 0; k < 3; ++k) {
    double named = 0, generic = 1;
    check(detred_sum_f64(x, 1000, modes[k], 2, &named) == DETRED_OK &&
              detred_reduce("sum", DETRED_TYPE_F64, x, NULL, 1000, modes[k], 2, &generic) == DETRED_OK &&
              bits_f64(named) == bits_f64(generic),
          "reduce(\"sum\") == detred_sum_f64", 1000, modes[k], 2);
    check(detred_dot_f64(x, y, 1000, modes[k], 1, &named) == DETRED_OK &&
              detred_reduce("dot", DETRED_TYPE_F64, x, y, 1000, modes[k], 1, &generic) == DETRED_OK &&
              bits_f64(named) == bits_f64(generic),
          "reduce(\"dot\") == detred_dot_f64", 1000, modes[k], 1);
    check(detred_nrm2_f64(x, 1000, modes[k], 0, &named) == DETRED_OK &&
              detred_reduce("nrm2", DETRED_TYPE_F64, x, NULL, 1000, modes[k], 0, &generic) == DETRED_OK &&
              bits_f64(named) == bits_f64(generic),
          "reduce(\"nrm2\") == detred_nrm2_f64", 1000, modes[k], 0);
  }
  /* An operation with no function of its own: sumsq, bit for bit the dot product of x with itself. */
  for (int k = 0; k < 3; ++k) {
    double with_itself = 0, squares = 1;
    check(detred_dot_f64(x, x, 1000, modes[k], 2, &with_itself) == DETRED_OK &&
              detred_reduce("sumsq", DETRED_TYPE_F64, x, NULL, 1000, modes[k], 2, &squares) == DETRED_OK &&
              bits_f64(with_itself) == bits_f64(squares),
          "reduce(\"sumsq\") == dot(x, x)", 1000, modes[k], 2);
  }
  /* The mean: in tree mode the sum divided by n; in exact mode the correctly rounded quotient, here a tie to even. */
  const double tie[2] = {1.0, 1.0 + 0x1p-52};
  double mean = 0, total_of_x = 0;
  check(detred_sum_f64(x, 1000, DETRED_MODE_TREE, 0, &total_of_x) == DETRED_OK &&
            detred_reduce("mean", DETRED_TYPE_F64, x, NULL, 1000, DETRED_MODE_TREE, 0, &mean) == DETRED_OK &&
            bits_f64(mean) == bits_f64(total_of_x / 1000.0),
        "reduce(\"mean\") == sum / n", 1000, DETRED_MODE_TREE, 0);
  check(detred_reduce("mean", DETRED_TYPE_F64, tie, NULL, 2, DETRED_MODE_EXACT, 0, &mean) == DETRED_OK && mean == 1.0,
        "reduce(\"mean\") exact rounds a tie to even", 2, DETRED_MODE_EXACT, 0);
  uint64_t index = 0, named_index = 1;
  check(detred_argmax_f64(x, 1000, 0, &named_index) == DETRED_OK &&
            detred_reduce("argmax", DETRED_TYPE_F64, x, NULL, 1000, DETRED_MODE_TREE, 0, &index) == DETRED_OK &&
            index == named_index,
        "reduce(\"argmax\") == detred_argmax_f64", 1000, 0, 0);
  const int32_t ints[4] = {2147483647, 2147483647, -5, 3};
  int64_t total = 0;
  check(detred_reduce("sum", DETRED_TYPE_I32, ints, NULL, 4, DETRED_MODE_TREE, 0, &total) == DETRED_OK &&
            total == 2 * (int64_t)2147483647 - 2,
        "reduce(\"sum\") of int32 is the exact int64 sum", 4, 0, 0);
  detred_statistics_f64 st, named_st;
  check(detred_stats_f64(x, 1000, DETRED_MODE_TREE, 0, &named_st) == DETRED_OK &&
            detred_reduce("stats", DETRED_TYPE_F64, x, NULL, 1000, DETRED_MODE_TREE, 0, &st) == DETRED_OK &&
            st.count == 1000 && bits_f64(st.variance) == bits_f64(named_st.variance),
        "reduce(\"stats\") == detred_stats_f64", 1000, 0, 0);
  check(detred_result_size("sum", DETRED_TYPE_F16) == sizeof(float) &&
            detred_result_size("sum", DETRED_TYPE_U32) == sizeof(uint64_t) &&
            detred_result_size("stats", DETRED_TYPE_F32) == sizeof(detred_statistics_f32) &&
            detred_result_size("nrm2", DETRED_TYPE_I32) == 0 && detred_result_size("cumsum", DETRED_TYPE_F64) == 0 &&
            detred_result_size("no such", DETRED_TYPE_F64) == 0,
        "result sizes from the catalogue", 0, -1, -1);
  double r = 0;
  check(detred_reduce("no such", DETRED_TYPE_F64, x, NULL, 3, DETRED_MODE_TREE, 0, &r) == DETRED_INVALID_ARGUMENT &&
            strstr(detred_last_error(), "unknown operation") != NULL,
        "reduce: unknown operation", 3, 0, 0);
  check(detred_reduce("asum", DETRED_TYPE_I32, ints, NULL, 4, DETRED_MODE_TREE, 0, &r) == DETRED_INVALID_ARGUMENT,
        "reduce: a type the operation does not take", 4, 0, 0);
  check(detred_reduce("stats", DETRED_TYPE_F64, x, NULL, 3, DETRED_MODE_EXACT, 0, &st) == DETRED_INVALID_ARGUMENT &&
            strstr(detred_last_error(), "exact") != NULL,
        "reduce: a mode the operation does not have", 3, 2, 0);
  check(detred_reduce("min", DETRED_TYPE_F64, NULL, NULL, 0, DETRED_MODE_TREE, 0, &r) == DETRED_EMPTY,
        "reduce: an empty min", 0, 0, 0);
  check(detred_reduce("dot", DETRED_TYPE_F64, x, NULL, 3, DETRED_MODE_TREE, 0, &r) == DETRED_INVALID_ARGUMENT,
        "reduce: dot without y", 3, 0, 0);
  check(detred_reduce("sum", (detred_type)9, x, NULL, 3, DETRED_MODE_TREE, 0, &r) == DETRED_INVALID_ARGUMENT,
        "reduce: an unknown type", 3, 0, 0);
}

int main(void) {
  /* Around the leaf sizes (2048 doubles, 4096 floats), a ragged tree of leaves, and a multi-threaded size. */
  const size_t sizes[] = {0, 1, 2, 63, 64, 2047, 2048, 2049, 4096, 4097, 3 * 4096 + 5, 100003, (1u << 20) + 7};
  check_errors();
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) check_sums(sizes[i]);
  check_special_values();
  check_operations();
  check_scans();
  check_reduce_by_name();
  printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
