// The extension module detred._detred: the operations of ops.hpp, versions, GPU availability, and the mapping of
// the library's exceptions to Python's.
#include <pybind11/pybind11.h>

#include <string_view>

#include "arguments.hpp"
#include "detred/cuda.hpp"
#include "detred/options.hpp"
#include "detred/order/shape.hpp"
#include "detred/version.hpp"
#include "device_runtime.hpp"
#include "ops.hpp"
#include "reduce.hpp"

namespace py = pybind11;

namespace detred::python {
namespace {

/// Registers Op as name(a, mode="tree", axis=None, threads=0), on the host and the GPU, and as
/// reference_name(a, mode="tree", axis=None), the scalar reference on the host.
template <class Op>
void def_reduction(py::module_& m) {
  static constexpr host_calls host{&Op::template host<double>, &Op::template host<float>};
  static constexpr device_calls device{&Op::template device<double>, &Op::template device<float>};
  static constexpr host_calls reference{&Op::template reference<double>, &Op::template reference<float>};
  m.def(
      Op::name,
      [](const py::object& a, std::string_view mode, const py::object& axis, int threads) {
        return reduce(Op::name, a, parse_mode(mode), axis, checked_threads(threads), host, &device);
      },
      py::arg("a"), py::arg("mode") = "tree", py::arg("axis") = py::none(), py::arg("threads") = 0, Op::doc);
  m.def(
      Op::reference_name,
      [](const py::object& a, std::string_view mode, const py::object& axis) {
        return reduce(Op::reference_name, a, parse_mode(mode), axis, 0, reference, nullptr);
      },
      py::arg("a"), py::arg("mode") = "tree", py::arg("axis") = py::none(),
      "The scalar reference implementation of the same reduction: the canonical order written as plainly as\n"
      "possible, slow by design; every fast path returns its bits. Host arrays only; arguments as for the fast\n"
      "function, without threads.");
}

}  // namespace
}  // namespace detred::python

PYBIND11_MODULE(_detred, m) {
  using namespace detred::python;
  m.doc() = "detred: deterministic reductions whose result bits depend only on the values (docs/bindings.md).";

  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const detred::device_error& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    } catch (const detred::error& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });

  // One line per operation (ops.hpp).
  def_reduction<sum_op>(m);

  m.attr("__version__") = detred::library_version;
  m.attr("order_version") = detred::order_version;
  m.attr("cuda_built") = cuda_built();
  m.def("cuda_available", &detred::cuda::available,
        "True if detred has its CUDA backend and a usable CUDA device: GPU arrays can be reduced.");
}
