// SPDX-License-Identifier: BSD-3-Clause
// The batched entry points (detred/batched.hpp): check the segments, the matrix or the keys, pick the operator,
// route to the backend (exact mode's operators as every other: lib/core/operators.hpp picks them).
// Grouping by key is a stable counting sort (group_by_key.hpp: each group keeps its values in index order), then a
// segmented reduction over the groups.
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "batch_route.hpp"
#include "core/batch_checks.hpp"
#include "core/operators.hpp"
#include "core/validate.hpp"
#include "detred/batched.hpp"
#include "group_by_key.hpp"

namespace detred {
namespace {

template <class Op>
void segmented(std::span<const typename Op::input> x, const segments& s, std::span<typename Op::result> results,
               const options& opt, const char* what) {
  validate(opt);
  validate_segments(s, x.size(), results.size(), what);
  if constexpr (order::locates_element<Op> || std::is_same_v<Op, order::min_op<typename Op::value>> ||
                std::is_same_v<Op, order::max_op<typename Op::value>>) {
    refuse_empty_segments(s, what);
  }
  run_lines<Op>(order::operands<Op>{{x.data()}, 0}, x.size(), {.offsets = s.offsets.data()}, results.size(),
                results.data(), opt);
}

template <class Op>
void along_axis(const matrix_view<typename Op::input>& a, int axis, std::span<typename Op::result> results,
                const options& opt, const char* what) {
  validate(opt);
  const axis_lines l = lines_of(a, axis, results.size(), what);
  if constexpr (std::is_same_v<Op, order::min_op<typename Op::value>> ||
                std::is_same_v<Op, order::max_op<typename Op::value>>) {
    if (l.length == 0 && l.count != 0) {
      throw error(std::string("detred::") + what + ": the lines along axis " + std::to_string(axis) +
                  " are empty, and an empty array has no " + what);
    }
  }
  const order::operands<Op> x{{a.data}, 0};
  if (l.contiguous) {
    run_lines<Op>(x, extent_of(a), {.stride = l.stride, .length = l.length}, l.count, results.data(), opt);
  } else {
    run_strided_lines<Op>(x, extent_of(a), l.length, l.stride, l.count, results.data(), opt);
  }
}

template <class Op, class K>
void by_key(std::span<const typename Op::input> values, std::span<const K> keys, std::span<typename Op::result> results,
            const options& opt, const char* what) {
  validate(opt);
  const grouped_values<typename Op::input> g = group_by_key(values, keys, results.size(), opt.threads, what);
  run_lines<Op>(order::operands<Op>{{g.values.data()}, 0}, g.values.size(), {.offsets = g.offsets.data()},
                results.size(), results.data(), opt);
}

/// The mode of a batched call, checked against the catalogue (the batched calls' call shapes).
template <class T>
mode checked(const options& o, operation op, call_shape s, const char* what) {
  return checked_mode<T>(o.mode, op, backend_of(o), s, what);
}

}  // namespace

#define DETRED_BATCHED(T)                                                                                     \
  void sum(std::span<const T> v, segments s, std::span<T> r, const options& o) {                              \
    with_operator<T, operation::sum>(checked<T>(o, operation::sum, call_shape::segments, "detred::sum"),      \
                                     [&]<class Op>() { segmented<Op>(v, s, r, o, "sum"); });                  \
  }                                                                                                           \
  void asum(std::span<const T> v, segments s, std::span<T> r, const options& o) {                             \
    with_operator<T, operation::asum>(checked<T>(o, operation::asum, call_shape::segments, "detred::asum"),   \
                                      [&]<class Op>() { segmented<Op>(v, s, r, o, "asum"); });                \
  }                                                                                                           \
  void nrm2(std::span<const T> v, segments s, std::span<T> r, const options& o) {                             \
    with_operator<T, operation::nrm2>(checked<T>(o, operation::nrm2, call_shape::segments, "detred::nrm2"),   \
                                      [&]<class Op>() { segmented<Op>(v, s, r, o, "nrm2"); });                \
  }                                                                                                           \
  void dot(std::span<const T> x, std::span<const T> y, segments s, std::span<T> r, const options& o) {        \
    validate_lengths(x.size(), y.size(), "detred::dot");                                                      \
    with_operator<T, operation::dot>(checked<T>(o, operation::dot, call_shape::segments, "detred::dot"),      \
                                     [&]<class Op>() {                                                        \
                                       validate(o);                                                           \
                                       validate_segments(s, x.size(), r.size(), "dot");                       \
                                       run_lines<Op>(order::operands<Op>{{x.data(), y.data()}, 0}, x.size(),  \
                                                     {.offsets = s.offsets.data()}, r.size(), r.data(), o);   \
                                     });                                                                      \
  }                                                                                                           \
  void min(std::span<const T> v, segments s, std::span<T> r, const options& o) {                              \
    segmented<order::min_op<T>>(v, s, r, o, "min");                                                           \
  }                                                                                                           \
  void max(std::span<const T> v, segments s, std::span<T> r, const options& o) {                              \
    segmented<order::max_op<T>>(v, s, r, o, "max");                                                           \
  }                                                                                                           \
  void argmin(std::span<const T> v, segments s, std::span<std::uint64_t> r, const options& o) {               \
    segmented<order::argmin_op<T>>(v, s, r, o, "argmin");                                                     \
  }                                                                                                           \
  void argmax(std::span<const T> v, segments s, std::span<std::uint64_t> r, const options& o) {               \
    segmented<order::argmax_op<T>>(v, s, r, o, "argmax");                                                     \
  }                                                                                                           \
  void stats(std::span<const T> v, segments s, std::span<statistics<T>> r, const options& o) {                \
    checked<T>(o, operation::stats, call_shape::segments, "detred::stats");                                   \
    segmented<order::moments_op<T>>(v, s, r, o, "stats");                                                     \
  }                                                                                                           \
  void sum(matrix_view<T> a, int axis, std::span<T> r, const options& o) {                                    \
    with_operator<T, operation::sum>(checked<T>(o, operation::sum, call_shape::axis, "detred::sum"),          \
                                     [&]<class Op>() { along_axis<Op>(a, axis, r, o, "sum"); });              \
  }                                                                                                           \
  void asum(matrix_view<T> a, int axis, std::span<T> r, const options& o) {                                   \
    with_operator<T, operation::asum>(checked<T>(o, operation::asum, call_shape::axis, "detred::asum"),       \
                                      [&]<class Op>() { along_axis<Op>(a, axis, r, o, "asum"); });            \
  }                                                                                                           \
  void nrm2(matrix_view<T> a, int axis, std::span<T> r, const options& o) {                                   \
    with_operator<T, operation::nrm2>(checked<T>(o, operation::nrm2, call_shape::axis, "detred::nrm2"),       \
                                      [&]<class Op>() { along_axis<Op>(a, axis, r, o, "nrm2"); });            \
  }                                                                                                           \
  void min(matrix_view<T> a, int axis, std::span<T> r, const options& o) {                                    \
    along_axis<order::min_op<T>>(a, axis, r, o, "min");                                                       \
  }                                                                                                           \
  void max(matrix_view<T> a, int axis, std::span<T> r, const options& o) {                                    \
    along_axis<order::max_op<T>>(a, axis, r, o, "max");                                                       \
  }                                                                                                           \
  void stats(matrix_view<T> a, int axis, std::span<statistics<T>> r, const options& o) {                      \
    checked<T>(o, operation::stats, call_shape::axis, "detred::stats");                                       \
    along_axis<order::moments_op<T>>(a, axis, r, o, "stats");                                                 \
  }                                                                                                           \
  void sum_by_key(std::span<const T> v, std::span<const std::uint32_t> k, std::span<T> r, const options& o) { \
    with_operator<T, operation::sum>(checked<T>(o, operation::sum, call_shape::by_key, "detred::sum_by_key"), \
                                     [&]<class Op>() { by_key<Op>(v, k, r, o, "sum_by_key"); });              \
  }                                                                                                           \
  void sum_by_key(std::span<const T> v, std::span<const std::int64_t> k, std::span<T> r, const options& o) {  \
    with_operator<T, operation::sum>(checked<T>(o, operation::sum, call_shape::by_key, "detred::sum_by_key"), \
                                     [&]<class Op>() { by_key<Op>(v, k, r, o, "sum_by_key"); });              \
  }                                                                                                           \
  void stats_by_key(std::span<const T> v, std::span<const std::uint32_t> k, std::span<statistics<T>> r,       \
                    const options& o) {                                                                       \
    checked<T>(o, operation::stats, call_shape::by_key, "detred::stats_by_key");                              \
    by_key<order::moments_op<T>>(v, k, r, o, "stats_by_key");                                                 \
  }

DETRED_BATCHED(double)
DETRED_BATCHED(float)
#undef DETRED_BATCHED

}  // namespace detred
