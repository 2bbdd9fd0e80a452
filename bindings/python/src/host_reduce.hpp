// Reductions of NumPy arrays in host memory: the whole array or some of its axes, each output element computed by
// one call of the library on the elements it reduces, in C order.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <span>
#include <vector>

#include "detred/options.hpp"

namespace detred::python {

/// An operation's host entry point for one element type: the library call with the mode and thread count.
template <class T>
using host_call = T (*)(std::span<const T> x, detred::mode m, int threads);

struct host_calls {
  host_call<double> f64;
  host_call<float> f32;
};

/// Arrays of at least this many elements are reduced with the GIL released (for fewer, releasing and taking it back
/// would cost more than the reduction; NumPy also keeps it for small arrays).
inline constexpr pybind11::ssize_t gil_release_threshold = 4096;

/// Reduces a (a float32 or float64 array in native byte order, see dtypes.hpp) over `axes` (increasing, from
/// arguments.hpp). Every output element is calls(x) of the elements it reduces as one contiguous array in C order:
/// in place when they already lie so in memory (and are aligned), else gathered into a scratch buffer of one
/// output element's size first. All axes reduced: a NumPy scalar of the array's dtype; else an array of that dtype
/// with the other axes.
pybind11::object reduce_host(const pybind11::array& a, const std::vector<int>& axes, const host_calls& calls,
                             detred::mode m, int threads);

}  // namespace detred::python
