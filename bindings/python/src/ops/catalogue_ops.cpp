// SPDX-License-Identifier: BSD-3-Clause
// The reductions of the catalogue (detred/catalogue.hpp) that have no hand-written binding in ops/: each becomes
// detred.<name>(a[, b], mode="tree", axis=None, threads=0) over detred::reduce<operation> (detred/reduce.hpp) for host
// arrays and detred::cuda::reduce<operation> for GPU arrays, its element types and result type the catalogue's. An
// operation added to the catalogue is a function of the module with no change here.
#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <utility>

#include "define.hpp"
#include "detred/catalogue.hpp"
#include "detred/cuda.hpp"
#include "detred/reduce.hpp"
#include "docstrings.hpp"

namespace detred::python {

/// The operations with a binding of their own (ops/*.cpp): a catalogue operation outside this list is defined here.
constexpr bool bound_by_hand(detred::operation op) {
  using detred::operation;
  switch (op) {
    case operation::sum:
    case operation::dot:
    case operation::asum:
    case operation::nrm2:
    case operation::min:
    case operation::max:
    case operation::argmin:
    case operation::argmax:
    case operation::stats:
    case operation::cumsum:
    case operation::exclusive_cumsum:
      return true;
    default:
      return false;
  }
}

namespace {

constexpr const char parameters[] = R"(

The bits depend only on the number of elements and their values: never on ``threads`` or the machine. With axis,
each output element is that of the elements it reduces taken as one contiguous array in C order.

Parameters
----------
a (and b, for an operation of two arrays) : array_like
    host arrays of the element types the catalogue lists for it (docs/operations.md), or C-contiguous GPU arrays
    (CuPy, PyTorch CUDA tensors) of those it lists on CUDA, reduced whole on their device and stream.
mode : {"tree", "compensated", "exact"}
    As for ``detred.sum``; the modes the catalogue lists for it.
)" DETRED_DOC_AXIS_AND_THREADS R"(
Raises
------
TypeError
    for an element type it does not take.
ValueError
    for a mode it does not have, an unknown mode, a negative thread count, a bad axis.
)";

template <detred::operation O>
struct catalogue_op : op_traits {
  static constexpr detred::operation catalogued = O;
  static constexpr std::size_t arity = catalogue::arity(O);
  static constexpr const char* name = catalogue::operation_names[static_cast<std::size_t>(O)];
  static constexpr bool has_mode = !catalogue::needs_an_element(O);
  static inline const std::string text = std::string(name) + ": " +
                                         catalogue::operation_summaries[static_cast<std::size_t>(O)] +
                                         ", deterministic." + parameters;
  static inline const char* doc[] = {text.c_str()};

  template <class T>
  requires(catalogue::has(O, element_type_of<T>(), backend::cpu, call_shape::array) &&
           arity == 1) static auto host(std::span<const T> x, const detred::options& opt) {
    return detred::reduce<O>(x, opt);
  }
  template <class T>
  requires(catalogue::has(O, element_type_of<T>(), backend::cpu, call_shape::array) &&
           arity == 2) static auto host(std::span<const T> x, std::span<const T> y, const detred::options& opt) {
    return detred::reduce<O>(x, y, opt);
  }
  // GPU arrays through detred::cuda::reduce<O>, for the element types the catalogue has on CUDA.
  template <class T>
  requires(catalogue::has(O, element_type_of<T>(), backend::cuda, call_shape::array) &&
           arity == 1) static auto device(std::span<const T> x, const detred::options& opt) {
    return detred::cuda::reduce<O>(x, opt);
  }
  template <class T>
  requires(catalogue::has(O, element_type_of<T>(), backend::cuda, call_shape::array) &&
           arity == 2) static auto device(std::span<const T> x, std::span<const T> y, const detred::options& opt) {
    return detred::cuda::reduce<O>(x, y, opt);
  }
};

template <std::size_t... K>
void define_each(pybind11::module_& m, std::index_sequence<K...>) {
  (
      [&] {
        constexpr detred::operation O = catalogue::operations[K];
        if constexpr (!bound_by_hand(O)) def_reduction<catalogue_op<O>>(m);
      }(),
      ...);
}

}  // namespace

void define_catalogue_operations(pybind11::module_& m) {
  define_each(m, std::make_index_sequence<catalogue::operations.size()>());
  pybind11::list names;
  for (detred::operation op : catalogue::operations) names.append(to_string(op));
  m.attr("catalogue_operations") = names;
}

}  // namespace detred::python
