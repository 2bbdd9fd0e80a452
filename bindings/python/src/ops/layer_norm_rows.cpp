// SPDX-License-Identifier: BSD-3-Clause
// _layer_norm_rows: detred.torch's layer_norm forward on the host, one row at a time while the row is in cache.
// The operator's definition (docs/torch.md) is a sequence of whole-tensor passes: row sums, the centred rows, their
// dots, then three element-wise passes. On the CPU those passes each stream the 8192-float rows through memory again;
// here each row is summed, centred, dotted with itself and scaled before the next is touched, with every value
// rounded exactly as the passes round it:
//   m = fl(float64(sum) / float64(fl(n)))             the row's detred::sum (the batched guarantee: its bits)
//   y_i = x_i - m                                     in T
//   v = fl(float64(dot(y, y)) / float64(fl(n))) + fl(eps)     detred::dot of the row; the addition in T
//   r = fl(1 / sqrt(float64(v)))                       (docs/torch.md: divisions and 1/sqrt in float64, rounded once)
//   y_i = ((y_i * r) * w_i) + b_i                      in T, each operation rounded
// so its bits are the passes' (tests/python/test_torch.py compares them). T is float32 or float64.
#include <pybind11/numpy.h>

#include <cmath>
#include <cstdint>
#include <span>
#include <string>

#include "define.hpp"
#include "detred/dot.hpp"
#include "detred/sum.hpp"

namespace py = pybind11;

namespace detred::python {
namespace {

/// fl(a / fl(n)) of the passes' divide(): the quotient in float64, rounded once to T.
template <class T>
T divided_by_count(T a, std::uint64_t n) {
  return static_cast<T>(static_cast<double>(a) / static_cast<double>(static_cast<T>(n)));
}

template <class T>
void normalize_rows(const T* x, std::uint64_t rows, std::uint64_t cols, const T* w, const T* b, double eps, T* y,
                    T* means, T* rstds) {
  const detred::options one_thread{.threads = 1};
  const T eps_t = static_cast<T>(eps);
  for (std::uint64_t r = 0; r < rows; ++r) {
    const std::span<const T> row{x + r * cols, cols};
    T* out = y + r * cols;
    const T m = divided_by_count(detred::sum(row, one_thread), cols);
    for (std::uint64_t i = 0; i < cols; ++i) out[i] = row[i] - m;
    const std::span<const T> centred{out, cols};
    const T v = static_cast<T>(divided_by_count(detred::dot(centred, centred, one_thread), cols) + eps_t);
    const T rstd = static_cast<T>(1.0 / std::sqrt(static_cast<double>(v)));
    // One loop for the three element-wise steps (each operation still rounded on its own: no contraction).
    if (w != nullptr && b != nullptr) {
      for (std::uint64_t i = 0; i < cols; ++i) out[i] = out[i] * rstd * w[i] + b[i];
    } else if (w != nullptr) {
      for (std::uint64_t i = 0; i < cols; ++i) out[i] = out[i] * rstd * w[i];
    } else if (b != nullptr) {
      for (std::uint64_t i = 0; i < cols; ++i) out[i] = out[i] * rstd + b[i];
    } else {
      for (std::uint64_t i = 0; i < cols; ++i) out[i] = out[i] * rstd;
    }
    means[r] = m;
    rstds[r] = rstd;
  }
}

template <class T>
using c_array = py::array_t<T, py::array::c_style>;

template <class T>
void layer_norm_rows(const c_array<T>& x, const py::object& weight, const py::object& bias, double eps, c_array<T>& y,
                     c_array<T>& means, c_array<T>& rstds) {
  if (x.ndim() != 2 || y.ndim() != 2 || y.shape(0) != x.shape(0) || y.shape(1) != x.shape(1) ||
      means.size() != x.shape(0) || rstds.size() != x.shape(0)) {
    throw py::value_error("detred._layer_norm_rows: x and y must be (rows, cols), means and rstds one per row");
  }
  const auto rows = static_cast<std::uint64_t>(x.shape(0));
  const auto cols = static_cast<std::uint64_t>(x.shape(1));
  // weight and bias as arrays of T held here, so that their data outlive the computation (a conversion would
  // make a temporary).
  c_array<T> held[2];
  const T* vectors[2] = {nullptr, nullptr};
  const py::object* given[2] = {&weight, &bias};
  for (int k = 0; k < 2; ++k) {
    if (given[k]->is_none()) continue;
    held[k] = given[k]->cast<c_array<T>>();
    if (held[k].ndim() != 1 || static_cast<std::uint64_t>(held[k].size()) != cols) {
      throw py::value_error(std::string("detred._layer_norm_rows: ") + (k == 0 ? "weight" : "bias") +
                            " must hold one value per column");
    }
    vectors[k] = held[k].data();
  }
  T* out = y.mutable_data();
  T* m = means.mutable_data();
  T* r = rstds.mutable_data();
  const py::gil_scoped_release no_gil;
  normalize_rows(x.data(), rows, cols, vectors[0], vectors[1], eps, out, m, r);
}

}  // namespace

void define_layer_norm_rows(py::module_& m) {
  constexpr const char* doc =
      "y = layer_norm of each row of x (rows, cols) with weight and bias (None, or one value a column), eps; means\n"
      "and rstds get each row's mean and 1 / sqrt(var + eps). float32 or float64 C-contiguous NumPy arrays of one\n"
      "dtype, one thread. Private: detred.torch's layer_norm forward on the CPU, with the bits of its tensor passes.";
  m.def("_layer_norm_rows", &layer_norm_rows<double>, py::arg("x").noconvert(), py::arg("weight"), py::arg("bias"),
        py::arg("eps"), py::arg("y").noconvert(), py::arg("means").noconvert(), py::arg("rstds").noconvert(), doc);
  m.def("_layer_norm_rows", &layer_norm_rows<float>, py::arg("x").noconvert(), py::arg("weight"), py::arg("bias"),
        py::arg("eps"), py::arg("y").noconvert(), py::arg("means").noconvert(), py::arg("rstds").noconvert(), doc);
}

}  // namespace detred::python
