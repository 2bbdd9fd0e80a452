/* SPDX-License-Identifier: BSD-3-Clause */
/* detred C API: deterministic reductions from C (C99 or later) and from anything that calls C (Fortran through
 * iso_c_binding, Julia, R, ctypes).
 *
 *   double s;
 *   if (detred_sum_f64(x, n, DETRED_MODE_TREE, 0, &s) != DETRED_OK) fprintf(stderr, "%s\n", detred_last_error());
 *
 * Every operation of the C++ library: sums (float, double, 16-bit floats, exact integer sums), dot, asum, nrm2, min,
 * max, argmin, argmax, summary statistics and prefix sums (cumsum). Names end in the element type: _f64 double, _f32
 * float, _f16 IEEE binary16 and _bf16 bfloat16 (both as their bits in uint16_t, computed in float), _i32, _i64, _u32,
 * _u64. The result bits are those of the C++ library: they depend only on n and the values, never on the thread count,
 * the instruction set or the machine.
 *
 * Errors: every function returns a detred_status. On anything but DETRED_OK the output is left unchanged and
 * detred_last_error() returns a sentence saying which argument or operation failed. No C++ exception ever leaves
 * these functions.
 *
 * ABI: stable within a major version of this header (DETRED_C_API_VERSION_MAJOR). Functions, enumerators and their
 * values are only ever added, never changed, renumbered or removed; structs are never changed (a new layout gets a
 * new name). docs/bindings.md states the whole policy.
 *
 * Link with the detred_c library (CMake target detred::c). */
#ifndef DETRED_DETRED_H
#define DETRED_DETRED_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The symbols a shared detred_c exports (everything else in it is hidden). */
#if defined(__GNUC__)
#define DETRED_C_EXPORT __attribute__((visibility("default")))
#else
#define DETRED_C_EXPORT
#endif

/* Version of this C interface: the major number changes only with an incompatible change (see above). */
#define DETRED_C_API_VERSION_MAJOR 1
#define DETRED_C_API_VERSION_MINOR 3

/* What a call returned. The values are fixed: new codes may be added, none is renumbered. */
typedef enum detred_status {
  DETRED_OK = 0,
  DETRED_INVALID_ARGUMENT = 1, /* a null pointer, an unknown mode, a negative thread count */
  DETRED_UNSUPPORTED = 2,      /* valid, but not available in this build or on this machine */
  DETRED_DEVICE_ERROR = 3,     /* a failure of the machine: a GPU call failed */
  DETRED_OUT_OF_MEMORY = 4,    /* memory could not be allocated */
  DETRED_INTERNAL_ERROR = 5,   /* a bug in detred: please report it with the message */
  DETRED_OVERFLOW = 6,         /* an exact integer sum that does not fit its result type (the message states it) */
  DETRED_EMPTY = 7,            /* an empty array (n == 0) for min, max, argmin or argmax, which need an element */
  /* Not statuses: they make the enum an int, and every int a valid value of it (see detred_mode). */
  DETRED_STATUS_INT_MIN_ = -2147483647 - 1,
  DETRED_STATUS_INT_MAX_ = 2147483647
} detred_status;

/* How the additions of the canonical order are carried out (detred::mode). */
typedef enum detred_mode {
  DETRED_MODE_TREE = 0,        /* plain additions; error <= gamma_D * sum|x_i| */
  DETRED_MODE_COMPENSATED = 1, /* an error-free (sum, correction) pair through the same tree */
  DETRED_MODE_EXACT = 2,       /* the correctly rounded exact result: sum, dot, asum and nrm2 of f64 and f32, sum
                                  and dot of f16 and bf16; DETRED_INVALID_ARGUMENT from the other calls
                                  (docs/exact.md) */
  /* Not modes: they make the enum an int on every compiler (the ABI passes it as one), and every int a valid value
   * of it, so that any value a caller passes is defined behaviour: an unknown one gets DETRED_INVALID_ARGUMENT. */
  DETRED_MODE_INT_MIN_ = -2147483647 - 1,
  DETRED_MODE_INT_MAX_ = 2147483647
} detred_mode;

