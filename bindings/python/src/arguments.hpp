// SPDX-License-Identifier: BSD-3-Clause
// The Python arguments common to every reduction, checked and converted with NumPy's kind of messages.
#pragma once

#include <pybind11/pybind11.h>

#include <optional>
#include <string_view>
#include <vector>

#include "detred/options.hpp"

namespace detred::python {

/// The mode named `name`; ValueError listing the names otherwise.
detred::mode parse_mode(std::string_view name);

/// threads as given; ValueError if negative.
int checked_threads(int threads);

/// The axes to reduce of an array with `ndim` dimensions, increasing and without repeats: every axis for None,
/// else an int or a tuple of ints, each in [-ndim, ndim) (negative counts from the end). TypeError for anything
/// else, ValueError (NumPy's AxisError, a ValueError, where NumPy has it) for an axis out of range or repeated.
std::vector<int> reduced_axes(const pybind11::object& axis, int ndim);

/// For operations that reduce one axis or all (argmin, argmax, as NumPy's): TypeError naming `operation` unless
/// axis is None or an int.
void require_single_axis(const pybind11::object& axis, std::string_view operation);

}  // namespace detred::python
