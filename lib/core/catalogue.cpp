// The catalogue's names, and the one refusal of a mode that the catalogue does not have (validate.hpp).
#include <string>

#include "core/validate.hpp"
#include "detred/catalogue.hpp"

namespace detred {

const char* to_string(operation op) {
  switch (op) {
    case operation::sum:
      return "sum";
    case operation::dot:
      return "dot";
    case operation::asum:
      return "asum";
    case operation::nrm2:
      return "nrm2";
    case operation::min:
      return "min";
    case operation::max:
      return "max";
    case operation::argmin:
      return "argmin";
    case operation::argmax:
      return "argmax";
    case operation::stats:
      return "stats";
  }
  return "unknown operation";
}

const char* to_string(element_type t) {
  switch (t) {
    case element_type::float64:
      return "float64";
    case element_type::float32:
      return "float32";
    case element_type::float16:
      return "float16";
    case element_type::bfloat16:
      return "bfloat16";
    case element_type::int32:
      return "int32";
    case element_type::int64:
      return "int64";
    case element_type::uint32:
      return "uint32";
    case element_type::uint64:
      return "uint64";
  }
  return "unknown element type";
}

const char* to_string(call_shape s) {
  switch (s) {
    case call_shape::array:
      return "array";
    case call_shape::segments:
      return "segments";
    case call_shape::axis:
      return "axis";
    case call_shape::by_key:
      return "by_key";
    case call_shape::partial_state:
      return "partial_state";
    case call_shape::pieces:
      return "pieces";
  }
  return "unknown call shape";
}

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

}  // namespace detred
