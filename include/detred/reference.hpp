// SPDX-License-Identifier: BSD-3-Clause
// The scalar reference implementation: the canonical order written as plainly as possible. It is the
// specification in code; every fast path must return its bits. Slow by design: use detred::sum in production.
#pragma once

#include <span>

#include "detred/options.hpp"

// Exported from a shared libdetred, whose other symbols are hidden (cmake/DetredShared.cmake).
#pragma GCC visibility push(default)

namespace detred::reference {

double sum(std::span<const double> x, mode m);
float sum(std::span<const float> x, mode m);

}  // namespace detred::reference

#pragma GCC visibility pop
