// The GPU path: the array's device made current, its workspace (created on first use, then reused), one call.
#include "device_reduce.hpp"

#include <map>
#include <memory>
#include <mutex>

#include "device_runtime.hpp"
#include "dtypes.hpp"

namespace py = pybind11;

namespace detred::python {
namespace {

struct device_workspace {
  std::mutex mutex;  // one call at a time per workspace (the GIL is released during the call)
  std::unique_ptr<detred::cuda::workspace> ws;
};

device_workspace& workspace_of(int device) {
  static std::mutex registry_mutex;
  // Never destroyed: freeing device memory from a static destructor can run after the CUDA runtime has shut down.
  static auto* const registry = new std::map<int, device_workspace>();
  const std::lock_guard<std::mutex> lock(registry_mutex);
  return (*registry)[device];
}

template <class T>
T reduce_on(const device_array& a, device_call<T> call, detred::mode m) {
  const py::gil_scoped_release no_gil;
  const int device = a.device >= 0 ? a.device : device_of(a.data);
  const current_device_scope on(device);
  device_workspace& shared = workspace_of(device);
  const std::lock_guard<std::mutex> lock(shared.mutex);
  if (!shared.ws) shared.ws = std::make_unique<detred::cuda::workspace>();
  return call(std::span<const T>(reinterpret_cast<const T*>(a.data), a.size), *shared.ws, m, a.stream);
}

}  // namespace

py::object reduce_device(const device_array& a, const device_calls& calls, detred::mode m) {
  if (a.type == element::f64) return numpy_scalar(reduce_on(a, calls.f64, m));
  return numpy_scalar(reduce_on(a, calls.f32, m));
}

}  // namespace detred::python
