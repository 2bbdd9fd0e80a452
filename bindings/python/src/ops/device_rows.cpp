// SPDX-License-Identifier: BSD-3-Clause
// _cuda_row_sums: the detred sum of each row of a row-major matrix in device memory, given by its address, enqueued
// on the stream the caller names. It is the short path of detred.torch's sums over the last dim of CUDA tensors. The
// DLPack route (_segment_sum) spends tens of microseconds a call exchanging the tensors and ordering their streams,
// more than the kernel takes for a 4096 x 4096 float32 matrix; torch hands over its current stream and the data
// pointers for the price of a few attribute reads. The addresses are trusted: the caller takes them from contiguous
// tensors of the dtype and shape it passes. The bits are those of every other route: row k's result is
// detred::sum of row k alone (detred/batched.hpp).
#include <pybind11/pybind11.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "arguments.hpp"
#include "define.hpp"
#include "detred/batched.hpp"
#include "detred/cuda.hpp"
#include "device_runtime.hpp"

namespace py = pybind11;

namespace detred::python {
namespace {

void row_sums(std::uintptr_t matrix, std::uint64_t rows, std::uint64_t cols, std::string_view dtype, std::uintptr_t out,
              int device, std::uintptr_t stream, std::string_view mode) {
  // No device check of its own: the caller's tensors are on `device`, and a build without CUDA refuses in the call.
  const detred::mode m = parse_mode(mode);
  // The library keeps a workspace per (device, stream): calls on different streams never share scratch memory.
  const detred::options opt{.mode = m, .stream = reinterpret_cast<detred::cuda::stream_t>(stream)};
  // R: the result type, the input's for float and double, float for the 16-bit floats (summed in float).
  auto run = [&]<class T, class R>() {
    const detred::matrix_view<T> a{reinterpret_cast<const T*>(matrix), rows, cols, cols};
    const current_device_scope on(device);
    detred::cuda::sum_async(a, 1, std::span<R>{reinterpret_cast<R*>(out), rows}, opt);
  };
  if (dtype == "float64") {
    run.template operator()<double, double>();
  } else if (dtype == "float32") {
    run.template operator()<float, float>();
  } else if (dtype == "bfloat16") {
    run.template operator()<detred::bfloat16, float>();
  } else if (dtype == "float16") {
    run.template operator()<detred::float16, float>();
  } else {
    throw py::type_error("detred._cuda_row_sums: dtype must be float32, float64, bfloat16 or float16, not " +
                         std::string(dtype));
  }
}

}  // namespace

void define_device_rows(py::module_& m) {
  m.def("_cuda_row_sums", &row_sums, py::arg("matrix"), py::arg("rows"), py::arg("cols"), py::arg("dtype"),
        py::arg("out"), py::arg("device"), py::arg("stream"), py::arg("mode") = "tree",
        "out[k] = detred.sum of row k of the rows x cols row-major matrix at device address `matrix` (dtype\n"
        "float32, float64, bfloat16 or float16), written to the rows elements at device address `out` (the dtype's\n"
        "own for float32 and float64, float32 for the 16-bit floats); enqueued on\n"
        "`stream` (a cudaStream_t as an int, 0 the legacy default) of CUDA device `device`, returning at once.\n"
        "The addresses are not checked. Private: the short path of detred.torch's sums over the last dim.");
}

}  // namespace detred::python
