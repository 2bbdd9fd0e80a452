// SPDX-License-Identifier: BSD-3-Clause
// The extension module detred._detred: the operations of ops/ (one define_ call per family), versions, GPU
// availability, and the mapping of the library's exceptions to Python's.
#include <pybind11/pybind11.h>

#include <string>

#include "define.hpp"
#include "detred/cuda.hpp"
#include "detred/options.hpp"
#include "detred/order/shape.hpp"
#include "detred/version.hpp"
#include "device_runtime.hpp"

namespace py = pybind11;

PYBIND11_MODULE(_detred, m) {
  using namespace detred::python;
  m.doc() = "detred: deterministic reductions whose result bits depend only on the values (docs/bindings.md).";

#if PYBIND11_VERSION_MAJOR == 2 && PYBIND11_VERSION_MINOR < 12
  // pybind11 before 2.12 reads NumPy 1's array descriptor; NumPy 2 moved its fields, so the arrays such an extension
  // makes get wrong strides (a scan's outputs all read as its first, seen with Debian 12's pybind11 2.10 beside
  // NumPy 2.5). Refuse to load rather than compute with them.
  {
    const std::string version = py::module_::import("numpy").attr("__version__").cast<std::string>();
    if (!version.empty() && version[0] >= '0' && version[0] <= '9' && std::stoi(version) >= 2) {
      throw py::import_error("detred: this build used pybind11 " + std::to_string(PYBIND11_VERSION_MAJOR) + "." +
                             std::to_string(PYBIND11_VERSION_MINOR) + ", which cannot handle NumPy " + version +
                             " (NumPy 2 needs pybind11 2.12 or later): build against a newer pybind11, or use NumPy 1");
    }
  }
#endif

  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const detred::device_error& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    } catch (const detred::overflow_error& e) {
      PyErr_SetString(PyExc_OverflowError, e.what());
    } catch (const detred::error& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });

  // One line per family of operations (ops/).
  define_sums(m);
  define_dot(m);
  define_norms(m);
  define_selections(m);
  define_stats(m);
  define_scans(m);
  define_batched(m);
  define_device_rows(m);
  define_layer_norm_rows(m);
  define_catalogue_operations(m);

  m.attr("__version__") = detred::library_version;
  m.attr("order_version") = detred::order_version;
  m.attr("state_format_version") = detred::state_format_version;
  m.attr("cuda_built") = cuda_built();
  m.def("cuda_available", &detred::cuda::available,
        "True if detred has its CUDA backend and a usable CUDA device: GPU arrays can be reduced.");
}
