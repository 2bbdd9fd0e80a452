// SPDX-License-Identifier: BSD-3-Clause
// The catalogue's names, and the one refusal of a mode that the catalogue does not have (validate.hpp).
#include <array>
#include <cstddef>
#include <string>

#include "core/validate.hpp"
#include "detred/catalogue.hpp"

namespace detred {

namespace {

/// Each enum's names, in the order of its values (the catalogue's arrays list the values in that order too).
using catalogue::operation_names;
constexpr std::array element_type_names = {"float64", "float32", "float16", "bfloat16",
                                           "int32",   "int64",   "uint32",  "uint64"};
constexpr std::array call_shape_names = {"array", "segments", "axis", "by_key", "partial_state", "pieces"};
constexpr bool in_value_order(const auto& values) {
  for (std::size_t k = 0; k < values.size(); ++k) {
    if (static_cast<std::size_t>(values[k]) != k) return false;
  }
  return true;
}
static_assert(in_value_order(catalogue::operations) && in_value_order(catalogue::element_types) &&
              in_value_order(catalogue::call_shapes));
static_assert(operation_names.size() == catalogue::operations.size());
static_assert(element_type_names.size() == catalogue::element_types.size());
static_assert(call_shape_names.size() == catalogue::call_shapes.size());

template <class E, std::size_t N>
const char* name_of(E value, const std::array<const char*, N>& names, const char* unknown) {
  const auto k = static_cast<std::size_t>(value);
  return k < N ? names[k] : unknown;
}

}  // namespace

const char* to_string(operation op) { return name_of(op, operation_names, "unknown operation"); }
const char* to_string(element_type t) { return name_of(t, element_type_names, "unknown element type"); }
const char* to_string(call_shape s) { return name_of(s, call_shape_names, "unknown call shape"); }

namespace {

/// "on backend cpu: array, segments; on backend cuda: array": where op over t has mode m, or "" if nowhere.
std::string where_available(operation op, element_type t, mode m) {
  std::string out;
  for (backend b : catalogue::backends) {
    std::string shapes;
    for (call_shape s : catalogue::call_shapes) {
      if (!catalogue::supports(op, t, m, b, s)) continue;
      if (!shapes.empty()) shapes += ", ";
      shapes += to_string(s);
    }
    if (shapes.empty()) continue;
    if (!out.empty()) out += "; ";
    out += std::string("on backend ") + to_string(b) + ": " + shapes;
  }
  return out;
}

}  // namespace

mode checked_mode(mode m, operation op, element_type t, backend b, call_shape s, const char* what) {
  validated(m);
  if (catalogue::supports(op, t, m, b, s)) return m;
  std::string message = std::string(what) + ": mode " + to_string(m) + " is not available";
  if (b != backend::cpu) message += std::string(" on backend ") + to_string(b);
  if (s != call_shape::array) message += std::string(" for ") + to_string(s);
  if (catalogue::mode_rule_of(op, t) == catalogue::mode_rule::tree_only) {
    message += std::string(" (") + to_string(op) + " has tree mode only)";
  } else if (const std::string where = where_available(op, t, m); !where.empty()) {
    message += std::string(" (") + to_string(op) + " of " + to_string(t) + " has it " + where + ")";
  } else {
    message += std::string(" (") + to_string(op) + " of " + to_string(t) + " has no " + to_string(m) + " mode)";
  }
  throw error(message);
}

void refuse_policy(mode m) {
  throw error(std::string("mode ") + to_string(m) + " is not a mode of the canonical order");
}

}  // namespace detred
