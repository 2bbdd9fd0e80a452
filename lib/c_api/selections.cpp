// SPDX-License-Identifier: BSD-3-Clause
// The C API's selections: min, max, argmin, argmax of every element type. One line per exported function (the macro
// is in forward.hpp).
#include <cstdint>

#include "detred/detred.h"
#include "detred/extrema.hpp"
#include "forward.hpp"

// One line per element type: its min, max, argmin and argmax.
#define DETRED_C_SELECTIONS(suffix, C)                                    \
  DETRED_C_SELECTION(detred_min_##suffix, detred::min, C, C)              \
  DETRED_C_SELECTION(detred_max_##suffix, detred::max, C, C)              \
  DETRED_C_SELECTION(detred_argmin_##suffix, detred::argmin, C, uint64_t) \
  DETRED_C_SELECTION(detred_argmax_##suffix, detred::argmax, C, uint64_t)

DETRED_C_SELECTIONS(f64, double)
DETRED_C_SELECTIONS(f32, float)
DETRED_C_SELECTIONS(i32, int32_t)
DETRED_C_SELECTIONS(i64, int64_t)
DETRED_C_SELECTIONS(u32, uint32_t)
DETRED_C_SELECTIONS(u64, uint64_t)
