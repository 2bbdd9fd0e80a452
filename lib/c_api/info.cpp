// SPDX-License-Identifier: BSD-3-Clause
// The C API's error bounds, names, versions and last-error message.
#include <cstdint>

#include "boundary.hpp"
#include "detred/bounds.hpp"
#include "detred/detred.h"
#include "detred/order/shape.hpp"
#include "detred/version.hpp"

namespace {

template <class T>
detred_status bound_into(std::uint64_t n, detred_mode mode, detred_error_bound* result) noexcept {
  return detred::c_api::guarded([&] {
    detred::c_api::require(result, "result is NULL: pass the address of a detred_error_bound");
    const detred::error_bound b = detred::bound<T>(n, detred::c_api::to_mode(mode));
    *result = {b.depth, b.correction_depth, b.unit_roundoff, b.result_factor, b.abs_sum_factor};
  });
}

}  // namespace

extern "C" {

detred_status detred_bound_f64(uint64_t n, detred_mode mode, detred_error_bound* result) {
  return bound_into<double>(n, mode, result);
}
detred_status detred_bound_f32(uint64_t n, detred_mode mode, detred_error_bound* result) {
  return bound_into<float>(n, mode, result);
}

const char* detred_last_error(void) { return detred::c_api::last_message(); }

const char* detred_status_string(detred_status status) {
  switch (status) {
    case DETRED_OK:
      return "ok";
    case DETRED_INVALID_ARGUMENT:
      return "invalid argument";
    case DETRED_UNSUPPORTED:
      return "unsupported";
    case DETRED_DEVICE_ERROR:
      return "device error";
    case DETRED_OUT_OF_MEMORY:
      return "out of memory";
    case DETRED_INTERNAL_ERROR:
      return "internal error";
    case DETRED_OVERFLOW:
      return "overflow";
    case DETRED_EMPTY:
      return "empty";
    default:
      break;
  }
  return "unknown status";
}

const char* detred_mode_name(detred_mode mode) {
  switch (mode) {
    case DETRED_MODE_TREE:
      return "tree";
    case DETRED_MODE_COMPENSATED:
      return "compensated";
    case DETRED_MODE_EXACT:
      return "exact";
    default:
      break;
  }
  return nullptr;
}

const char* detred_library_version(void) { return detred::library_version; }

int detred_order_version(void) { return detred::order_version; }

}  // extern "C"
