// SPDX-License-Identifier: BSD-3-Clause
// Every reduction of the catalogue through one entry point: detred::reduce<operation::O>(x, options), its result
// type the catalogue's (catalogue::result_of). The named calls (detred::sum, dot, asum, nrm2, min, max, argmin,
// argmax, stats) are this call for their operation; an operation added to the catalogue is reachable here, and from
// the C API's detred_reduce and Python's detred.<name>, with no new declaration.
//
//   double s = detred::reduce<detred::operation::sum>(std::span<const double>(x), {.mode = detred::mode::exact});
//   float d = detred::reduce<detred::operation::dot>(std::span<const float16>(a), std::span<const float16>(b));
//
//   detred::reduce<detred::operation::sumsq>(std::span<const float>(x), detred::segments{offsets}, std::span(out));
//
// The templates below are thin: they check the types at compile time and call one exported, type-erased function.
#pragma once

#include <cstdint>
#include <span>
#include <type_traits>

#include "detred/batched.hpp"
#include "detred/catalogue.hpp"
#include "detred/number_types.hpp"
#include "detred/options.hpp"
#include "detred/statistics.hpp"

// Exported from a shared libdetred, whose other symbols are hidden (cmake/DetredShared.cmake).
#pragma GCC visibility push(default)

namespace detred {

/// The C++ type of a result of kind k over elements of T.
template <catalogue::result_kind K, class T>
struct result_type_of;
template <class T>
struct result_type_of<catalogue::result_kind::element, T> {
  using type = T;
};
template <class T>
struct result_type_of<catalogue::result_kind::float32, T> {
  using type = float;
};
template <class T>
struct result_type_of<catalogue::result_kind::wide, T> {
  using type = std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>;
};
template <class T>
struct result_type_of<catalogue::result_kind::index, T> {
  using type = std::uint64_t;
};
template <class T>
struct result_type_of<catalogue::result_kind::statistics, T> {
  using type = statistics<T>;
};

/// The result type of operation O over elements of T.
template <operation O, class T>
using result_t = typename result_type_of<catalogue::result_of(O, element_type_of<T>()), T>::type;

/// f.template operator()<R>() with R = result_t<op, T>, for an operation known at run time (a binding's dispatch).
/// Only the result types the catalogue can give T are instantiated (a 16-bit float gives float, never itself).
template <class T, class F>
decltype(auto) with_result_type(operation op, F&& f) {
  constexpr bool half = std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>;
  switch (catalogue::result_of(op, element_type_of<T>())) {
    case catalogue::result_kind::float32:
      return f.template operator()<float>();
    case catalogue::result_kind::wide:
      if constexpr (std::is_integral_v<T>) {
        return f.template operator()<std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>>();
      }
      break;
    case catalogue::result_kind::index:
      return f.template operator()<std::uint64_t>();
    case catalogue::result_kind::statistics:
      if constexpr (std::is_floating_point_v<T>) return f.template operator()<statistics<T>>();
      break;
    case catalogue::result_kind::element:
      break;
  }
  if constexpr (half) {
    return f.template operator()<float>();  // not reached: 16-bit floats' results are float32
  } else {
    return f.template operator()<T>();
  }
}

/// The type-erased core: operation `op` over the n elements of type t at x (and the ny at y, for an operation of two
/// arrays, which needs ny == n), writing one result_t<op, t> to `result`. Checks the combination against the
/// catalogue (mode, backend) and the empty-input rule (catalogue::needs_an_element), as every named call does, with
/// the same messages. Throws detred::error.
void reduce(operation op, element_type t, const void* x, std::uint64_t n, const void* y, std::uint64_t ny, void* result,
            const options& opt = {});

/// O over one array.
template <operation O, class T>
requires(catalogue::arity(O) == 1 && !catalogue::is_scan(O)) result_t<O, T> reduce(std::span<const T> x,
                                                                                   const options& opt = {}) {
  static_assert(catalogue::has(O, element_type_of<T>()), "the catalogue has no such operation for this type");
  result_t<O, T> r{};
  reduce(O, element_type_of<T>(), x.data(), x.size(), nullptr, 0, &r, opt);
  return r;
}

/// O over two arrays of one length (dot).
template <operation O, class T>
requires(catalogue::arity(O) == 2) result_t<O, T> reduce(std::span<const T> x, std::span<const T> y,
                                                         const options& opt = {}) {
  static_assert(catalogue::has(O, element_type_of<T>()), "the catalogue has no such operation for this type");
  result_t<O, T> r{};
  reduce(O, element_type_of<T>(), x.data(), x.size(), y.data(), y.size(), &r, opt);
  return r;
}

/// The type-erased cores of the batched shapes (detred/batched.hpp): O over each of the `count` segments of x (and
/// y), or over each line of the matrix along `axis`, writing count results of type result_t<op, t>. The checks and
/// messages of the named batched calls. Throws detred::error.
void reduce(operation op, element_type t, const void* x, std::uint64_t n, const void* y, std::uint64_t ny, segments s,
            void* results, std::uint64_t count, const options& opt = {});
void reduce(operation op, element_type t, const void* data, std::uint64_t rows, std::uint64_t cols,
            std::uint64_t leading_dimension, layout l, int axis, void* results, std::uint64_t count,
            const options& opt = {});

/// O over each segment of one array: results[k] = reduce<O>(segment k), as detred::sum(values, segments, ...).
template <operation O, class T>
requires(catalogue::arity(O) == 1 && !catalogue::is_scan(O)) void reduce(std::span<const T> x, segments s,
                                                                         std::span<result_t<O, T>> results,
                                                                         const options& opt = {}) {
  static_assert(catalogue::has(O, element_type_of<T>()), "the catalogue has no such operation for this type");
  reduce(O, element_type_of<T>(), x.data(), x.size(), nullptr, 0, s, results.data(), results.size(), opt);
}

/// O over each segment of two arrays of one length (dot).
template <operation O, class T>
requires(catalogue::arity(O) == 2) void reduce(std::span<const T> x, std::span<const T> y, segments s,
                                               std::span<result_t<O, T>> results, const options& opt = {}) {
  static_assert(catalogue::has(O, element_type_of<T>()), "the catalogue has no such operation for this type");
  reduce(O, element_type_of<T>(), x.data(), x.size(), y.data(), y.size(), s, results.data(), results.size(), opt);
}

/// O along an axis of a matrix (0: each column, 1: each row), as detred::sum(matrix, axis, ...).
template <operation O, class T>
requires(catalogue::arity(O) == 1 && !catalogue::is_scan(O)) void reduce(matrix_view<T> a, int axis,
                                                                         std::span<result_t<O, T>> results,
                                                                         const options& opt = {}) {
  static_assert(catalogue::has(O, element_type_of<T>()), "the catalogue has no such operation for this type");
  reduce(O, element_type_of<T>(), a.data, a.rows, a.cols, a.leading_dimension, a.layout, axis, results.data(),
         results.size(), opt);
}

}  // namespace detred

#pragma GCC visibility pop
