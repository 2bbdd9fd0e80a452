/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared by the C API test's files: counting checks, the bits of floats, and test data. */
#ifndef DETRED_TESTS_C_API_CHECK_H
#define DETRED_TESTS_C_API_CHECK_H

#include <stddef.h>
#include <stdint.h>

extern int passed;
extern int failed;

/* Counts a check; prints what failed, with the size, mode and thread count it failed for (-1: not applicable). */
void check(int ok, const char* what, size_t n, int mode, int threads);

uint64_t bits_f64(double v);
uint32_t bits_f32(float v);

/* Values of mixed sign and magnitude (exponents over about 2^-20..2^20), so that the order of the additions shows in
 * the result bits. */
double next_value(void);
/* 64 random bits. */
uint64_t next_bits(void);

/* malloc that exits the test when memory runs out; at least one element, so that n = 0 gives a valid pointer. */
void* allocate(size_t n, size_t size);

#endif
