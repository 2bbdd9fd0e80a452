// Reductions of GPU arrays on their own device, with a workspace per device kept by the module.
#pragma once

#include <pybind11/pybind11.h>

#include <span>

#include "detred/cuda.hpp"
#include "device_array.hpp"

namespace detred::python {

/// An operation's GPU entry point for one element type (detred::cuda::sum and the like).
template <class T>
using device_call = T (*)(std::span<const T> x, detred::cuda::workspace& ws, detred::mode m,
                          detred::cuda::stream_t stream);

struct device_calls {
  device_call<double> f64;
  device_call<float> f32;
};

/// Reduces the whole array on its device, with the GIL released, and returns a NumPy scalar of its dtype (the
/// value is copied to the host, as the bits equal the CPU's). RuntimeError when no GPU can be used.
pybind11::object reduce_device(const device_array& a, const device_calls& calls, detred::mode m);

}  // namespace detred::python
