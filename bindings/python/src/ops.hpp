// The operations the module exposes, one struct each: the Python name, the docstring, and the C++ calls by element
// type for the host, the GPU and the reference. module.cpp registers each with one line; docs/bindings.md says how
// to add one.
#pragma once

#include <span>

#include "detred/cuda.hpp"
#include "detred/reference.hpp"
#include "detred/sum.hpp"

namespace detred::python {

struct sum_op {
  static constexpr const char* name = "sum";
  static constexpr const char* reference_name = "reference_sum";
  static constexpr const char* doc = R"(Deterministic sum of the elements of an array, over all axes or the given ones.

The result bits depend only on the number of elements reduced and their values in logical (C) order: never on
``threads``, the instruction set, the machine, or whether the CPU or a GPU computed them.

Parameters
----------
a : array_like
    float32 or float64 values: a NumPy array (any shape and strides), anything ``numpy.asarray`` accepts, or a
    C-contiguous GPU array (CuPy, PyTorch CUDA tensors: ``__cuda_array_interface__`` or DLPack), reduced on its
    device.
mode : {"tree", "compensated"}
    ``"tree"``: plain additions, error <= gamma_D * sum|x_i|. ``"compensated"``: an error-free (sum, correction)
    pair through the same tree, error <= u|S| + (1+u) gamma_D gamma_D' sum|x_i|.
axis : None, int or tuple of ints
    The axes to reduce; None reduces all. Each output element is the sum of the elements it reduces taken as one
    contiguous array in C order (``detred.sum(numpy.ascontiguousarray(lane))``).
threads : int
    CPU threads; 0 = the library's default. Never changes the result.

Returns
-------
numpy.float32 or numpy.float64 when every axis is reduced, else a NumPy array of the input's dtype.

Memory: a C-contiguous, aligned array (or, with ``axis``, a lane whose elements lie contiguously) is summed in
place. Otherwise each output element's inputs are first copied into one contiguous scratch buffer: for a
non-contiguous view and ``axis=None`` that is a copy of the whole view (its size in memory, freed on return). The
GIL is released while a host array of 4096 or more elements is reduced, and during GPU calls.

GPU arrays: the sum runs on the array's device, on the stream it names (``__cuda_array_interface__``) or on the
legacy default stream after the producer's work (DLPack), with a workspace per device kept by the module; the
result is returned as a NumPy scalar. Only ``axis=None`` and C-contiguous GPU arrays (NotImplementedError
otherwise); RuntimeError if detred has no CUDA backend or no usable device.

Special values: an empty array gives -0.0; any NaN, or +inf with -inf, gives the canonical quiet NaN; a sum of
finite values may overflow to +-inf.

Raises
------
TypeError
    for a dtype other than float32 or float64 (or a non-native byte order).
ValueError
    for an unknown mode, a negative thread count, an axis out of range (numpy.AxisError) or repeated.
)";

  template <class T>
  static T host(std::span<const T> x, detred::mode m, int threads) {
    return detred::sum(x, {.mode = m, .threads = threads});
  }
  template <class T>
  static T reference(std::span<const T> x, detred::mode m, int /*threads*/) {
    return detred::reference::sum(x, m);
  }
  template <class T>
  static T device(std::span<const T> x, detred::cuda::workspace& ws, detred::mode m, detred::cuda::stream_t stream) {
    return detred::cuda::sum(x, ws, m, stream);
  }
};

}  // namespace detred::python
