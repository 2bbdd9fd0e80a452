// SPDX-License-Identifier: BSD-3-Clause
// The C API's scans: inclusive and exclusive prefix sums of every element type (detred/scan.hpp). One line per
// operation and kind of element type (the macros are in forward.hpp).
#include <cstddef>
#include <cstdint>

#include "detred/detred.h"
#include "detred/number_types.hpp"
#include "detred/scan.hpp"
#include "forward.hpp"

DETRED_C_FLOAT_TYPES(DETRED_C_SCAN_WITH_MODE, detred_cumsum, detred::cumsum)
DETRED_C_INTEGER_TYPES(DETRED_C_SCAN_EXACT, detred_cumsum, detred::cumsum)
DETRED_C_FLOAT_TYPES(DETRED_C_SCAN_WITH_MODE, detred_exclusive_cumsum, detred::exclusive_cumsum)
DETRED_C_INTEGER_TYPES(DETRED_C_SCAN_EXACT, detred_exclusive_cumsum, detred::exclusive_cumsum)
