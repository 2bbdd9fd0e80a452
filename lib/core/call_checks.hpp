// SPDX-License-Identifier: BSD-3-Clause
// The checks every single-array call makes before it runs, whatever the backend: the host front door
// (lib/api/front_door.hpp) and the CUDA one (lib/cuda/api.cpp) both call them, so a rule and its message live here.
#pragma once

#include <cstdint>
#include <string>

#include "core/validate.hpp"
#include "detred/catalogue.hpp"
#include "detred/order.hpp"

namespace detred {

/// For O over n elements of T (and ny of a second array) on backend b: the mode to run, after the catalogue's check
/// of m (which throws, saying where the mode is available, when the catalogue lacks the combination); lengths that
/// differ; the empty-input rule (catalogue::needs_an_element). `what` names the call in the messages.
template <operation O, class T>
mode checked_call(mode m, backend b, std::uint64_t n, std::uint64_t ny, const char* what) {
  constexpr element_type t = element_type_of<T>();
  // One lookup when the catalogue has the call; checked_mode says what is wrong when it has not (and throws).
  if (!catalogue::supports(O, t, m, b, call_shape::array)) m = checked_mode(m, O, t, b, call_shape::array, what);
  if constexpr (catalogue::arity(O) == 2) {
    if (n != ny) validate_lengths(n, ny, what);
  }
  if constexpr (catalogue::needs_an_element(O)) {
    if (n == 0) {
      throw error(std::string(to_string(O)) + ": an empty array has no " + to_string(O) +
                  " (it needs at least 1 element)");
    }
  }
  return m;
}

/// The operands of Op: x, and y for an operator of two arrays.
template <class Op>
order::operands<Op> operands_of(const typename Op::input* x, const typename Op::input* y) {
  order::operands<Op> operands{};
  operands.data[0] = x;
  if constexpr (Op::arity == 2) operands.data[1] = y;
  return operands;
}

}  // namespace detred
