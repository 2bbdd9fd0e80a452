// The kernel table of a resolved instruction set.
#pragma once

#include "detred/options.hpp"
#include "kernel_table.hpp"

namespace detred::cpu {

/// resolved must come from detred::resolved_isa().
const kernel_table& kernels_for(isa resolved);

}  // namespace detred::cpu
