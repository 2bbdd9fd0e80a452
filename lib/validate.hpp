// Argument checks shared by every entry point, so that each invalid argument gets the same message everywhere.
#pragma once

#include "detred/options.hpp"

namespace detred {

/// Returns m, or throws detred::error if m is not a known mode.
mode validated(mode m);

/// Returns b, or throws detred::error if b is not a known backend.
backend validated(backend b);

/// Returns the thread count to use (>= 1), or throws detred::error if threads is negative.
int validated_threads(int threads);

}  // namespace detred
