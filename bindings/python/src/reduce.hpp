// One reduction call from Python: arguments checked, then the host or the GPU path by what the array is.
#pragma once

#include <pybind11/pybind11.h>

#include <string_view>

#include "detred/options.hpp"
#include "device_reduce.hpp"
#include "host_reduce.hpp"

namespace detred::python {

/// a: a NumPy array, a GPU array, or anything numpy.asarray accepts. device: the GPU calls, or null for an
/// operation that runs on the host only (TypeError for a GPU array then).
pybind11::object reduce(std::string_view operation, const pybind11::object& a, detred::mode m,
                        const pybind11::object& axis, int threads, const host_calls& host, const device_calls* device);

}  // namespace detred::python
