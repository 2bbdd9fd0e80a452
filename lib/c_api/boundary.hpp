// SPDX-License-Identifier: BSD-3-Clause
// The boundary between the C API and the C++ library: every exported function runs its body through guarded(),
// which turns any exception into a detred_status and the thread's last-error message. Nothing else crosses.
#pragma once

#include <string_view>

#include "detred/detred.h"
#include "detred/options.hpp"

namespace detred::c_api {

/// Thrown inside a guarded body for an argument the C API itself rejects (a null pointer, an unknown enumerator).
struct rejected {
  detred_status status;
  const char* message;
};

/// Records message (prefixed with "detred: " if it lacks it) as this thread's last error and returns status.
/// Never throws: if the message cannot be stored, a fixed text stands in for it.
detred_status fail(detred_status status, std::string_view message) noexcept;

/// This thread's last-error message ("" if no call has failed on it).
const char* last_message() noexcept;

/// The status and message of the exception being handled (call only inside a catch block).
detred_status fail_with_current_exception() noexcept;

/// Runs body() (which returns nothing) and reports DETRED_OK, or the failure of whatever it threw.
template <class Body>
detred_status guarded(Body&& body) noexcept {
  try {
    body();
    return DETRED_OK;
  } catch (...) {
    return fail_with_current_exception();
  }
}

/// The C++ mode of a C enumerator; throws rejected for a value that names no mode.
detred::mode to_mode(detred_mode m);

/// Throws rejected with DETRED_INVALID_ARGUMENT and `message` when p is null (a pointer the call needs).
void require(const void* p, const char* message);

}  // namespace detred::c_api
