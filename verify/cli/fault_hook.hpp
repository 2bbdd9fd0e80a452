// SPDX-License-Identifier: BSD-3-Clause
// Fault injection, for the tool's own tests: exit statuses 1, 3 and 4 cannot be produced by a correct library on a
// healthy machine, so the tests run a build of the tool that can fake them. The shipped `detred` links
// fault_hook_none.cpp (the hook does nothing); the test-only `detred-fault-injection` links fault_hook_env.cpp.
#pragma once

#include <vector>

#include "common.hpp"

namespace detred::verify::cli {

/// Called by verify with each mode's results before they are compared and assessed.
void inject_fault(std::vector<path_result>& runs);

}  // namespace detred::verify::cli
