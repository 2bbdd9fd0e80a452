// SPDX-License-Identifier: BSD-3-Clause
// How the elements of host arrays split into the lanes of a reduction over some axes: the kept axes index the
// output, the reduced axes one output element's inputs (its lane), for each operand's strides.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <span>
#include <vector>

namespace detred::python {

using extents = std::vector<pybind11::ssize_t>;

struct operand_layout {
  const char* base = nullptr;
  extents kept_strides, reduced_strides;  // bytes
  bool aligned = false;
};

struct lane_layout {
  extents kept_shape;                 // the output's axes
  extents reduced_shape;              // the axes of one lane
  pybind11::ssize_t lanes = 1;        // output elements
  pybind11::ssize_t lane_length = 1;  // inputs of each
  std::vector<operand_layout> operands;
};

/// The lanes of `arrays` (of one shape) reduced over `axes` (increasing).
lane_layout split(std::span<const pybind11::array> arrays, const std::vector<int>& axes);

/// Arrays of at least this many elements in all are reduced with the GIL released (for fewer, releasing and taking
/// it back would cost more than the reduction; NumPy also keeps it for small arrays).
inline constexpr pybind11::ssize_t gil_release_threshold = 4096;

}  // namespace detred::python