/* The documented error bound of a mode for n elements (detred::error_bound, docs/error-bounds.md):
 * |S - result| <= result_factor * |S| + abs_sum_factor * sum|x_i|. */
typedef struct detred_error_bound {
  int depth;            /* D(n) of the canonical order */
  int correction_depth; /* D'(n), compensated mode's correction sum (0 in tree mode) */
  double unit_roundoff; /* u of the element type */
  double result_factor;
  double abs_sum_factor;
} detred_error_bound;

/* The summary statistics of n values (detred::statistics, from one pass over memory). For n = 0: count 0, sum -0.0,
 * everything else NaN. Any NaN makes every member NaN (min and max follow detred_min and detred_max: NaN too);
 * sample_variance and sample_stddev are NaN for n = 1. */
typedef struct detred_statistics_f64 {
  uint64_t count;         /* n */
  double sum;             /* bit for bit detred_sum_f64 in tree mode */
  double mean;            /* sum / (double)n, one rounding (n converted first: exact below 2^53; float 2^24) */
  double variance;        /* population variance M2 / n */
  double sample_variance; /* M2 / (n - 1) */
  double stddev;          /* sqrt(variance) */
  double sample_stddev;   /* sqrt(sample_variance) */
  double min;             /* as detred_min_f64 */
  double max;             /* as detred_max_f64 */
} detred_statistics_f64;

typedef struct detred_statistics_f32 {
  uint64_t count;
  float sum, mean, variance, sample_variance, stddev, sample_stddev, min, max; /* as in detred_statistics_f64 */
} detred_statistics_f32;

/* ---- Reductions. x (and y) may be NULL only when n == 0. threads: 0 = the library default; the bits never depend
 * on it. The output is written only on success. */

/* Sums. Empty input gives -0.0; any NaN, or +Inf with -Inf, gives the canonical quiet NaN. */
DETRED_C_EXPORT detred_status detred_sum_f64(const double* x, size_t n, detred_mode mode, int threads, double* result);
DETRED_C_EXPORT detred_status detred_sum_f32(const float* x, size_t n, detred_mode mode, int threads, float* result);

/* Sums of 16-bit floats: each element widened exactly to float, then float's sum, bit for bit (the result is float:
 * a 16-bit accumulator would lose most sums of more than a few hundred elements). */
DETRED_C_EXPORT detred_status detred_sum_f16(const uint16_t* x, size_t n, detred_mode mode, int threads, float* result);
DETRED_C_EXPORT detred_status detred_sum_bf16(const uint16_t* x, size_t n, detred_mode mode, int threads,
                                              float* result);

/* Exact integer sums (a 128-bit accumulator): int64 for signed, uint64 for unsigned elements. DETRED_OVERFLOW when
 * the exact sum does not fit the result type (nothing wraps around). Exact, so no mode. Empty input gives 0. */
DETRED_C_EXPORT detred_status detred_sum_i32(const int32_t* x, size_t n, int threads, int64_t* result);
DETRED_C_EXPORT detred_status detred_sum_i64(const int64_t* x, size_t n, int threads, int64_t* result);
DETRED_C_EXPORT detred_status detred_sum_u32(const uint32_t* x, size_t n, int threads, uint64_t* result);
DETRED_C_EXPORT detred_status detred_sum_u64(const uint64_t* x, size_t n, int threads, uint64_t* result);

/* Dot product sum x[i] * y[i] of two arrays of n elements (compensated mode: Ogita, Rump and Oishi's Dot2). Special
 * values as the sum; 16-bit floats are widened to float and dotted in float. */
DETRED_C_EXPORT detred_status detred_dot_f64(const double* x, const double* y, size_t n, detred_mode mode, int threads,
                                             double* result);
