// SPDX-License-Identifier: BSD-3-Clause
// One call of an operation from Python: its arguments checked, then the host or the GPU path by where the arrays
// are, and the element type by their dtype.
#pragma once

#include <pybind11/pybind11.h>

#include <array>
#include <string>
#include <vector>

#include "arguments.hpp"
#include "calls.hpp"
#include "detred/options.hpp"
#include "device_array.hpp"
#include "device_reduce.hpp"
#include "dtypes.hpp"
#include "host_array.hpp"
#include "host_reduce.hpp"
#include "sources.hpp"

namespace detred::python {

/// The checks that do not depend on the operation (reduce.cpp). Each raises the Python exception with a sentence
/// naming `operation`.
[[noreturn]] void raise(PyObject* type, const std::string& message);
/// For GPU arrays: every operand on a GPU (TypeError otherwise), a usable GPU (RuntimeError), axis None
/// (NotImplementedError); the same type (TypeError), size and device (ValueError) for two operands.
void check_gpu_call(std::string_view operation, std::span<const source> sources, bool takes_gpu_arrays,
                    const pybind11::object& axis);
void check_same_gpu_arrays(std::string_view operation, std::span<const device_array> arrays);
/// For host arrays: the same dtype (TypeError) and shape (ValueError) for two operands.
void check_same_host_arrays(std::string_view operation, std::span<const host_array> arrays);
/// TypeError: `operation` does not take this dtype (or DLPack type) there; `supported` lists what it takes.
[[noreturn]] void unsupported_dtype(std::string_view operation, const std::string& got, const std::string& supported,
                                    const std::string& hint, bool on_gpu);

template <class Op, std::size_t N>
pybind11::object reduce_on_gpu(const std::array<pybind11::object, N>& objects, const std::array<source, N>& sources,
                               detred::mode m) {
  std::array<device_array, N> arrays;
  for (std::size_t k = 0; k < N; ++k) {
    arrays[k] = as_device_array(objects[k], sources[k], Op::name);
    // Two arrays must be on one device; __cuda_array_interface__ does not say which, the pointer does.
    if (N > 1 && arrays[k].device < 0) arrays[k].device = device_of(arrays[k].data);
  }
  check_same_gpu_arrays(Op::name, arrays);
  if (!arrays[0].type) unsupported_dtype(Op::name, arrays[0].type_name, supported_dtypes<Op, true>(), "", true);
  return with_element(*arrays[0].type, [&]<class T>() -> pybind11::object {
    if constexpr (device_supports<Op, T>) {
      return reduce_device<Op, T, N>(arrays, m);
    } else {
      unsupported_dtype(Op::name, arrays[0].type_name, supported_dtypes<Op, true>(), "", true);
    }
  });
}

template <class Op, std::size_t N>
pybind11::object reduce_on_host(const std::array<pybind11::object, N>& objects, const std::array<source, N>& sources,
                                detred::mode m, const pybind11::object& axis, int threads) {
  std::array<host_array, N> arrays;
  for (std::size_t k = 0; k < N; ++k) arrays[k] = as_host_array(objects[k], sources[k], Op::name);
  check_same_host_arrays(Op::name, arrays);
  const host_array& a = arrays[0];
  const auto unsupported = [&]() {
    unsupported_dtype(Op::name, pybind11::str(a.array.dtype()).template cast<std::string>(),
                      supported_dtypes<Op, false>(), conversion_hint(a.array.dtype(), host_supports<Op, std::int64_t>),
                      false);
  };
  if (!a.type) unsupported();
  const std::vector<int> axes = reduced_axes(axis, static_cast<int>(a.array.ndim()));
  std::array<pybind11::array, N> plain;
  for (std::size_t k = 0; k < N; ++k) plain[k] = arrays[k].array;
  return with_element(*a.type, [&]<class T>() -> pybind11::object {
    if constexpr (host_supports<Op, T>) {
      return reduce_host<Op, T, N>(plain, axes, {.mode = m, .threads = threads});
    } else {
      unsupported();
      return pybind11::none();
    }
  });
}

/// Op over `objects` (Op::arity of them): NumPy arrays, GPU arrays, DLPack tensors or anything numpy.asarray takes.
template <class Op>
pybind11::object reduce(const std::array<pybind11::object, Op::arity>& objects, detred::mode m,
                        const pybind11::object& axis, int threads) {
  if constexpr (Op::single_axis) require_single_axis(axis, Op::name);
  std::array<source, Op::arity> sources;
  bool any_gpu = false;
  for (std::size_t k = 0; k < Op::arity; ++k) {
    sources[k] = source_of(objects[k]);
    any_gpu = any_gpu || on_gpu(sources[k]);
  }
  if (any_gpu) {
    check_gpu_call(Op::name, sources, Op::on_gpu, axis);
    if constexpr (Op::on_gpu) return reduce_on_gpu<Op>(objects, sources, m);
  }
  return reduce_on_host<Op>(objects, sources, m, axis, threads);
}

}  // namespace detred::python
