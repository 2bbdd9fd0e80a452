/* The C++ library's own results, for the C test to compare the C API with (cxx_expected.cpp calls detred::sum and
 * detred::bound directly, without the C API). mode: 0 tree, 1 compensated. */
#ifndef DETRED_TESTS_CXX_EXPECTED_H
#define DETRED_TESTS_CXX_EXPECTED_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

double cxx_sum_f64(const double* x, size_t n, int mode);
float cxx_sum_f32(const float* x, size_t n, int mode);
int cxx_depth_f64(uint64_t n);
double cxx_abs_sum_factor_f64(uint64_t n, int mode);

#ifdef __cplusplus
}
#endif

#endif
