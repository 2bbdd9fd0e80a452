// SPDX-License-Identifier: BSD-3-Clause
// The scalar reference implementation: the canonical order written as plainly as possible. It is the
// specification in code; every fast path must return its bits. Slow by design: use detred::sum in production.
#pragma once

#include <span>

#include "detred/options.hpp"

// Exported from a shared libdetred, whose other symbols are hidden (cmake/DetredShared.cmake).
#pragma GCC visibility push(default)

namespace detred::reference {

/// The sum of x in the canonical order. Only opt.mode applies: the reference runs on one thread, in scalar code.
double sum(std::span<const double> x, const options& opt = {});
float sum(std::span<const float> x, const options& opt = {});

}  // namespace detred::reference

#pragma GCC visibility pop
