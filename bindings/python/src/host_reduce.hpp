// SPDX-License-Identifier: BSD-3-Clause
// Reductions of host arrays: the whole array or some of its axes, each output element computed by one call of the
// library on the elements it reduces, in C order.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <array>
#include <optional>
#include <span>
#include <vector>

#include "calls.hpp"
#include "detred/options.hpp"
#include "host_layout.hpp"
#include "results.hpp"
#include "strided.hpp"

namespace detred::python {

/// Op over `arrays` (N of one shape, elements of type T, bfloat16 as uint16) reduced over `axes` (increasing, from
/// arguments.hpp). Every output element is Op of the elements it reduces taken as one contiguous array in C order: in
/// place when they already lie so in memory (and are aligned), else gathered into a scratch buffer of one output
/// element's size first. All axes reduced: a scalar (results.hpp); else an array with the other axes.
template <class Op, class T, std::size_t N>
pybind11::object reduce_host(const std::array<pybind11::array, N>& arrays, const std::vector<int>& axes,
                             const detred::options& opt) {
  const lane_layout s = split(arrays, axes);
  using R = decltype(call_host<Op, T, N>(std::array<std::span<const T>, N>{}, opt));
  output<R> out(s.kept_shape);
  R* values = out.data();
  {
    std::optional<pybind11::gil_scoped_release> no_gil;
    if (s.lanes * s.lane_length * static_cast<pybind11::ssize_t>(N) >= gil_release_threshold) no_gil.emplace();
    std::array<bool, N> in_place{};
    std::array<std::vector<T>, N> scratch;
    std::vector<c_order_offsets> lane_starts;
    for (std::size_t k = 0; k < N; ++k) {
      const operand_layout& o = s.operands[k];
      in_place[k] = o.aligned && c_contiguous(s.reduced_shape, o.reduced_strides, sizeof(T));
      if (!in_place[k]) scratch[k].resize(static_cast<std::size_t>(s.lane_length));
      lane_starts.emplace_back(s.kept_shape, o.kept_strides);
    }
    for (pybind11::ssize_t i = 0; i < s.lanes; ++i) {
      std::array<std::span<const T>, N> x;
      for (std::size_t k = 0; k < N; ++k) {
        const char* lane = s.operands[k].base + lane_starts[k].offset();
        if (in_place[k]) {
          x[k] = {reinterpret_cast<const T*>(lane), static_cast<std::size_t>(s.lane_length)};
        } else {
          gather(lane, s.reduced_shape, s.operands[k].reduced_strides, sizeof(T), scratch[k].data());
          x[k] = scratch[k];
        }
        lane_starts[k].next();
      }
      values[i] = call_host<Op, T, N>(x, opt);
    }
  }
  return out.finish();
}

}  // namespace detred::python
