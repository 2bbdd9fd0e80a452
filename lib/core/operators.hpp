// SPDX-License-Identifier: BSD-3-Clause
// Every operator the library runs, and the one place where an operation, a mode and an element type become an
// operator. The backends compile a kernel for each operator in all_operators; the front door picks one with the
// helpers below.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "detred/catalogue.hpp"
#include "detred/exact/exact_ops.hpp"
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
using sumsq_ops = op_list<order::sumsq_op<T, order::plain_sums>, order::sumsq_op<T, order::compensated_sums>>;
template <class T>
using mean_ops = op_list<order::mean_op<T, order::plain_sums>, order::mean_op<T, order::compensated_sums>>;
template <class T>
using selection_ops = op_list<order::min_op<T>, order::max_op<T>, order::argmin_op<T>, order::argmax_op<T>>;

/// Floating-point inputs: every operation.
template <class T>
using float_ops = typename concat<sum_ops<T>, dot_ops<T>, norm_ops<T>, selection_ops<T>, op_list<order::moments_op<T>>,
                                  sumsq_ops<T>, mean_ops<T>>::type;
/// 16-bit floats: sum, dot, the sum of squares and the mean, in float.
template <class H>
using half_ops = typename concat<sum_ops<H>, dot_ops<H>, sumsq_ops<H>, mean_ops<H>>::type;
/// Integers: the exact sum and the selections.
template <class I>
using integer_ops = typename concat<op_list<order::integer_sum_op<I>>, selection_ops<I>>::type;

}  // namespace operators

using all_operators =
    typename concat<operators::float_ops<double>, operators::float_ops<float>, operators::half_ops<float16>,
                    operators::half_ops<bfloat16>, operators::integer_ops<std::int32_t>,
                    operators::integer_ops<std::int64_t>, operators::integer_ops<std::uint32_t>,
                    operators::integer_ops<std::uint64_t>>::type;

/// The operators of the batched entry points (detred/batched.hpp): every operation on float and double, and every
/// operation on 16-bit floats (sum, dot, sumsq, mean: widened to float lane by lane, as in their single-array
/// kernels). Each costs build time: a kernel per instruction set and the GPU's.
using batch_operators = typename concat<operators::float_ops<double>, operators::float_ops<float>,
                                        operators::half_ops<float16>, operators::half_ops<bfloat16>>::type;

/// Exact mode's operator of O over T: the order-free operator of O's terms and finish (its form in the catalogue).
template <operation O, class T>
using exact_operator_t = exact::exact_op<T, catalogue::form_of(O).adds, catalogue::form_of(O).finishes>;

namespace detail {

/// True if the catalogue offers exact mode for O over T in one of the call shapes `shapes`, where the mode chooses
/// the arithmetic (not the selections and integer sums, which are exact in every mode).
template <operation O, class T>
constexpr bool exact_listed(catalogue::set shapes) {
  constexpr element_type t = element_type_of<T>();
  if (!catalogue::has_form(O) || catalogue::mode_rule_of(O, t) != catalogue::mode_rule::chosen) return false;
  for (const catalogue::entry& e : catalogue::entries) {
    if (e.op == O && catalogue::in(e.types, t) && catalogue::in(e.modes, mode::exact) && (e.shapes & shapes) != 0) {
      return true;
    }
  }
  return false;
}

template <class T, catalogue::set Shapes, std::size_t... K>
auto exact_list(std::index_sequence<K...>) ->
    typename concat<op_list<>,
                    std::conditional_t<exact_listed<catalogue::operations[K], T>(Shapes),
                                       op_list<exact_operator_t<catalogue::operations[K], T>>, op_list<>>...>::type;

/// The exact operators over T of the operations the catalogue offers in exact mode in one of `Shapes`.
template <class T, catalogue::set Shapes>
using exact_ops_of = decltype(exact_list<T, Shapes>(std::make_index_sequence<catalogue::operations.size()>()));

inline constexpr catalogue::set every_shape =
    catalogue::of(call_shape::array, call_shape::segments, call_shape::axis, call_shape::by_key,
                  call_shape::partial_state, call_shape::pieces);

}  // namespace detail

/// Every exact operator the catalogue offers, and those of the batched entry points: derived from its rows, so an
/// operation with a form gets its exact operator where its rows list exact mode.
using exact_operators =
    typename concat<detail::exact_ops_of<double, detail::every_shape>, detail::exact_ops_of<float, detail::every_shape>,
                    detail::exact_ops_of<float16, detail::every_shape>,
                    detail::exact_ops_of<bfloat16, detail::every_shape>>::type;
using exact_batch_operators = typename concat<detail::exact_ops_of<double, catalogue::host_batches>,
                                              detail::exact_ops_of<float, catalogue::host_batches>,
                                              detail::exact_ops_of<float16, catalogue::host_batches>,
                                              detail::exact_ops_of<bfloat16, catalogue::host_batches>>::type;

/// What a backend implements: the operators of the canonical order (all_operators, which the CPU compiles once per
/// instruction set) and the exact ones; batch_entries, those of the batched entry points.
using backend_operators = typename concat<all_operators, exact_operators>::type;
using batch_entries = typename concat<batch_operators, exact_batch_operators>::type;

