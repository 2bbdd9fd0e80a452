// SPDX-License-Identifier: BSD-3-Clause
// Argument checks shared by every entry point, so that each invalid argument gets the same message everywhere.
#pragma once

#include <cstdint>

#include "detred/options.hpp"

namespace detred {

/// Returns m, or throws detred::error if m is not a known mode.
mode validated(mode m);

/// Returns m, or throws detred::error naming `what` (the operation, as in "detred::nrm2") if m is mode::exact or
/// unknown: for the calls that have tree and compensated mode only.
mode without_exact(mode m, const char* what);

/// Throws detred::error naming the first invalid field: an unknown mode, isa or backend, or negative threads.
void validate(const options& opt);

/// Throws detred::error unless the two arrays of an operation (dot) have the same length; `what` names the call.
void validate_lengths(std::uint64_t x, std::uint64_t y, const char* what);

}  // namespace detred
