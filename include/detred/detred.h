/* detred C API: deterministic reductions from C (C99 or later) and from anything that calls C (Fortran through
 * iso_c_binding, Julia, R, ctypes).
 *
 *   double s;
 *   if (detred_sum_f64(x, n, DETRED_MODE_TREE, 0, &s) != DETRED_OK) fprintf(stderr, "%s\n", detred_last_error());
 *
 * The result bits are those of the C++ library (detred::sum): they depend only on n and the values, never on the
 * thread count, the instruction set or the machine.
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
#define DETRED_C_API_VERSION_MINOR 0

/* What a call returned. The values are fixed: new codes may be added, none is renumbered. */
typedef enum detred_status {
  DETRED_OK = 0,
  DETRED_INVALID_ARGUMENT = 1, /* a null pointer, an unknown mode, a negative thread count */
  DETRED_UNSUPPORTED = 2,      /* valid, but not available in this build or on this machine */
  DETRED_DEVICE_ERROR = 3,     /* a failure of the machine: a GPU call failed */
  DETRED_OUT_OF_MEMORY = 4,    /* memory could not be allocated */
  DETRED_INTERNAL_ERROR = 5,   /* a bug in detred: please report it with the message */
  /* Not statuses: they make the enum an int, and every int a valid value of it (see detred_mode). */
  DETRED_STATUS_INT_MIN_ = -2147483647 - 1,
  DETRED_STATUS_INT_MAX_ = 2147483647
} detred_status;

/* How the additions of the canonical order are carried out (detred::mode). */
typedef enum detred_mode {
  DETRED_MODE_TREE = 0,        /* plain additions; error <= gamma_D * sum|x_i| */
  DETRED_MODE_COMPENSATED = 1, /* an error-free (sum, correction) pair through the same tree */
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

/* ---- Reductions. x may be NULL only when n == 0. threads: 0 = the library default; the bits never depend on it.
 * Empty input gives -0.0; any NaN, or +Inf with -Inf, gives the canonical quiet NaN. */

DETRED_C_EXPORT detred_status detred_sum_f64(const double* x, size_t n, detred_mode mode, int threads, double* result);
DETRED_C_EXPORT detred_status detred_sum_f32(const float* x, size_t n, detred_mode mode, int threads, float* result);

/* The scalar reference implementation (detred::reference::sum): the specification in code, slow by design. Every
 * fast path returns its bits; tests compare against it. */
DETRED_C_EXPORT detred_status detred_reference_sum_f64(const double* x, size_t n, detred_mode mode, double* result);
DETRED_C_EXPORT detred_status detred_reference_sum_f32(const float* x, size_t n, detred_mode mode, float* result);

/* ---- Error bounds (detred::bound<T>). */

DETRED_C_EXPORT detred_status detred_bound_f64(uint64_t n, detred_mode mode, detred_error_bound* result);
DETRED_C_EXPORT detred_status detred_bound_f32(uint64_t n, detred_mode mode, detred_error_bound* result);

/* ---- Errors and versions. */

/* The message of the most recent failed call on this thread ("" if none has failed). Successful calls leave it
 * as it is. The pointer stays valid until the next failing call on the same thread. */
DETRED_C_EXPORT const char* detred_last_error(void);

/* A constant name for a status: "ok", "invalid argument", ... ("unknown status" for any other value). */
DETRED_C_EXPORT const char* detred_status_string(detred_status status);

/* "tree" or "compensated"; NULL for any other value. */
DETRED_C_EXPORT const char* detred_mode_name(detred_mode mode);

/* The library's version, "major.minor.patch". */
DETRED_C_EXPORT const char* detred_library_version(void);

/* The canonical order's version: results with the same order version are bitwise equal everywhere. */
DETRED_C_EXPORT int detred_order_version(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DETRED_DETRED_H */