/// True if Op is in the op_list List.
template <class Op, class List>
inline constexpr bool listed = false;
template <class Op, class... Ops>
inline constexpr bool listed<Op, op_list<Ops...>> = (std::is_same_v<Op, Ops> || ...);

/// The accumulation policy of a rounding mode of the canonical order (tree or compensated; exact mode is no policy of
/// the order but an operator of its own, see with_operator).
[[noreturn]] void refuse_policy(mode m);  // the error of with_policy, out of line (catalogue.cpp)

template <class F>
decltype(auto) with_policy(mode m, F&& f) {
  if (m == mode::compensated) return std::forward<F>(f).template operator()<order::compensated_sums>();
  if (m != mode::tree) refuse_policy(m);
  return std::forward<F>(f).template operator()<order::plain_sums>();
}

/// The canonical order's operator of each operation that has modes (its form: catalogue::form_of), by accumulation
/// policy. Exact mode's operator follows from the form alone (exact_operator_t below).
template <operation O>
struct family;
template <>
struct family<operation::sum> {
  template <class T, class P>
  using of_order = order::sum_op<T, P>;
};
template <>
struct family<operation::dot> {
  template <class T, class P>
  using of_order = order::dot_op<T, P>;
};
template <>
struct family<operation::asum> {
  template <class T, class P>
  using of_order = order::asum_op<T, P>;
};
template <>
struct family<operation::nrm2> {
  template <class T, class P>
  using of_order = order::nrm2_op<T, P>;
};
template <>
struct family<operation::sumsq> {
  template <class T, class P>
  using of_order = order::sumsq_op<T, P>;
};
template <>
struct family<operation::mean> {
  template <class T, class P>
  using of_order = order::mean_op<T, P>;
};

/// Calls f.template operator()<Op>() with the operator of the operation O over elements of T in mode m: the
/// selections' and the integer sums' one operator (exact in any mode), stats' operator, or, for the operations with
/// modes, the canonical order's operator of the mode's policy or, in exact mode, the order-free exact operator
/// (detred/exact/exact_ops.hpp). The caller has checked O, T and m against the catalogue (checked_mode).
template <class T, operation O, class F>
decltype(auto) with_operator(mode m, F&& f) {
  constexpr element_type t = element_type_of<T>();
  if constexpr (O == operation::min) {
    return f.template operator()<order::min_op<T>>();
  } else if constexpr (O == operation::max) {
    return f.template operator()<order::max_op<T>>();
  } else if constexpr (O == operation::argmin) {
    return f.template operator()<order::argmin_op<T>>();
  } else if constexpr (O == operation::argmax) {
    return f.template operator()<order::argmax_op<T>>();
  } else if constexpr (O == operation::stats) {
    return f.template operator()<order::moments_op<T>>();
  } else if constexpr (O == operation::sum && catalogue::in(catalogue::integers, t)) {
    return f.template operator()<order::integer_sum_op<T>>();
  } else {
    static_assert(catalogue::has_form(O), "an operation with modes has a form in the catalogue");
    // The one place where exact mode is told apart from the modes of the canonical order.
    if (m == mode::exact) return f.template operator()<exact_operator_t<O, T>>();
    return with_policy(m, [&]<class P>() -> decltype(auto) {
      return f.template operator()<typename family<O>::template of_order<T, P>>();
    });
  }
}

/// True if the library has an operator of O for elements of T: the catalogue has O for T (the scans have kernels
/// of their own, lib/scan).
template <operation O, class T>
inline constexpr bool has_operator = catalogue::has(O, element_type_of<T>()) && !catalogue::is_scan(O);

namespace detail {

/// with_operator<T, O> for the operation op of the catalogue from its K-th on; R is what f returns.
template <class T, class R, std::size_t K, class F>
R with_operator_from(operation op, mode m, F& f) {
  if constexpr (K == catalogue::operations.size()) {
    throw error(std::string(to_string(element_type_of<T>())) + " elements have no " + to_string(op));
  } else {
    constexpr operation O = catalogue::operations[K];
    if constexpr (has_operator<O, T>) {
      if (op == O) return with_operator<T, O>(m, f);
    }
    return with_operator_from<T, R, K + 1>(op, m, f);
  }
}

}  // namespace detail

/// with_operator<T, O> for an operation known at run time, over every operation of the catalogue (f must return one
/// type for every operator it is given: the type it returns for the sum). A combination without an operator throws
/// detred::error.
template <class T, class F>
decltype(auto) with_operator(operation op, mode m, F&& f) {
  using R = decltype(with_operator<T, operation::sum>(m, f));
  return detail::with_operator_from<T, R, 0>(op, m, f);
}

/// Calls f.template operator()<Op>() with the canonical order's sum operator of mode m (tree or compensated) for the
/// floating-point element type T: for the callers that run the order itself (the GPU's pieces, tests, tools).
template <class T, class F>
decltype(auto) with_sum_operator(mode m, F&& f) {
  return with_policy(
      m, [&]<class P>() -> decltype(auto) { return std::forward<F>(f).template operator()<order::sum_op<T, P>>(); });
}

}  // namespace detred
