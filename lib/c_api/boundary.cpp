// SPDX-License-Identifier: BSD-3-Clause
// The exception-to-status translation and the thread-local last-error message of the C API.
#include "boundary.hpp"

#include <array>
#include <cstddef>
#include <exception>
#include <new>
#include <string>

#include "detred/catalogue.hpp"

namespace detred::c_api {
namespace {

// Each thread's message of its last failed call. The std::string is never shrunk, so the pointer that
// detred_last_error() returns stays valid until the next failure on the same thread.
thread_local std::string last_error;
// Set when a message could not be stored (out of memory); detred_last_error() then returns a fixed text.
thread_local bool message_lost = false;

}  // namespace

detred_status fail(detred_status status, std::string_view message) noexcept {
  try {
    constexpr std::string_view prefix = "detred: ";
    last_error.assign(message.starts_with(prefix) ? "" : prefix);
    last_error.append(message);
    message_lost = false;
  } catch (...) {
    message_lost = true;
  }
  return status;
}

detred_status fail_with_current_exception() noexcept {
  try {
    throw;
  } catch (const rejected& r) {
    return fail(r.status, r.message);
  } catch (const detred::device_error& e) {
    return fail(DETRED_DEVICE_ERROR, e.what());
  } catch (const detred::overflow_error& e) {
    return fail(DETRED_OVERFLOW, e.what());
  } catch (const detred::error& e) {
    // The library throws detred::error for invalid arguments, and for a backend this build lacks (no CUDA).
    return fail(DETRED_INVALID_ARGUMENT, e.what());
  } catch (const std::bad_alloc&) {
    return fail(DETRED_OUT_OF_MEMORY, "memory could not be allocated");
  } catch (const std::exception& e) {
    return fail(DETRED_INTERNAL_ERROR, e.what());
  } catch (...) {
    return fail(DETRED_INTERNAL_ERROR, "an unknown exception");
  }
}

const char* last_message() noexcept {
  return message_lost ? "detred: the message of the last error was lost (out of memory)" : last_error.c_str();
}

// A detred_mode has the value of its detred::mode: the C enum lists the catalogue's modes in the same order.
constexpr std::array c_modes = {DETRED_MODE_TREE, DETRED_MODE_COMPENSATED, DETRED_MODE_EXACT};
static_assert(c_modes.size() == detred::catalogue::modes.size());
static_assert([] {
  for (std::size_t k = 0; k < c_modes.size(); ++k) {
    if (static_cast<int>(c_modes[k]) != static_cast<int>(detred::catalogue::modes[k])) return false;
  }
  return true;
}());

detred::mode to_mode(detred_mode m) {
  for (detred::mode known : detred::catalogue::modes) {
    if (static_cast<int>(known) == static_cast<int>(m)) return known;
  }
  throw rejected{
      DETRED_INVALID_ARGUMENT,
      "unknown mode: a detred_mode is DETRED_MODE_TREE (0), DETRED_MODE_COMPENSATED (1) or DETRED_MODE_EXACT (2)"};
}

void require(const void* p, const char* message) {
  if (p == nullptr) throw rejected{DETRED_INVALID_ARGUMENT, message};
}

}  // namespace detred::c_api
