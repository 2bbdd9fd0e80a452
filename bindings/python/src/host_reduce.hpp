// SPDX-License-Identifier: BSD-3-Clause
// Reductions of host arrays: the whole array or some of its axes, each output element computed by one call of the
// library on the elements it reduces, in C order.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "calls.hpp"
#include "detred/batched.hpp"
#include "detred/options.hpp"
#include "host_layout.hpp"
#include "results.hpp"
#include "strided.hpp"

namespace detred::python {

/// Whether Op has a batched form along a matrix axis for elements T and results R (detred/batched.hpp).
template <class Op, class T, class R>
concept has_axis_form = requires(detred::matrix_view<T> a, std::span<R> r, const detred::options& opt) {
  Op::along_axis(a, 0, r, opt);
};

/// The 2-D array `a` as a matrix_view, when one of its axes has unit stride and the other a whole, non-negative
/// number of elements at least the first axis's extent (C or Fortran order, or a slice of either), it holds
/// elements and is aligned; nothing otherwise (the general path then reduces it).
template <class T>
std::optional<detred::matrix_view<T>> as_matrix(const pybind11::array& a) {
  if (a.ndim() != 2 || a.shape(0) < 2 || a.shape(1) < 2) return std::nullopt;
  if (reinterpret_cast<std::uintptr_t>(a.data()) % alignof(T) != 0) return std::nullopt;
  const auto item = static_cast<pybind11::ssize_t>(sizeof(T));
  const pybind11::ssize_t s0 = a.strides(0);
  const pybind11::ssize_t s1 = a.strides(1);
  const auto rows = static_cast<std::uint64_t>(a.shape(0));
  const auto cols = static_cast<std::uint64_t>(a.shape(1));
  const T* data = static_cast<const T*>(a.data());
  if (s1 == item && s0 > 0 && s0 % item == 0 && static_cast<std::uint64_t>(s0 / item) >= cols) {
    return detred::matrix_view<T>{data, rows, cols, static_cast<std::uint64_t>(s0 / item), detred::layout::row_major};
  }
  if (s0 == item && s1 > 0 && s1 % item == 0 && static_cast<std::uint64_t>(s1 / item) >= rows) {
    return detred::matrix_view<T>{data, rows, cols, static_cast<std::uint64_t>(s1 / item),
                                  detred::layout::column_major};
  }
  return std::nullopt;
}

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
  // One axis of a matrix: the library's batched call, which reads the lines where they lie (a column of a C-order
  // matrix is read row by row, not gathered) and gives each line the bits of the single-array call on it.
  if constexpr (N == 1 && has_axis_form<Op, T, R>) {
    if (axes.size() == 1) {
      if (const std::optional<detred::matrix_view<T>> m = as_matrix<T>(arrays[0])) {
        {
          std::optional<pybind11::gil_scoped_release> no_gil;
          if (s.lanes * s.lane_length >= gil_release_threshold) no_gil.emplace();
          Op::along_axis(*m, axes[0], std::span<R>(values, static_cast<std::size_t>(s.lanes)), opt);
        }
        return out.finish();  // with the GIL: it makes Python objects
      }
    }
  }
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