DETRED_C_EXPORT detred_status detred_dot_f32(const float* x, const float* y, size_t n, detred_mode mode, int threads,
                                             float* result);
DETRED_C_EXPORT detred_status detred_dot_f16(const uint16_t* x, const uint16_t* y, size_t n, detred_mode mode,
                                             int threads, float* result);
DETRED_C_EXPORT detred_status detred_dot_bf16(const uint16_t* x, const uint16_t* y, size_t n, detred_mode mode,
                                              int threads, float* result);

/* asum: sum |x[i]|, bit for bit the sum of the magnitudes (empty: -0.0). nrm2: sqrt(sum x[i]^2) without overflow or
 * underflow in between (empty: +0.0; an infinite element gives +Inf, NaN the canonical NaN). */
DETRED_C_EXPORT detred_status detred_asum_f64(const double* x, size_t n, detred_mode mode, int threads, double* result);
DETRED_C_EXPORT detred_status detred_asum_f32(const float* x, size_t n, detred_mode mode, int threads, float* result);
DETRED_C_EXPORT detred_status detred_nrm2_f64(const double* x, size_t n, detred_mode mode, int threads, double* result);
DETRED_C_EXPORT detred_status detred_nrm2_f32(const float* x, size_t n, detred_mode mode, int threads, float* result);

/* Selections. Rules that make the answer unique: NaN propagates (min and max return the canonical NaN, argmin and
 * argmax the index of the first NaN); -0.0 is smaller than +0.0; ties go to the lowest index. Indices are 0-based.
 * DETRED_EMPTY for n == 0. Selections round nothing, so no mode. */
DETRED_C_EXPORT detred_status detred_min_f64(const double* x, size_t n, int threads, double* result);
DETRED_C_EXPORT detred_status detred_min_f32(const float* x, size_t n, int threads, float* result);
DETRED_C_EXPORT detred_status detred_min_i32(const int32_t* x, size_t n, int threads, int32_t* result);
DETRED_C_EXPORT detred_status detred_min_i64(const int64_t* x, size_t n, int threads, int64_t* result);
DETRED_C_EXPORT detred_status detred_min_u32(const uint32_t* x, size_t n, int threads, uint32_t* result);
DETRED_C_EXPORT detred_status detred_min_u64(const uint64_t* x, size_t n, int threads, uint64_t* result);

DETRED_C_EXPORT detred_status detred_max_f64(const double* x, size_t n, int threads, double* result);
DETRED_C_EXPORT detred_status detred_max_f32(const float* x, size_t n, int threads, float* result);
DETRED_C_EXPORT detred_status detred_max_i32(const int32_t* x, size_t n, int threads, int32_t* result);
DETRED_C_EXPORT detred_status detred_max_i64(const int64_t* x, size_t n, int threads, int64_t* result);
DETRED_C_EXPORT detred_status detred_max_u32(const uint32_t* x, size_t n, int threads, uint32_t* result);
DETRED_C_EXPORT detred_status detred_max_u64(const uint64_t* x, size_t n, int threads, uint64_t* result);

DETRED_C_EXPORT detred_status detred_argmin_f64(const double* x, size_t n, int threads, uint64_t* index);
DETRED_C_EXPORT detred_status detred_argmin_f32(const float* x, size_t n, int threads, uint64_t* index);
DETRED_C_EXPORT detred_status detred_argmin_i32(const int32_t* x, size_t n, int threads, uint64_t* index);
DETRED_C_EXPORT detred_status detred_argmin_i64(const int64_t* x, size_t n, int threads, uint64_t* index);
DETRED_C_EXPORT detred_status detred_argmin_u32(const uint32_t* x, size_t n, int threads, uint64_t* index);
DETRED_C_EXPORT detred_status detred_argmin_u64(const uint64_t* x, size_t n, int threads, uint64_t* index);

