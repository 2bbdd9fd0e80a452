// The host path: splits the axes into kept and reduced, then one library call per output element.
#include "host_reduce.hpp"

#include <algorithm>
#include <optional>

#include "dtypes.hpp"
#include "strided.hpp"

namespace py = pybind11;

namespace detred::python {
namespace {

using extents = std::vector<py::ssize_t>;

struct split_axes {
  extents kept_shape, kept_strides;        // the output's axes
  extents reduced_shape, reduced_strides;  // the axes of one output element's inputs
  py::ssize_t lanes = 1;                   // output elements
  py::ssize_t lane_length = 1;             // inputs of each
};

split_axes split(const py::array& a, const std::vector<int>& axes) {
  split_axes s;
  for (int k = 0; k < static_cast<int>(a.ndim()); ++k) {
    const bool reduced = std::binary_search(axes.begin(), axes.end(), k);
    (reduced ? s.reduced_shape : s.kept_shape).push_back(a.shape(k));
    (reduced ? s.reduced_strides : s.kept_strides).push_back(a.strides(k));
    (reduced ? s.lane_length : s.lanes) *= a.shape(k);
  }
  return s;
}

// out[i] = call(the elements of output element i), i in C order of the kept axes.
template <class T>
void reduce_lanes(const py::array& a, const split_axes& s, host_call<T> call, detred::mode m, int threads, T* out) {
  const char* base = static_cast<const char*>(a.data());
  const bool aligned = (a.flags() & py::detail::npy_api::NPY_ARRAY_ALIGNED_) != 0;
  const bool in_place = aligned && c_contiguous(s.reduced_shape, s.reduced_strides, sizeof(T));
  std::optional<py::gil_scoped_release> no_gil;
  if (a.size() >= gil_release_threshold) no_gil.emplace();
  std::vector<T> scratch(in_place ? 0 : static_cast<std::size_t>(s.lane_length));
  c_order_offsets lane_starts(s.kept_shape, s.kept_strides);
  for (py::ssize_t i = 0; i < s.lanes; ++i, lane_starts.next()) {
    const char* lane = base + lane_starts.offset();
    std::span<const T> x;
    if (in_place) {
      x = {reinterpret_cast<const T*>(lane), static_cast<std::size_t>(s.lane_length)};
    } else {
      gather(lane, s.reduced_shape, s.reduced_strides, scratch.data());
      x = scratch;
    }
    out[i] = call(x, m, threads);
  }
}

template <class T>
py::object reduce_typed(const py::array& a, const std::vector<int>& axes, host_call<T> call, detred::mode m,
                        int threads) {
  const split_axes s = split(a, axes);
  if (s.kept_shape.empty()) {
    T value{};
    reduce_lanes(a, s, call, m, threads, &value);
    return numpy_scalar(value);
  }
  py::array_t<T> out(s.kept_shape);
  reduce_lanes(a, s, call, m, threads, out.mutable_data());
  return out;
}

}  // namespace

py::object reduce_host(const py::array& a, const std::vector<int>& axes, const host_calls& calls, detred::mode m,
                       int threads) {
  if (element_of(a.dtype()) == element::f64) return reduce_typed(a, axes, calls.f64, m, threads);
  return reduce_typed(a, axes, calls.f32, m, threads);
}

}  // namespace detred::python
