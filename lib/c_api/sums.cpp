// SPDX-License-Identifier: BSD-3-Clause
// The C API's sums: floating-point (double, float, and 16-bit floats summed in float), exact integer sums, and the
// scalar reference. One line per exported function (the macros are in forward.hpp).
#include <cstddef>
#include <cstdint>
#include <span>

#include "detred/detred.h"
#include "detred/number_types.hpp"
#include "detred/reference.hpp"
#include "detred/sum.hpp"
#include "forward.hpp"

DETRED_C_FLOAT_TYPES(DETRED_C_WITH_MODE, detred_sum, detred::sum)
DETRED_C_INTEGER_TYPES(DETRED_C_EXACT, detred_sum, detred::sum)

extern "C" {

detred_status detred_reference_sum_f64(const double* x, size_t n, detred_mode mode, double* result) {
  return detred::c_api::into(result, [&] {
    return detred::reference::sum(detred::c_api::elements<double>(x, n), detred::c_api::options_of(mode, 0));
  });
}
detred_status detred_reference_sum_f32(const float* x, size_t n, detred_mode mode, float* result) {
  return detred::c_api::into(result, [&] {
    return detred::reference::sum(detred::c_api::elements<float>(x, n), detred::c_api::options_of(mode, 0));
  });
}

}  // extern "C"