DETRED_C_EXPORT detred_status detred_argmax_f64(const double* x, size_t n, int threads, uint64_t* index);
DETRED_C_EXPORT detred_status detred_argmax_f32(const float* x, size_t n, int threads, uint64_t* index);
DETRED_C_EXPORT detred_status detred_argmax_i32(const int32_t* x, size_t n, int threads, uint64_t* index);
DETRED_C_EXPORT detred_status detred_argmax_i64(const int64_t* x, size_t n, int threads, uint64_t* index);
DETRED_C_EXPORT detred_status detred_argmax_u32(const uint32_t* x, size_t n, int threads, uint64_t* index);
DETRED_C_EXPORT detred_status detred_argmax_u64(const uint64_t* x, size_t n, int threads, uint64_t* index);

/* Summary statistics from one read of x (detred_statistics_f64 above gives each member's rule). Tree mode only for
 * now: DETRED_MODE_COMPENSATED gives DETRED_INVALID_ARGUMENT (the parameter is there for a mode to come). */
DETRED_C_EXPORT detred_status detred_stats_f64(const double* x, size_t n, detred_mode mode, int threads,
                                               detred_statistics_f64* result);
DETRED_C_EXPORT detred_status detred_stats_f32(const float* x, size_t n, detred_mode mode, int threads,
                                               detred_statistics_f32* result);

/* The scalar reference implementation (detred::reference::sum): the specification in code, slow by design. Every
 * fast path returns its bits; tests compare against it. */
DETRED_C_EXPORT detred_status detred_reference_sum_f64(const double* x, size_t n, detred_mode mode, double* result);
DETRED_C_EXPORT detred_status detred_reference_sum_f32(const float* x, size_t n, detred_mode mode, float* result);

/* ---- Any reduction of the catalogue by its name (detred::reduce, detred/reduce.hpp; since 1.3): the functions
 * above and every operation the library adds later, with no new function. The names and which element types and modes
 * each has are docs/operations.md's (the catalogue); an unknown name, a type or mode it does not have, or a scan gives
 * DETRED_INVALID_ARGUMENT; an empty array for min, max, argmin or argmax DETRED_EMPTY. */

/* The element types, as the catalogue numbers them (detred::element_type). */
typedef enum detred_type {
  DETRED_TYPE_F64 = 0,
  DETRED_TYPE_F32 = 1,
  DETRED_TYPE_F16 = 2,  /* uint16_t bits of IEEE binary16 */
  DETRED_TYPE_BF16 = 3, /* uint16_t bits of bfloat16 */
  DETRED_TYPE_I32 = 4,
  DETRED_TYPE_I64 = 5,
  DETRED_TYPE_U32 = 6,
  DETRED_TYPE_U64 = 7,
  /* Not types: they make the enum an int, and every int a valid value of it (see detred_mode). */
  DETRED_TYPE_INT_MIN_ = -2147483647 - 1,
  DETRED_TYPE_INT_MAX_ = 2147483647
} detred_type;

/* `operation` over the n elements of `type` at x (and at y for an operation of two arrays, "dot"; NULL otherwise),
 * the result stored at `result`, which holds detred_result_size(operation, type) bytes: the operation's result
 * type (double, float, int64_t, uint64_t, uint64_t indices, detred_statistics_f64/f32). threads: as above. */
DETRED_C_EXPORT detred_status detred_reduce(const char* operation, detred_type type, const void* x, const void* y,
                                            size_t n, detred_mode mode, int threads, void* result);

/* The size in bytes of the result of `operation` over `type`; 0 for an unknown name, a type it does not take, or a
 * scan. */
DETRED_C_EXPORT size_t detred_result_size(const char* operation, detred_type type);

/* ---- Scans (detred::cumsum, docs/scan.md): y[i] = x[0] + ... + x[i] (cumsum) or x[0] + ... + x[i-1]
 * (exclusive_cumsum, y[0] the empty sum: -0.0, or 0 for integers), each output's bits fixed by i and x[0..i] alone (the
 * scan order), never by n, the thread count or the machine. y holds n elements; it may be x itself (in place) where
 * both have one type
 * (_f64, _f32, _i64, _u64), but may not overlap x otherwise. mode: tree or compensated (DETRED_MODE_EXACT gives
 * DETRED_INVALID_ARGUMENT). 16-bit floats are widened to float and scanned in float; integers exactly, into int64
 * (uint64), DETRED_OVERFLOW for an output that does not fit (y is then left unchanged: the integer scans go through a
 * scratch buffer of n outputs). */
