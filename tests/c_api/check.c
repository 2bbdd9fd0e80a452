/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared by the C API test's files: counting checks, the bits of floats, and test data. */
#include "check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int passed = 0;
int failed = 0;

void check(int ok, const char* what, size_t n, int mode, int threads) {
  if (ok) {
    ++passed;
  } else {
    ++failed;
    printf("FAILED: %s (n = %zu, mode = %d, threads = %d)\n", what, n, mode, threads);
  }
}

uint64_t bits_f64(double v) {
  uint64_t b;
  memcpy(&b, &v, sizeof b);
  return b;
}

uint32_t bits_f32(float v) {
  uint32_t b;
  memcpy(&b, &v, sizeof b);
  return b;
}

static uint64_t state = 42;

uint64_t next_bits(void) {
  state = state * 6364136223846793005u + 1442695040888963407u;
  return state ^ (state >> 29);
}

double next_value(void) {
  const uint64_t r = next_bits();
  double mantissa = (double)(r >> 11) / 9007199254740992.0; /* [0, 1) */
  int exponent = (int)((r >> 3) % 41) - 20;
  return ((r & 1) ? -1.0 : 1.0) * ldexp(1.0 + mantissa, exponent);
}

void* allocate(size_t n, size_t size) {
  void* p = malloc((n ? n : 1) * size);
  if (!p) {
    printf("FAILED: out of memory\n");
    exit(1);
  }
  return p;
}
