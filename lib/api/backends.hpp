// SPDX-License-Identifier: BSD-3-Clause
// The backends by name: the front door's one lookup of the backend that runs a call (lib/core/backend_seam.hpp).
#pragma once

#include "core/backend_seam.hpp"
#include "detred/options.hpp"

namespace detred {

/// The seam of backend b: the CPU for backend::cpu and backend::automatic (host memory), the CUDA backend for
/// backend::cuda (which throws from every entry in a build without CUDA).
const backend_seam& seam_for(backend b);

/// Tests only: routes backend b to `seam` from now on (nullptr: back to the library's own); returns the one it
/// replaces. A new backend is proven this way before it gets a value of detred::backend (tests/test_backend).
const backend_seam* replace_seam_for_tests(backend b, const backend_seam* seam);

}  // namespace detred