DETRED_C_EXPORT detred_status detred_cumsum_f64(const double* x, size_t n, detred_mode mode, int threads, double* y);
DETRED_C_EXPORT detred_status detred_cumsum_f32(const float* x, size_t n, detred_mode mode, int threads, float* y);
DETRED_C_EXPORT detred_status detred_cumsum_f16(const uint16_t* x, size_t n, detred_mode mode, int threads, float* y);
DETRED_C_EXPORT detred_status detred_cumsum_bf16(const uint16_t* x, size_t n, detred_mode mode, int threads, float* y);
DETRED_C_EXPORT detred_status detred_cumsum_i32(const int32_t* x, size_t n, int threads, int64_t* y);
DETRED_C_EXPORT detred_status detred_cumsum_i64(const int64_t* x, size_t n, int threads, int64_t* y);
DETRED_C_EXPORT detred_status detred_cumsum_u32(const uint32_t* x, size_t n, int threads, uint64_t* y);
DETRED_C_EXPORT detred_status detred_cumsum_u64(const uint64_t* x, size_t n, int threads, uint64_t* y);
DETRED_C_EXPORT detred_status detred_exclusive_cumsum_f64(const double* x, size_t n, detred_mode mode, int threads,
                                                          double* y);
DETRED_C_EXPORT detred_status detred_exclusive_cumsum_f32(const float* x, size_t n, detred_mode mode, int threads,
                                                          float* y);
DETRED_C_EXPORT detred_status detred_exclusive_cumsum_f16(const uint16_t* x, size_t n, detred_mode mode, int threads,
                                                          float* y);
DETRED_C_EXPORT detred_status detred_exclusive_cumsum_bf16(const uint16_t* x, size_t n, detred_mode mode, int threads,
                                                           float* y);
DETRED_C_EXPORT detred_status detred_exclusive_cumsum_i32(const int32_t* x, size_t n, int threads, int64_t* y);
DETRED_C_EXPORT detred_status detred_exclusive_cumsum_i64(const int64_t* x, size_t n, int threads, int64_t* y);
DETRED_C_EXPORT detred_status detred_exclusive_cumsum_u32(const uint32_t* x, size_t n, int threads, uint64_t* y);
DETRED_C_EXPORT detred_status detred_exclusive_cumsum_u64(const uint64_t* x, size_t n, int threads, uint64_t* y);

/* ---- Error bounds (detred::bound<T>). */

DETRED_C_EXPORT detred_status detred_bound_f64(uint64_t n, detred_mode mode, detred_error_bound* result);
DETRED_C_EXPORT detred_status detred_bound_f32(uint64_t n, detred_mode mode, detred_error_bound* result);

/* ---- Errors and versions. */

/* The message of the most recent failed call on this thread ("" if none has failed). Successful calls leave it
 * as it is. The pointer stays valid until the next failing call on the same thread. */
DETRED_C_EXPORT const char* detred_last_error(void);

/* A constant name for a status: "ok", "invalid argument", ..., "overflow", "empty" ("unknown status" for any other
 * value). */
DETRED_C_EXPORT const char* detred_status_string(detred_status status);

/* "tree", "compensated" or "exact"; NULL for any other value. */
DETRED_C_EXPORT const char* detred_mode_name(detred_mode mode);

/* The library's version, "major.minor.patch". */
DETRED_C_EXPORT const char* detred_library_version(void);

/* The canonical order's version: results with the same order version are bitwise equal everywhere. */
DETRED_C_EXPORT int detred_order_version(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DETRED_DETRED_H */
