// SPDX-License-Identifier: BSD-3-Clause
// The C API's norms: asum and nrm2. One line per exported function (the macros are in forward.hpp).
#include "detred/norms.hpp"
#include "detred/detred.h"
#include "forward.hpp"

DETRED_C_WITH_MODE(detred_asum_f64, detred::asum, double, double, double)
DETRED_C_WITH_MODE(detred_asum_f32, detred::asum, float, float, float)
DETRED_C_WITH_MODE(detred_nrm2_f64, detred::nrm2, double, double, double)
DETRED_C_WITH_MODE(detred_nrm2_f32, detred::nrm2, float, float, float)
