// SPDX-License-Identifier: BSD-3-Clause
// Which instruction set's kernels run a call: the caller's choice, else DETRED_ISA, else the best this CPU has.
#pragma once

#include "detred/options.hpp"
#include "kernel_table.hpp"

namespace detred::cpu {

/// The instruction set a call with this request runs on: the forced one, else DETRED_ISA, else the best supported.
/// DETRED_ISA is read once per process, at the first call that needs it. Throws detred::error if the choice is
/// unsupported or DETRED_ISA holds an unknown name.
isa resolve(isa requested);

/// The kernel table of a resolved instruction set.
const kernel_table& kernels_for(isa resolved);

}  // namespace detred::cpu
