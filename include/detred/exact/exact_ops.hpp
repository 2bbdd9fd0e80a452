// SPDX-License-Identifier: BSD-3-Clause
// Exact mode as operators: an exact operator says which terms it adds (the values, their magnitudes, the products of
// two arrays, the squares) and how the exact value becomes the result (rounded once, its square root rounded once,
// or its quotient by the count rounded once). Its state is the superaccumulator, whose value does not depend on the
// order of the additions, so exact operators are *order-free*: a backend may add the terms in any order and split them
// any way it likes (threads, blocks, lines, ranks), as it does for the integer sums. lib/core/operators.hpp turns
// (operation, mode::exact, element type) into one of these, and every backend implements them beside the operators of
// the canonical order.
#pragma once

#include <cstdint>
#include <type_traits>

#include "detred/catalogue.hpp"
#include "detred/config.hpp"
#include "detred/exact/quotient.hpp"
#include "detred/exact/square_root.hpp"
#include "detred/exact/superaccumulator.hpp"
#include "detred/number_types.hpp"
#include "detred/order/lane_values.hpp"
#include "detred/order/ops.hpp"

namespace detred::exact {
inline namespace DETRED_ORDER_ABI {

/// The terms an exact operator adds up, and how their exact sum becomes the result: the catalogue's (an operation's
/// form, detred::catalogue::form_of).
using catalogue::finish;
using catalogue::terms;

/// The exact value in `s` of the terms of n elements, finished by f and rounded once to T (double or float).
template <class T>
DETRED_HOST_DEVICE inline T finish_to(finish f, const superaccumulator& s, std::uint64_t n) {
  switch (f) {
    case finish::square_root:
      return square_root_to<T>(s);
    case finish::quotient:
      return quotient_to<T>(s, n);
    case finish::rounded:
      break;
  }
  return round_to<T>(s);
}

/// The exact operator over stored elements T (double, float, or a 16-bit float widened exactly to float). Its result
/// is order::float_value_t<T>: the element type, float for 16-bit floats.
template <class T, terms Terms, finish Finish = finish::rounded>
struct exact_op {
  using input = T;
  using value = order::float_value_t<T>;
  using result = value;
  using node = superaccumulator;
  static constexpr unsigned arity = Terms == terms::products ? 2 : 1;
  static constexpr terms adds = Terms;
  static constexpr finish finishes = Finish;

  /// The element as a double (16-bit floats widened exactly; every float and double is a double).
  DETRED_HOST_DEVICE static double widened(order::raw_t<T> stored) {
    return static_cast<double>(order::widen<value, T>(stored));
  }

  /// Adds the term of element(s) a (and b, for products) to the state.
  DETRED_HOST_DEVICE static void add_term(superaccumulator& s, double a, double b) {
    if constexpr (Terms == terms::values) {
      add(s, a);
    } else if constexpr (Terms == terms::magnitudes) {
      add(s, a < 0 ? -a : (a == 0 ? 0.0 : a));
    } else if constexpr (Terms == terms::products) {
      add_product(s, a, b);
    } else {
      add_product(s, a, a);
    }
  }

  /// The result of n elements whose terms' exact sum is s (n matters to the quotient only).
  DETRED_HOST_DEVICE static result finalize(const superaccumulator& s, std::uint64_t n) {
    return finish_to<result>(Finish, s, n);
  }
};

/// True for the exact operators. (Which operation has which is the catalogue's form: lib/core/operators.hpp's
/// exact_operator_t.)
template <class Op>
inline constexpr bool is_exact_op = false;
template <class T, terms Terms, finish Finish>
inline constexpr bool is_exact_op<exact_op<T, Terms, Finish>> = true;

}  // namespace DETRED_ORDER_ABI
}  // namespace detred::exact
