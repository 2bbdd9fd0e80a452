// SPDX-License-Identifier: BSD-3-Clause
// The shipped tool: no fault injection.
#include "fault_hook.hpp"

namespace detred::verify::cli {

void inject_fault(std::vector<path_result>&) {}

}  // namespace detred::verify::cli
