// SPDX-License-Identifier: BSD-3-Clause
// Where an argument's elements are, and by which protocol they are reached.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

namespace detred::python {

enum class source {
  numpy,                 ///< a NumPy array: its memory as it is
  host_dlpack,           ///< __dlpack__ with __dlpack_device__ naming the CPU (PyTorch CPU tensors, bfloat16 too)
  cuda_dlpack,           ///< __dlpack__ with a CUDA device (preferred to the interface below: it synchronizes)
  cuda_array_interface,  ///< __cuda_array_interface__ (CuPy, Numba)
  other,                 ///< anything else: what numpy.asarray makes of it (lists, scalars)
};

source source_of(const pybind11::handle& obj);

/// True for the sources in GPU memory.
inline bool on_gpu(source s) { return s == source::cuda_dlpack || s == source::cuda_array_interface; }

}  // namespace detred::python
