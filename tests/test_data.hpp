// SPDX-License-Identifier: BSD-3-Clause
// The tests' inputs: the shared generators library (lib/generators), seen from the tests' namespace.
#pragma once

#include "portable_random.hpp"
#include "value_classes.hpp"

namespace detred::testing {
using namespace detred::generators;
}  // namespace detred::testing
