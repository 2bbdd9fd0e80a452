// SPDX-License-Identifier: BSD-3-Clause
// Registering an operation of ops/ as a Python function: its signature follows from the op's traits.
#pragma once

#include <pybind11/pybind11.h>

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "arguments.hpp"
#include "reduce.hpp"

namespace detred::python {

/// The traits of an operation, with the common values; each op struct derives from it and changes what differs.
/// An op also has `name`, `doc` (its docstring in parts: ops of a family share some), and host() (and device() when
/// on_gpu) for each element type it takes:
///   static auto host(std::span<const T> x[, std::span<const T> y], const detred::options& opt) -> R;
///   static auto device(std::span<const T> x[, std::span<const T> y], const detred::options& opt) -> R;
/// declared with the C++ call's type as the return type, so that calls.hpp can tell which element types it takes.
/// device() gets the mode, the array's stream and the module's workspace for its device in opt.
struct op_traits {
  static constexpr std::size_t arity = 1;  ///< arrays it reduces together (2 for dot)
  static constexpr bool has_mode = true;   ///< takes mode= (not the selections: they round nothing)
  static constexpr bool has_threads = true;
  static constexpr bool single_axis = false;  ///< axis is None or one int (argmin, argmax)
  static constexpr bool on_gpu = true;        ///< reduces GPU arrays too
};

/// An op's calls forwarded to the library's function `fn` (detred::fn, detred::cuda::fn): host() and device() of one
/// array, and along_axis() (the batched call along a matrix axis, detred/batched.hpp), each declared with the call's
/// type so that it exists only for the element types the library takes.
#define DETRED_PYTHON_FORWARD_UNARY(fn)                                                                      \
  template <class T, class R>                                                                                \
  static auto along_axis(detred::matrix_view<T> a, int axis, std::span<R> r, const detred::options& opt)     \
      ->decltype(detred::fn(a, axis, r, opt)) {                                                              \
    detred::fn(a, axis, r, opt);                                                                             \
  }                                                                                                          \
  template <class T>                                                                                         \
  static auto host(std::span<const T> x, const detred::options& opt)->decltype(detred::fn(x, opt)) {         \
    return detred::fn(x, opt);                                                                               \
  }                                                                                                          \
  template <class T>                                                                                         \
  static auto device(std::span<const T> x, const detred::options& opt)->decltype(detred::cuda::fn(x, opt)) { \
    return detred::cuda::fn(x, opt);                                                                         \
  }

/// The same for the index selections (argmin, argmax): host() and device() only, the index as a Python int's type.
#define DETRED_PYTHON_FORWARD_INDEX(fn)                                 \
  template <class T>                                                    \
  static auto host(std::span<const T> x, const detred::options& opt)    \
      ->decltype(static_cast<std::int64_t>(detred::fn(x, opt))) {       \
    return static_cast<std::int64_t>(detred::fn(x, opt));               \
  }                                                                     \
  template <class T>                                                    \
  static auto device(std::span<const T> x, const detred::options& opt)  \
      ->decltype(static_cast<std::int64_t>(detred::cuda::fn(x, opt))) { \
    return static_cast<std::int64_t>(detred::cuda::fn(x, opt));         \
  }

/// Op's docstring: its parts joined (kept for the life of the module).
template <class Op>
const char* docstring() {
  static const std::string text = [] {
    std::string t;
    for (const char* part : Op::doc) t += part;
    return t;
  }();
  return text.c_str();
}

/// Registers Op as Op::name(a[, b][, mode="tree"], axis=None[, threads=0]).
template <class Op>
void def_reduction(pybind11::module_& m) {
  namespace py = pybind11;
  using objects = std::array<py::object, Op::arity>;
  if constexpr (Op::arity == 2) {
    static_assert(Op::has_mode && Op::has_threads);
    m.def(
        Op::name,
        [](const py::object& a, const py::object& b, std::string_view mode, const py::object& axis, int threads) {
          return reduce<Op>(objects{a, b}, parse_mode(mode), axis, checked_threads(threads));
        },
        py::arg("a"), py::arg("b"), py::arg("mode") = "tree", py::arg("axis") = py::none(), py::arg("threads") = 0,
        docstring<Op>());
  } else if constexpr (Op::has_mode && Op::has_threads) {
    m.def(
        Op::name,
        [](const py::object& a, std::string_view mode, const py::object& axis, int threads) {
          return reduce<Op>(objects{a}, parse_mode(mode), axis, checked_threads(threads));
        },
        py::arg("a"), py::arg("mode") = "tree", py::arg("axis") = py::none(), py::arg("threads") = 0, docstring<Op>());
  } else if constexpr (Op::has_mode) {
    m.def(
        Op::name,
        [](const py::object& a, std::string_view mode, const py::object& axis) {
          return reduce<Op>(objects{a}, parse_mode(mode), axis, 0);
        },
        py::arg("a"), py::arg("mode") = "tree", py::arg("axis") = py::none(), docstring<Op>());
  } else {
    static_assert(Op::has_threads);
    m.def(
        Op::name,
        [](const py::object& a, const py::object& axis, int threads) {
          return reduce<Op>(objects{a}, detred::mode::tree, axis, checked_threads(threads));
        },
        py::arg("a"), py::arg("axis") = py::none(), py::arg("threads") = 0, docstring<Op>());
  }
}

/// One function per family of operations (ops/*.cpp), each registering its operations.
void define_sums(pybind11::module_& m);
void define_dot(pybind11::module_& m);
void define_norms(pybind11::module_& m);
void define_selections(pybind11::module_& m);
void define_stats(pybind11::module_& m);
void define_scans(pybind11::module_& m);            ///< cumsum, exclusive_cumsum: arrays out, not reductions
void define_batched(pybind11::module_& m);          // private building blocks of detred.torch
void define_device_rows(pybind11::module_& m);      // private: detred.torch's short path for CUDA row sums
void define_layer_norm_rows(pybind11::module_& m);  // private: detred.torch's layer_norm forward on the host
/// Every other reduction of the catalogue (ops/catalogue_ops.cpp), and the list of the catalogue's operations.
void define_catalogue_operations(pybind11::module_& m);

}  // namespace detred::python
