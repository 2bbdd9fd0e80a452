// SPDX-License-Identifier: BSD-3-Clause
// Arguments in host memory as NumPy arrays of a known element type.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <optional>
#include <string_view>

#include "dtypes.hpp"
#include "sources.hpp"

namespace detred::python {

struct host_array {
  pybind11::array array;        ///< bfloat16 elements as uint16 (NumPy has no bfloat16 of its own)
  std::optional<element> type;  ///< nothing for a dtype the library does not reduce
};

/// obj (of source `s`, not a GPU one) as a host array: a NumPy array as it is, a CPU DLPack tensor of an element
/// type the library reduces without a copy (PyTorch's bfloat16 among them), anything else through numpy.asarray.
/// TypeError naming `operation` for a non-native byte order, a numpy.ma masked array or a pandas object with missing
/// values (whose meaning numpy.asarray would drop).
host_array as_host_array(const pybind11::object& obj, source s, std::string_view operation);

}  // namespace detred::python
