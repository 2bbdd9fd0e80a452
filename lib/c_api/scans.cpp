// SPDX-License-Identifier: BSD-3-Clause
// The C API's scans: inclusive and exclusive prefix sums of every element type (detred/scan.hpp). One line per
// exported function (the macros are in forward.hpp).
#include <cstddef>
#include <cstdint>

#include "detred/detred.h"
#include "detred/number_types.hpp"
#include "detred/scan.hpp"
#include "forward.hpp"

DETRED_C_SCAN_WITH_MODE(detred_cumsum_f64, detred::cumsum, double, double, double)
DETRED_C_SCAN_WITH_MODE(detred_cumsum_f32, detred::cumsum, float, float, float)
DETRED_C_SCAN_WITH_MODE(detred_cumsum_f16, detred::cumsum, uint16_t, detred::float16, float)
DETRED_C_SCAN_WITH_MODE(detred_cumsum_bf16, detred::cumsum, uint16_t, detred::bfloat16, float)
DETRED_C_SCAN_EXACT(detred_cumsum_i32, detred::cumsum, int32_t, int64_t)
DETRED_C_SCAN_EXACT(detred_cumsum_i64, detred::cumsum, int64_t, int64_t)
DETRED_C_SCAN_EXACT(detred_cumsum_u32, detred::cumsum, uint32_t, uint64_t)
DETRED_C_SCAN_EXACT(detred_cumsum_u64, detred::cumsum, uint64_t, uint64_t)

DETRED_C_SCAN_WITH_MODE(detred_exclusive_cumsum_f64, detred::exclusive_cumsum, double, double, double)
DETRED_C_SCAN_WITH_MODE(detred_exclusive_cumsum_f32, detred::exclusive_cumsum, float, float, float)
DETRED_C_SCAN_WITH_MODE(detred_exclusive_cumsum_f16, detred::exclusive_cumsum, uint16_t, detred::float16, float)
DETRED_C_SCAN_WITH_MODE(detred_exclusive_cumsum_bf16, detred::exclusive_cumsum, uint16_t, detred::bfloat16, float)
DETRED_C_SCAN_EXACT(detred_exclusive_cumsum_i32, detred::exclusive_cumsum, int32_t, int64_t)
DETRED_C_SCAN_EXACT(detred_exclusive_cumsum_i64, detred::exclusive_cumsum, int64_t, int64_t)
DETRED_C_SCAN_EXACT(detred_exclusive_cumsum_u32, detred::exclusive_cumsum, uint32_t, uint64_t)
DETRED_C_SCAN_EXACT(detred_exclusive_cumsum_u64, detred::exclusive_cumsum, uint64_t, uint64_t)
