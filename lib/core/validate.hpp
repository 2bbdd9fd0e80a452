// SPDX-License-Identifier: BSD-3-Clause
// Argument checks shared by every entry point, so that each invalid argument gets the same message everywhere.
#pragma once

#include <cstdint>

#include "detred/catalogue.hpp"
#include "detred/options.hpp"

namespace detred {

/// Returns m, or throws detred::error if m is not a known mode.
mode validated(mode m);

/// Returns m if the catalogue (detred/catalogue.hpp) has `op` over elements of `t` in mode m on backend `b` in the
/// call shape `s`; otherwise throws detred::error naming `what` (the call, as in "detred::nrm2") and saying where
/// that mode is available. Every refusal of a mode goes through here, so that each says the same thing.
mode checked_mode(mode m, operation op, element_type t, backend b, call_shape s, const char* what);

template <class T>
mode checked_mode(mode m, operation op, backend b, call_shape s, const char* what) {
  return checked_mode(m, op, element_type_of<T>(), b, s, what);
}

/// The backend a host call with these options computes on: backend::cuda when asked for, the CPU otherwise.
inline backend backend_of(const options& opt) { return opt.backend == backend::cuda ? backend::cuda : backend::cpu; }

/// Throws detred::error naming the first invalid field: an unknown mode, isa or backend, or negative threads.
void validate(const options& opt);

/// Throws detred::error unless the two arrays of an operation (dot) have the same length; `what` names the call.
void validate_lengths(std::uint64_t x, std::uint64_t y, const char* what);

}  // namespace detred
