// SPDX-License-Identifier: BSD-3-Clause
// Calling an operation (a struct of ops/) on one or two arrays of element type T, on the host or the GPU; and which
// element types it takes there, read off its C++ overloads.
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "detred/catalogue.hpp"
#include "detred/cuda.hpp"
#include "detred/options.hpp"
#include "dtypes.hpp"

namespace detred::python {

/// Op::host for the operands x (one array, or two for dot).
template <class Op, class T, std::size_t N>
auto call_host(const std::array<std::span<const T>, N>& x, const detred::options& opt) {
  if constexpr (N == 1) {
    return Op::host(x[0], opt);
  } else {
    return Op::host(x[0], x[1], opt);
  }
}

/// Op::device for the operands x in device memory; opt carries the mode, the stream and the workspace.
template <class Op, class T, std::size_t N>
auto call_device(const std::array<std::span<const T>, N>& x, const detred::options& opt) {
  if constexpr (N == 1) {
    return Op::device(x[0], opt);
  } else {
    return Op::device(x[0], x[1], opt);
  }
}

/// Whether Op takes elements of type T on the host. Each op declares host() and device() with the C++ call's return
/// type, so they drop out for a type the library has no overload for.
template <class Op, class T>
concept host_supports = (Op::arity == 1 &&
                         requires(std::span<const T> x, const detred::options& opt) { Op::host(x, opt); }) ||
                        (Op::arity == 2 &&
                         requires(std::span<const T> x, const detred::options& opt) { Op::host(x, x, opt); });

/// Whether Op takes elements of type T on the GPU.
template <class Op, class T>
concept device_supports = Op::on_gpu &&
    ((Op::arity == 1 && requires(std::span<const T> x, const detred::options& opt) { Op::device(x, opt); }) ||
     (Op::arity == 2 && requires(std::span<const T> x, const detred::options& opt) { Op::device(x, x, opt); }));

/// Whether the catalogue (detred/catalogue.hpp) has Op over T in one array on backend b; ops outside it (the
/// reference sum) answer from their overloads.
template <class Op, class T>
constexpr bool catalogue_has(detred::backend b, bool overload) {
  if constexpr (requires { Op::catalogued; }) {
    return detred::catalogue::has(Op::catalogued, detred::element_type_of<T>(), b, detred::call_shape::array);
  } else {
    return overload;
  }
}

template <class Op, class T, bool on_device>
constexpr bool supports() {
  // The public overloads and the catalogue say the same: checked here for every op and element type the module
  // compiles, so a catalogue that disagrees with the API does not build.
  static_assert(host_supports<Op, T> == catalogue_has<Op, T>(detred::backend::cpu, host_supports<Op, T>),
                "the catalogue and the host API disagree on an element type");
  static_assert(
      !Op::on_gpu || device_supports<Op, T> == catalogue_has<Op, T>(detred::backend::cuda, device_supports<Op, T>),
      "the catalogue and the CUDA API disagree on an element type");
  if constexpr (on_device) {
    return device_supports<Op, T>;
  } else {
    return host_supports<Op, T>;
  }
}

/// The dtypes Op takes (on the GPU, or the host), for messages: "float64, float32 and float16".
template <class Op, bool on_device>
std::string supported_dtypes() {
  std::vector<std::string> names;
  for (const element e : all_elements) {
    with_element(e, [&]<class T>() {
      if (supports<Op, T, on_device>()) names.emplace_back(name_of(e));
    });
  }
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i) {
    text += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  }
  return text;
}

}  // namespace detred::python
