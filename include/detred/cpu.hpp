// SPDX-License-Identifier: BSD-3-Clause
// What the CPU backend can run on this machine.
#pragma once

#include <vector>

#include "detred/options.hpp"

// Exported from a shared libdetred, whose other symbols are hidden (cmake/DetredShared.cmake).
#pragma GCC visibility push(default)

namespace detred {

/// True if this build carries code for the instruction set and this CPU can run it. isa::baseline is always true;
/// isa::automatic is true.
bool isa_supported(isa i);

/// The concrete instruction sets (not automatic) this build carries and this CPU can run, baseline first.
std::vector<isa> supported_isas();

/// The instruction set a call with these options runs on: the forced one, else DETRED_ISA, else the best supported.
/// DETRED_ISA is read once per process, at the first call that needs it. Throws detred::error if the choice is
/// unsupported or DETRED_ISA holds an unknown name.
isa resolved_isa(isa requested);

}  // namespace detred

#pragma GCC visibility pop
