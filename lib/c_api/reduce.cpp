// SPDX-License-Identifier: BSD-3-Clause
// detred_reduce and detred_result_size: any reduction of the catalogue by name, over detred::reduce's type-erased
// core (detred/reduce.hpp). The operation's name, element types, modes and result type are the catalogue's, so an
// operation added to the library is callable from C with no change here.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>

#include "boundary.hpp"
#include "detred/catalogue.hpp"
#include "detred/detred.h"
#include "detred/reduce.hpp"
#include "forward.hpp"

namespace detred::c_api {
namespace {

std::optional<operation> operation_named(const char* name) {
  if (name == nullptr) return std::nullopt;
  for (operation op : catalogue::operations) {
    if (std::strcmp(to_string(op), name) == 0) return op;
  }
  return std::nullopt;
}

std::optional<element_type> type_of(detred_type t) {
  for (element_type e : catalogue::element_types) {
    if (static_cast<int>(e) == static_cast<int>(t)) return e;
  }
  return std::nullopt;
}

/// f.template operator()<R>() with R the C++ result type of op over elements of t (detred::with_result_type).
template <class F>
void with_result(operation op, element_type t, F&& f) {
  with_type(t, [&]<class T>() { with_result_type<T>(op, f); });
}

/// op over t exists as a reduction (the catalogue has it; not a scan).
bool reducible(operation op, element_type t) { return !catalogue::is_scan(op) && catalogue::has(op, t); }

}  // namespace
}  // namespace detred::c_api

extern "C" {

size_t detred_result_size(const char* operation, detred_type type) {
  using namespace detred::c_api;
  const std::optional<detred::operation> op = operation_named(operation);
  const std::optional<detred::element_type> t = type_of(type);
  if (!op || !t || !reducible(*op, *t)) return 0;
  std::size_t size = 0;
  with_result(*op, *t, [&]<class R>() { size = sizeof(decltype(to_c(R{}))); });
  return size;
}

detred_status detred_reduce(const char* operation, detred_type type, const void* x, const void* y, size_t n,
                            detred_mode mode, int threads, void* result) {
  using namespace detred::c_api;
  return guarded([&] {
    const std::optional<detred::operation> op = operation_named(operation);
    if (!op) {
      throw detred::error{std::string("unknown operation \"") + (operation != nullptr ? operation : "(NULL)") +
                          "\": the names are docs/operations.md's (sum, dot, asum, ...)"};
    }
    const std::optional<detred::element_type> t = type_of(type);
    if (!t) throw rejected{DETRED_INVALID_ARGUMENT, "unknown element type: a detred_type is 0 to 7"};
    if (!reducible(*op, *t)) {
      throw detred::error{std::string(to_string(*op)) + " of " + to_string(*t) +
                          (detred::catalogue::is_scan(*op)
                               ? " is a scan: call detred_cumsum_* or detred_exclusive_cumsum_*"
                               : " does not exist (docs/operations.md)")};
    }
    require(result, "result is NULL: pass the address of the variable that receives the value");
    if (n > 0) require(x, "x is NULL but n > 0: pass the array, or n = 0 for an empty one");
    const bool two = detred::catalogue::arity(*op) == 2;
    if (two && n > 0) require(y, "y is NULL but n > 0: this operation reads two arrays");
    if (n == 0 && detred::catalogue::needs_an_element(*op)) {
      throw rejected{DETRED_EMPTY, "an empty array has no min, max, argmin or argmax: they need an element"};
    }
    const detred::options opt = options_of(mode, threads);
    with_result(*op, *t, [&]<class R>() {
      R r{};
      detred::reduce(*op, *t, x, n, y, two ? n : 0, &r, opt);
      const auto c = to_c(r);  // the C value: statistics become their C struct
      std::memcpy(result, &c, sizeof c);
    });
  });
}

}  // extern "C"
