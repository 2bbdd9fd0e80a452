// The C++ side of the C API test: the library's results through its C++ API, for c_api_test.c to compare with.
#include "cxx_expected.h"

#include <span>

#include "detred/bounds.hpp"
#include "detred/sum.hpp"

namespace {

detred::mode mode_of(int m) { return m == 0 ? detred::mode::tree : detred::mode::compensated; }

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

}  // extern "C"
