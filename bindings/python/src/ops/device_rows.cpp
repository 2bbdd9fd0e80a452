// SPDX-License-Identifier: BSD-3-Clause
// _cuda_row_sums: the detred sum of each row of a row-major matrix in device memory, given by its address, in the
// matrix's dtype (detred::cuda::sum_rows), enqueued on the stream the caller names. It is the short path of
// detred.torch's sums over the last dim of CUDA tensors; _cuda_column_sums the same for the columns
// (detred::cuda::sum_columns: detred.torch.distributed's R x shard blocks); _cuda_rms_norm_rows is its rms_norm forward
// (detred/cuda_norm_rows.hpp) by the same short path. The DLPack route (_segment_sum) spends tens of microseconds a
// call exchanging the tensors and ordering their streams, more than the kernel takes for a 4096 x 4096 float32 matrix;
// torch hands over its current stream and the data pointers for the price of a few attribute reads. The addresses are
// trusted: the caller takes them from contiguous tensors of the dtype and shape it passes. The bits are those of every
// other route: row k's result is detred::sum of row k alone (detred/batched.hpp).
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

/// f.template operator()<T, R>() for the dtype's element type T and R: the type of its sums and statistics (the
/// dtype's own for float32 and float64, float for the 16-bit floats).
template <class F>
void with_row_types(std::string_view dtype, const char* what, F&& f) {
  if (dtype == "float64") {
    f.template operator()<double, double>();
  } else if (dtype == "float32") {
    f.template operator()<float, float>();
  } else if (dtype == "bfloat16") {
    f.template operator()<detred::bfloat16, float>();
  } else if (dtype == "float16") {
    f.template operator()<detred::float16, float>();
  } else {
    throw py::type_error(std::string("detred.") + what + ": dtype must be float32, float64, bfloat16 or float16, not " +
                         std::string(dtype));
  }
}

/// Row sums (axis 1: detred::cuda::sum_rows) or column sums (axis 0: sum_columns) of the row-major matrix.
void line_sums(int axis, std::uintptr_t matrix, std::uint64_t rows, std::uint64_t cols, std::string_view dtype,
               std::uintptr_t out, int device, std::uintptr_t stream, std::string_view mode) {
  // No device check of its own: the caller's tensors are on `device`, and a build without CUDA refuses in the call.
  const detred::mode m = parse_mode(mode);
  // The library keeps a workspace per (device, stream): calls on different streams never share scratch memory.
  const detred::options opt{.mode = m, .stream = reinterpret_cast<detred::cuda::stream_t>(stream)};
  // Every dtype's sums come out in the dtype: detred::cuda::sum_rows, which rounds a 16-bit float's float sum in the
  // kernel that computes it (a launch of its own, .to() from Python, costs about 13 us of host time).
  auto run = [&]<class T, class>() {
    const detred::matrix_view<T> a{reinterpret_cast<const T*>(matrix), rows, cols, cols};
    const current_device_scope on(device);
    if (axis == 1) {
      detred::cuda::sum_rows_async(a, std::span<T>{reinterpret_cast<T*>(out), rows}, opt);
    } else {
      detred::cuda::sum_columns_async(a, std::span<T>{reinterpret_cast<T*>(out), cols}, opt);
    }
  };
  with_row_types(dtype, axis == 1 ? "_cuda_row_sums" : "_cuda_column_sums", run);
}

void row_sums(std::uintptr_t matrix, std::uint64_t rows, std::uint64_t cols, std::string_view dtype, std::uintptr_t out,
              int device, std::uintptr_t stream, std::string_view mode) {
  line_sums(1, matrix, rows, cols, dtype, out, device, stream, mode);
}

void column_sums(std::uintptr_t matrix, std::uint64_t rows, std::uint64_t cols, std::string_view dtype,
                 std::uintptr_t out, int device, std::uintptr_t stream, std::string_view mode) {
  line_sums(0, matrix, rows, cols, dtype, out, device, stream, mode);
}

void rms_norm_rows(std::uintptr_t matrix, std::uint64_t rows, std::uint64_t cols, std::string_view dtype,
                   std::uintptr_t weight, double eps, std::uintptr_t out, std::uintptr_t rstd, int device,
                   std::uintptr_t stream) {
  const detred::options opt{.stream = reinterpret_cast<detred::cuda::stream_t>(stream)};
  // A: the accumulation type of rstd, double for double, float for the others.
  auto run = [&]<class T, class A>() {
    const detred::matrix_view<T> x{reinterpret_cast<const T*>(matrix), rows, cols, cols};
    const std::span<const T> w{reinterpret_cast<const T*>(weight), weight != 0 ? cols : 0};
    const current_device_scope on(device);
    detred::cuda::rms_norm_rows_async(x, w, eps, std::span<T>{reinterpret_cast<T*>(out), rows * cols},
                                      std::span<A>{reinterpret_cast<A*>(rstd), rows}, opt);
  };
  with_row_types(dtype, "_cuda_rms_norm_rows", run);
}

}  // namespace

void define_device_rows(py::module_& m) {
  m.def("_cuda_row_sums", &row_sums, py::arg("matrix"), py::arg("rows"), py::arg("cols"), py::arg("dtype"),
        py::arg("out"), py::arg("device"), py::arg("stream"), py::arg("mode") = "tree",
        "out[k] = detred.sum of row k of the rows x cols row-major matrix at device address `matrix` (dtype\n"
        "float32, float64, bfloat16 or float16), written to the rows elements of the dtype at device address `out`\n"
        "(detred::cuda::sum_rows_async: a 16-bit float's sum is computed in float32 and rounded once); enqueued on\n"
        "`stream` (a cudaStream_t as an int, 0 the legacy default) of CUDA device `device`, returning at once.\n"
        "The addresses are not checked. Private: the short path of detred.torch's sums over the last dim.");
  m.def("_cuda_column_sums", &column_sums, py::arg("matrix"), py::arg("rows"), py::arg("cols"), py::arg("dtype"),
        py::arg("out"), py::arg("device"), py::arg("stream"), py::arg("mode") = "tree",
        "out[j] = detred.sum of column j of the rows x cols row-major matrix at device address `matrix`, written to\n"
        "the cols elements of the dtype at `out` (detred::cuda::sum_columns_async; 16-bit floats: the float32 sum\n"
        "rounded once); otherwise as _cuda_row_sums. Private: detred.torch.distributed's sums over the ranks.");
  m.def("_cuda_rms_norm_rows", &rms_norm_rows, py::arg("matrix"), py::arg("rows"), py::arg("cols"), py::arg("dtype"),
        py::arg("weight"), py::arg("eps"), py::arg("out"), py::arg("rstd"), py::arg("device"), py::arg("stream"),
        "detred::cuda::rms_norm_rows_async (detred/cuda_norm_rows.hpp) of the rows x cols row-major matrix at device\n"
        "address `matrix` (dtype float32, float64, bfloat16 or float16), its weight at `weight` (cols elements of the\n"
        "dtype; 0 for none): the normalized rows to `out` (the dtype), each row's rstd to `rstd` (float64 for\n"
        "float64, float32 otherwise); enqueued on `stream` of CUDA device `device`. The addresses are not checked.\n"
        "Private: detred.torch's rms_norm forward of CUDA tensors.");
}

}  // namespace detred::python
