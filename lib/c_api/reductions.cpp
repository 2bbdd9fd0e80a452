// The C API's reductions: each exported function is one line naming the C++ call it forwards to. A new operation
// (dot, asum, ...) adds its prototypes to detred.h and one line per element type here (docs/bindings.md).
#include <cstddef>
#include <span>

#include "boundary.hpp"
#include "detred/detred.h"
#include "detred/reference.hpp"
#include "detred/sum.hpp"

namespace {

using detred::c_api::guarded;
using detred::c_api::require;
using detred::c_api::to_mode;

// Checks the pointers, runs reduce(x as a span) and stores its value in *result. x may be null only when n == 0.
template <class T, class Reduce>
detred_status reduce_into(const T* x, std::size_t n, T* result, Reduce&& reduce) noexcept {
  return guarded([&] {
    require(result, "result is NULL: pass the address of the variable that receives the value");
    if (n > 0) require(x, "x is NULL but n > 0: pass the array, or n = 0 for an empty sum");
    *result = reduce(std::span<const T>(x, n));
  });
}

}  // namespace

extern "C" {

detred_status detred_sum_f64(const double* x, size_t n, detred_mode mode, int threads, double* result) {
  return reduce_into(x, n, result, [&](auto s) { return detred::sum(s, {.mode = to_mode(mode), .threads = threads}); });
}
detred_status detred_sum_f32(const float* x, size_t n, detred_mode mode, int threads, float* result) {
  return reduce_into(x, n, result, [&](auto s) { return detred::sum(s, {.mode = to_mode(mode), .threads = threads}); });
}

detred_status detred_reference_sum_f64(const double* x, size_t n, detred_mode mode, double* result) {
  return reduce_into(x, n, result, [&](auto s) { return detred::reference::sum(s, to_mode(mode)); });
}
detred_status detred_reference_sum_f32(const float* x, size_t n, detred_mode mode, float* result) {
  return reduce_into(x, n, result, [&](auto s) { return detred::reference::sum(s, to_mode(mode)); });
}

}  // extern "C"
