// SPDX-License-Identifier: BSD-3-Clause
// The C API's dot products. One line per exported function (the macros are in forward.hpp).
#include <cstdint>

#include "detred/detred.h"
#include "detred/dot.hpp"
#include "detred/number_types.hpp"
#include "forward.hpp"

DETRED_C_TWO_ARRAYS_WITH_MODE(detred_dot_f64, detred::dot, double, double, double)
DETRED_C_TWO_ARRAYS_WITH_MODE(detred_dot_f32, detred::dot, float, float, float)
DETRED_C_TWO_ARRAYS_WITH_MODE(detred_dot_f16, detred::dot, uint16_t, detred::float16, float)
DETRED_C_TWO_ARRAYS_WITH_MODE(detred_dot_bf16, detred::dot, uint16_t, detred::bfloat16, float)
