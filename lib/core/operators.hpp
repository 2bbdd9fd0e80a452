// SPDX-License-Identifier: BSD-3-Clause
// Every operator the library runs, and the one place where an operation, a mode and an element type become an
// operator. The backends compile a kernel for each operator in all_operators; the front door picks one with the
// helpers below.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "detred/catalogue.hpp"
#include "detred/number_types.hpp"
#include "detred/options.hpp"
#include "detred/order.hpp"

namespace detred {

template <class... Ops>
struct op_list {};

template <class... Lists>
struct concat;
template <class... A>
struct concat<op_list<A...>> {
  using type = op_list<A...>;
};
template <class... A, class... B, class... Rest>
struct concat<op_list<A...>, op_list<B...>, Rest...> {
  using type = typename concat<op_list<A..., B...>, Rest...>::type;
};

namespace operators {

template <class T>
using sum_ops = op_list<order::sum_op<T, order::plain_sums>, order::sum_op<T, order::compensated_sums>>;
template <class T>
using dot_ops = op_list<order::dot_op<T, order::plain_sums>, order::dot_op<T, order::compensated_sums>>;
template <class T>
using norm_ops = op_list<order::asum_op<T, order::plain_sums>, order::asum_op<T, order::compensated_sums>,
                         order::nrm2_op<T, order::plain_sums>, order::nrm2_op<T, order::compensated_sums>>;
template <class T>
using selection_ops = op_list<order::min_op<T>, order::max_op<T>, order::argmin_op<T>, order::argmax_op<T>>;

/// Floating-point inputs: every operation.
template <class T>
using float_ops =
    typename concat<sum_ops<T>, dot_ops<T>, norm_ops<T>, selection_ops<T>, op_list<order::moments_op<T>>>::type;
/// 16-bit floats: sum and dot, in float.
template <class H>
using half_ops = typename concat<sum_ops<H>, dot_ops<H>>::type;
/// Integers: the exact sum and the selections.
template <class I>
using integer_ops = typename concat<op_list<order::integer_sum_op<I>>, selection_ops<I>>::type;

}  // namespace operators

using all_operators =
    typename concat<operators::float_ops<double>, operators::float_ops<float>, operators::half_ops<float16>,
                    operators::half_ops<bfloat16>, operators::integer_ops<std::int32_t>,
                    operators::integer_ops<std::int64_t>, operators::integer_ops<std::uint32_t>,
                    operators::integer_ops<std::uint64_t>>::type;

/// The operators of the batched entry points (detred/batched.hpp): every operation on float and double.
using batch_operators = typename concat<operators::float_ops<double>, operators::float_ops<float>>::type;

/// True if Op is in the op_list List.
template <class Op, class List>
inline constexpr bool listed = false;
template <class Op, class... Ops>
inline constexpr bool listed<Op, op_list<Ops...>> = (std::is_same_v<Op, Ops> || ...);

/// The accumulation policy of a mode (a valid one other than exact, which has no policy of the canonical order:
/// the entry points check the mode against the catalogue with checked_mode and route exact mode to lib/exact first).
template <class F>
decltype(auto) with_policy(mode m, F&& f) {
  if (m == mode::exact) throw error("mode exact is not available for this operation");
  if (m == mode::compensated) return std::forward<F>(f).template operator()<order::compensated_sums>();
  return std::forward<F>(f).template operator()<order::plain_sums>();
}

/// Calls f.template operator()<Op>() with the sum operator of mode m (a valid mode) for element type T.
template <class T, class F>
decltype(auto) with_sum_operator(mode m, F&& f) {
  return with_policy(
      m, [&]<class P>() -> decltype(auto) { return std::forward<F>(f).template operator()<order::sum_op<T, P>>(); });
}

/// Calls f.template operator()<Op>() with the operator of the canonical order for `op` over elements of T in mode
/// m (tree or compensated; ignored by the operations exact in any mode). The caller has checked op, T and m
/// against the catalogue (checked_mode); a combination without an operator throws detred::error.
template <class T, class F>
decltype(auto) with_operator(operation op, mode m, F&& f) {
  constexpr element_type t = element_type_of<T>();
  const auto policy_op = [&]<template <class, class> class Op>() -> decltype(auto) {
    return with_policy(m, [&]<class P>() -> decltype(auto) { return f.template operator()<Op<T, P>>(); });
  };
  if constexpr (catalogue::in(catalogue::floats | catalogue::integers, t)) {
    if (op == operation::min) return f.template operator()<order::min_op<T>>();
    if (op == operation::max) return f.template operator()<order::max_op<T>>();
    if (op == operation::argmin) return f.template operator()<order::argmin_op<T>>();
    if (op == operation::argmax) return f.template operator()<order::argmax_op<T>>();
  }
  if constexpr (catalogue::in(catalogue::integers, t)) {
    if (op == operation::sum) return f.template operator()<order::integer_sum_op<T>>();
  } else {
    if (op == operation::sum) return policy_op.template operator()<order::sum_op>();
    if (op == operation::dot) return policy_op.template operator()<order::dot_op>();
  }
  if constexpr (catalogue::in(catalogue::floats, t)) {
    if (op == operation::asum) return policy_op.template operator()<order::asum_op>();
    if (op == operation::nrm2) return policy_op.template operator()<order::nrm2_op>();
    if (op == operation::stats) return f.template operator()<order::moments_op<T>>();
  }
  throw error(std::string(to_string(t)) + " elements have no " + to_string(op));
}

}  // namespace detred
