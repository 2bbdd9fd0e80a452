// SPDX-License-Identifier: BSD-3-Clause
// Gathering a strided block into a contiguous buffer.
#include <cstring>

#include "strided.hpp"

namespace py = pybind11;

namespace detred::python {
namespace {

// The gather for items of `Size` bytes: a memcpy of a constant size is one load and one store.
template <std::size_t Size>
void gather_items(const char* base, const std::vector<py::ssize_t>& shape, const std::vector<py::ssize_t>& strides,
                  char* out) {
  if (shape.empty()) {
    std::memcpy(out, base, Size);
    return;
  }
  py::ssize_t rows = 1;
  for (std::size_t k = 0; k + 1 < shape.size(); ++k) rows *= shape[k];
  const py::ssize_t row_length = shape.back();
  const py::ssize_t step = strides.back();
  if (rows == 0 || row_length == 0) return;
  // The last axis is the inner loop; the others are walked in C order.
  c_order_offsets row_starts({shape.begin(), shape.end() - 1}, {strides.begin(), strides.end() - 1});
  for (py::ssize_t r = 0; r < rows; ++r, row_starts.next()) {
    const char* p = base + row_starts.offset();
    for (py::ssize_t j = 0; j < row_length; ++j, p += step, out += Size) std::memcpy(out, p, Size);
  }
}

}  // namespace

void gather(const char* base, const std::vector<py::ssize_t>& shape, const std::vector<py::ssize_t>& strides,
            std::size_t itemsize, void* out) {
  char* bytes = static_cast<char*>(out);
  if (itemsize == 8) return gather_items<8>(base, shape, strides, bytes);
  if (itemsize == 4) return gather_items<4>(base, shape, strides, bytes);
  gather_items<2>(base, shape, strides, bytes);
}

}  // namespace detred::python
