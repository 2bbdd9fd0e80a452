// SPDX-License-Identifier: BSD-3-Clause
// Walking a strided NumPy block in C (row-major) order: the byte offsets of its elements, and gathering them into a
// contiguous buffer. Shapes and strides are NumPy's (strides in bytes, possibly negative or zero).
#pragma once

#include <pybind11/pybind11.h>

#include <span>
#include <vector>

namespace detred::python {

/// The byte offsets of a block's elements in C order, one element at a time.
class c_order_offsets {
 public:
  c_order_offsets(std::vector<pybind11::ssize_t> shape, std::vector<pybind11::ssize_t> strides)
      : shape_(std::move(shape)), strides_(std::move(strides)), index_(shape_.size(), 0) {}

  pybind11::ssize_t offset() const { return offset_; }

  /// Moves to the next element (the last axis varies fastest).
  void next() {
    for (std::size_t k = shape_.size(); k-- > 0;) {
      offset_ += strides_[k];
      if (++index_[k] < shape_[k]) return;
      offset_ -= strides_[k] * shape_[k];
      index_[k] = 0;
    }
  }

 private:
  std::vector<pybind11::ssize_t> shape_;
  std::vector<pybind11::ssize_t> strides_;
  std::vector<pybind11::ssize_t> index_;
  pybind11::ssize_t offset_ = 0;
};

/// True if the block's elements lie one after the other in C order (a C-contiguous block of items of `itemsize`
/// bytes), whatever the strides of its axes of length 1.
inline bool c_contiguous(std::span<const pybind11::ssize_t> shape, std::span<const pybind11::ssize_t> strides,
                         pybind11::ssize_t itemsize) {
  pybind11::ssize_t expected = itemsize;
  for (std::size_t k = shape.size(); k-- > 0;) {
    if (shape[k] == 0) return true;
    if (shape[k] == 1) continue;
    if (strides[k] != expected) return false;
    expected *= shape[k];
  }
  return true;
}

/// Copies the block at `base` with this shape and these strides into out[0..size), in C order, element by element
/// of `itemsize` bytes (2, 4 or 8). Elements are read with memcpy, so `base` need not be aligned.
void gather(const char* base, const std::vector<pybind11::ssize_t>& shape,
            const std::vector<pybind11::ssize_t>& strides, std::size_t itemsize, void* out);

}  // namespace detred::python
