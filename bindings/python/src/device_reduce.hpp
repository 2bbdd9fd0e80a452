// SPDX-License-Identifier: BSD-3-Clause
// Reductions of GPU arrays on their own device, with a workspace per device kept by the module.
#pragma once

#include <pybind11/pybind11.h>

#include <array>
#include <mutex>
#include <span>

#include "calls.hpp"
#include "detred/cuda.hpp"
#include "device_array.hpp"
#include "device_runtime.hpp"
#include "results.hpp"

namespace detred::python {

/// What a GPU call runs inside: the GIL released, the array's device current, and that device's workspace
/// (created on first use, then kept) locked for this call.
class device_session {
 public:
  explicit device_session(const device_array& a);
  detred::cuda::workspace& workspace() { return *workspace_; }

 private:
  pybind11::gil_scoped_release no_gil_;
  current_device_scope on_;
  std::unique_lock<std::mutex> lock_;
  detred::cuda::workspace* workspace_ = nullptr;
};

/// Op over the whole of `arrays` (N C-contiguous GPU arrays of T of one size, on one device), on the stream of the
/// first (after the work on the second's stream, when that differs). The value comes back to the host as a scalar
/// (results.hpp): its bits equal the CPU's.
template <class Op, class T, std::size_t N>
pybind11::object reduce_device(const std::array<device_array, N>& arrays, detred::mode m) {
  std::array<std::span<const T>, N> x;
  for (std::size_t k = 0; k < N; ++k) x[k] = {reinterpret_cast<const T*>(arrays[k].data), arrays[k].size};
  decltype(call_device<Op, T, N>(x, detred::options{})) value{};
  {
    device_session session(arrays[0]);
    for (std::size_t k = 1; k < N; ++k) {
      if (arrays[k].stream != arrays[0].stream) synchronize(arrays[k].stream);
    }
    value = call_device<Op, T, N>(x, {.mode = m, .stream = arrays[0].stream, .workspace = &session.workspace()});
  }
  return to_python(value);
}

}  // namespace detred::python
