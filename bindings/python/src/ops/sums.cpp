// SPDX-License-Identifier: BSD-3-Clause
// detred.sum and detred.reference_sum.
#include <span>

#include "define.hpp"
#include "detred/batched.hpp"
#include "detred/cuda.hpp"
#include "detred/reference.hpp"
#include "detred/sum.hpp"
#include "docstrings.hpp"

namespace detred::python {
namespace {

struct sum_op : op_traits {
  static constexpr detred::operation catalogued = detred::operation::sum;
  static constexpr const char* name = "sum";
  static constexpr const char* doc[] = {
      R"(Deterministic sum of the elements of an array, over all axes or the given ones.

The result bits depend only on the number of elements reduced and their values in logical (C) order: never on
``threads``, the instruction set, the machine, or whether the CPU or a GPU computed them.

Parameters
----------
a : array_like
    float64, float32, float16, bfloat16, int32, int64, uint32 or uint64 values: a NumPy array (any shape and
    strides), a CPU tensor with ``__dlpack__`` (PyTorch's bfloat16 among them; ml_dtypes' bfloat16 arrays too),
    anything ``numpy.asarray`` accepts, or a C-contiguous GPU array (CuPy, PyTorch CUDA tensors:
    ``__cuda_array_interface__`` or DLPack), reduced on its device. ``numpy.ma`` masked arrays and pandas objects
    with missing values raise TypeError (pass ``x.compressed()``, ``x.filled(v)`` or ``s.dropna().to_numpy()``).
mode : {"tree", "compensated", "exact"}
    ``"tree"``: plain additions, error <= gamma_D * sum|x_i|. ``"compensated"``: an error-free (sum, correction)
    pair through the same tree, error <= u|S| + (1+u) gamma_D gamma_D' sum|x_i|. ``"exact"``: the correctly rounded
    exact sum (host arrays of every float type, with or without axis; GPU arrays of every float type, whole).
    Integer sums are exact in every mode.
axis : None, int or tuple of ints
    The axes to reduce; None reduces all. Each output element is the sum of the elements it reduces taken as one
    contiguous array in C order (``detred.sum(numpy.ascontiguousarray(lane))``).
)" DETRED_DOC_THREADS R"(
Returns
-------
A NumPy scalar when every axis is reduced, else a NumPy array with the other axes, of the result type:
float64 -> float64; float32 -> float32; float16 and bfloat16 -> float32 (each element widened exactly to float32
and summed in float32: a 16-bit accumulator loses most sums of more than a few hundred elements; NumPy returns
float16); int32, int64 -> int64 and uint32, uint64 -> uint64 (as NumPy), the exact sum.

Memory: a C-contiguous, aligned array (or, with ``axis``, a lane whose elements lie contiguously) is summed in
place. Otherwise each output element's inputs are first copied into one contiguous scratch buffer: for a
non-contiguous view and ``axis=None`` that is a copy of the whole view (its size in memory, freed on return). The
GIL is released while a host array of 4096 or more elements is reduced, and during GPU calls.

GPU arrays: the sum runs on the array's device, on the stream it names (``__cuda_array_interface__``) or on the
legacy default stream after the producer's work (DLPack), with a workspace per device kept by the module; the
result is returned as a NumPy scalar. Only ``axis=None`` and C-contiguous GPU arrays (NotImplementedError
otherwise); RuntimeError if detred has no CUDA backend or no usable device.

Special values: an empty array gives -0.0 (0 for integers); any NaN, or +inf with -inf, gives the canonical quiet
NaN; a sum of finite values may overflow to +-inf. Integer sums never wrap around (NumPy's do, silently).

Raises
------
TypeError
    for another dtype (bool, int8, int16, uint8, uint16, complex, ...), with the conversion to use, or a
    non-native byte order.
ValueError
    for an unknown mode, a negative thread count, an axis out of range (numpy.AxisError) or repeated.
OverflowError
    for an integer sum that does not fit int64 (uint64); the message states the exact sum.
)"};

  DETRED_PYTHON_FORWARD_UNARY(sum)
};

struct reference_sum_op : op_traits {
  static constexpr bool has_threads = false;
  static constexpr bool on_gpu = false;
  static constexpr const char* name = "reference_sum";
  static constexpr const char* doc[] = {
      "The scalar reference implementation of detred.sum for float64 and float32: the canonical order written as\n"
      "plainly as possible, slow by design; every fast path returns its bits. Host arrays only; arguments as for\n"
      "detred.sum, without threads."};

  template <class T>
  static auto host(std::span<const T> x, const detred::options& opt) -> decltype(detred::reference::sum(x, opt)) {
    return detred::reference::sum(x, opt);
  }
};

}  // namespace

void define_sums(pybind11::module_& m) {
  def_reduction<sum_op>(m);
  def_reduction<reference_sum_op>(m);
}

}  // namespace detred::python
