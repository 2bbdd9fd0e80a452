// SPDX-License-Identifier: BSD-3-Clause
// detred.cumsum and detred.exclusive_cumsum: the scans of detred/scan.hpp over host arrays, with NumPy's cumsum
// semantics (axis=None flattens in C order, one axis otherwise, out=). Unlike the reductions they return an array
// of the input's shape, so they have their own driver here rather than reduce.hpp's.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "arguments.hpp"
#include "define.hpp"
#include "detred/catalogue.hpp"
#include "detred/cuda.hpp"
#include "detred/scan.hpp"
#include "device_array.hpp"
#include "device_reduce.hpp"
#include "device_runtime.hpp"
#include "docstrings.hpp"
#include "dtypes.hpp"
#include "host_array.hpp"
#include "host_layout.hpp"
#include "reduce.hpp"
#include "sources.hpp"

namespace py = pybind11;

namespace detred::python {
namespace {

/// The output type of a scan of T (detred/scan.hpp): float for 16-bit floats, int64 or uint64 for integers.
template <class T>
using output_t = std::conditional_t<
    std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>, float,
    std::conditional_t<std::is_integral_v<T>, std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>, T>>;

py::object numpy_attr(const char* name) { return py::module_::import("numpy").attr(name); }

/// a as a C-contiguous, aligned array (a itself when it is one, else a copy).
py::array c_contiguous(const py::array& a) {
  return numpy_attr("require")(a, py::none(), py::make_tuple("C", "A")).cast<py::array>();
}

std::string dtype_name(const py::dtype& t) { return py::str(py::handle(t)).cast<std::string>(); }

std::string shape_text(const std::vector<py::ssize_t>& shape) {
  std::string text = "(";
  for (std::size_t k = 0; k < shape.size(); ++k) text += std::to_string(shape[k]) + (k + 1 < shape.size() ? ", " : "");
  return text + (shape.size() == 1 ? ",)" : ")");
}

/// The bytes [begin, end) an array's elements span.
struct extent {
  std::uintptr_t begin = 0;
  std::uintptr_t end = 0;
};
extent extent_of(const py::array& a) {
  auto begin = reinterpret_cast<std::uintptr_t>(a.data());
  auto end = begin;
  if (a.size() == 0) return {begin, begin};
  for (py::ssize_t k = 0; k < a.ndim(); ++k) {
    const py::ssize_t span = (a.shape(k) - 1) * a.strides(k);
    if (span < 0) begin -= static_cast<std::uintptr_t>(-span);
    if (span > 0) end += static_cast<std::uintptr_t>(span);
  }
  return {begin, end + static_cast<std::uintptr_t>(item_size(a.dtype()))};
}
bool overlap(const py::array& a, const py::array& b) {
  const extent x = extent_of(a), y = extent_of(b);
  return x.begin < y.end && y.begin < x.end;
}

/// out= (an ndarray) checked as NumPy checks it: of the result's shape, writeable, of the result's dtype exactly (the
/// scan's bits are the result type's; a cast would round them again).
py::array checked_out(const py::array& out, const std::vector<py::ssize_t>& shape, const py::dtype& type,
                      std::string_view operation) {
  const std::string op = "detred." + std::string(operation);
  const py::array& o = out;
  if (!o.dtype().equal(type)) {
    throw py::type_error(op + ": out has dtype " + dtype_name(o.dtype()) + ", the result is " + dtype_name(type) +
                         " (no casting: pass out of the result's dtype)");
  }
  const std::vector<py::ssize_t> got(o.shape(), o.shape() + o.ndim());
  if (got != shape) {
    throw py::value_error(op + ": out has shape " + shape_text(got) + ", the result " + shape_text(shape));
  }
  if (!o.writeable()) throw py::value_error(op + ": out is read-only");
  return o;
}

/// Where the outputs go: `out` itself when it has the layout the call writes (C order, or Fortran order for a
/// column-major matrix) and does not overlap the input unless it is the input itself; else a new array.
py::array output_for(const std::optional<py::array>& out, const py::array& input, const std::vector<py::ssize_t>& shape,
                     const py::dtype& type, bool fortran) {
  if (out) {
    const int flag = fortran ? py::array::f_style : py::array::c_style;
    const bool layout_fits = py::detail::check_flags(out->ptr(), flag | py::detail::npy_api::NPY_ARRAY_ALIGNED_);
    const bool same = out->data() == input.data() && out->dtype().equal(input.dtype());
    if (layout_fits && (same || !overlap(*out, input))) return *out;
  }
  if (fortran) {
    std::vector<py::ssize_t> strides = {item_size(type), item_size(type) * shape[0]};
    return py::array(type, shape, strides);
  }
  return py::array(type, shape);
}

template <class T>
const T* elements(const py::array& a) {
  return reinterpret_cast<const T*>(a.data());  // bfloat16 is stored as uint16, float16 as NumPy's float16
}
template <class T>
T* elements(py::array& a) {
  return reinterpret_cast<T*>(a.mutable_data());
}

/// Whether a 2-D array's elements can be read in place as a matrix_view, and how.
struct matrix_fit {
  bool fits = false;
  detred::layout layout = detred::layout::row_major;
  std::uint64_t leading_dimension = 0;
};
matrix_fit fit_matrix(const py::array& a) {
  const py::ssize_t item = item_size(a.dtype());
  const bool aligned = reinterpret_cast<std::uintptr_t>(a.data()) % static_cast<std::uintptr_t>(item) == 0;
  if (!aligned) return {};
  const py::ssize_t s0 = a.strides(0), s1 = a.strides(1);
  if ((s1 == item || a.shape(1) == 1) && s0 > 0 && s0 % item == 0 && s0 / item >= a.shape(1)) {
    return {true, detred::layout::row_major, static_cast<std::uint64_t>(s0 / item)};
  }
  if ((s0 == item || a.shape(0) == 1) && s1 > 0 && s1 % item == 0 && s1 / item >= a.shape(0)) {
    return {true, detred::layout::column_major, static_cast<std::uint64_t>(s1 / item)};
  }
  return {};
}

template <class T>
py::object scan_typed(const py::array& a, std::optional<int> axis, const std::optional<py::array>& out,
                      const detred::options& opt, bool exclusive, std::string_view operation) {
  using Out = output_t<T>;
  const py::dtype out_type = py::dtype::of<Out>();
  const auto scan = [&](std::span<const T> x, std::span<Out> y) {
    exclusive ? detred::exclusive_cumsum(x, y, opt) : detred::cumsum(x, y, opt);
  };
  const bool release = a.size() >= gil_release_threshold;

  // axis=None flattens in C order (as numpy.cumsum); one dimension is the same call.
  if (!axis || a.ndim() == 1) {
    const std::vector<py::ssize_t> shape = {axis ? a.shape(0) : static_cast<py::ssize_t>(a.size())};
    const std::optional<py::array> given = out ? std::optional(checked_out(*out, shape, out_type, operation)) : out;
    const py::array x = c_contiguous(a);
    py::array y = output_for(given, x, shape, out_type, false);
    const auto n = static_cast<std::size_t>(x.size());
    {
      std::optional<py::gil_scoped_release> no_gil;
      if (release) no_gil.emplace();
      scan(std::span<const T>(elements<T>(x), n), std::span<Out>(elements<Out>(y), n));
    }
    if (given && !given->is(y)) given->attr("__setitem__")(py::ellipsis(), y);
    return given ? *given : y;
  }

  const std::vector<py::ssize_t> shape(a.shape(), a.shape() + a.ndim());
  const std::optional<py::array> given = out ? std::optional(checked_out(*out, shape, out_type, operation)) : out;
  py::array y;
  if (a.size() == 0) {
    y = py::array(out_type, shape);
  } else if constexpr (std::is_same_v<T, Out> && std::is_floating_point_v<T>) {
    if (a.ndim() == 2 && !exclusive) {
      // A 2-D array along an axis: the matrix call, on the array's own memory where its strides allow.
      matrix_fit f = fit_matrix(a);
      const py::array x = f.fits ? a : c_contiguous(a);
      if (!f.fits) f = {true, detred::layout::row_major, static_cast<std::uint64_t>(a.shape(1))};
      const bool column_major = f.layout == detred::layout::column_major;
      const detred::matrix_view<T> view{elements<T>(x), static_cast<std::uint64_t>(a.shape(0)),
                                        static_cast<std::uint64_t>(a.shape(1)), f.leading_dimension, f.layout};
      const bool packed = f.leading_dimension == static_cast<std::uint64_t>(a.shape(column_major ? 0 : 1));
      y = output_for(given, x, shape, out_type, column_major);
      if (y.data() == x.data() && !packed) y = output_for(std::nullopt, x, shape, out_type, column_major);
      const auto total = static_cast<std::size_t>(a.size());
      {
        std::optional<py::gil_scoped_release> no_gil;
        if (release) no_gil.emplace();
        detred::cumsum(view, *axis, std::span<T>(elements<T>(y), total), opt);
      }
      if (given && !given->is(y)) given->attr("__setitem__")(py::ellipsis(), y);
      return given ? *given : y;
    }
  }
  if (a.size() != 0) {
    // Any other array along an axis: each line along it is a segment of the array with that axis moved last.
    const py::array moved = c_contiguous(numpy_attr("moveaxis")(a, *axis, -1).cast<py::array>());
    const auto length = static_cast<std::uint64_t>(a.shape(*axis));
    const auto total = static_cast<std::uint64_t>(a.size());
    std::vector<std::uint64_t> offsets(total / length + 1);
    for (std::size_t k = 0; k < offsets.size(); ++k) offsets[k] = k * length;
    py::array z(out_type, std::vector<py::ssize_t>(moved.shape(), moved.shape() + moved.ndim()));
    {
      std::optional<py::gil_scoped_release> no_gil;
      if (release) no_gil.emplace();
      const std::span<const T> x(elements<T>(moved), total);
      const std::span<Out> r(elements<Out>(z), total);
      exclusive ? detred::exclusive_cumsum(x, detred::segments{offsets}, r, opt)
                : detred::cumsum(x, detred::segments{offsets}, r, opt);
    }
    y = numpy_attr("moveaxis")(z, -1, *axis).cast<py::array>();
  }
  if (given) {
    given->attr("__setitem__")(py::ellipsis(), y);
    return *given;
  }
  return y;
}

/// _cumsum_device: the GPU scan behind detred.cumsum of GPU arrays. The package's Python wrapper (detred/__init__.py)
/// lays the lines out and allocates `out` in the array's own library; here out = the scan of x (both C-contiguous,
/// on one device) as one array (offsets None) or per segment (offsets: int64 or uint64 on the device, as the
/// batched calls take them), on x's stream: detred::cuda::cumsum (detred/cuda_scan.hpp), every output the CPU's bits.
void scan_device(const py::object& x, const py::object& out, const py::object& offsets, std::string_view mode,
                 bool exclusive) {
  const std::string name = exclusive ? "exclusive_cumsum" : "cumsum";
  const detred::mode m = parse_mode(mode);
  const auto gpu = [&](const py::object& obj, const char* what) {
    const source s = source_of(obj);
    if (!on_gpu(s)) throw py::type_error("detred." + name + ": " + what + " must be a GPU array as the input is");
    device_array a = as_device_array(obj, s, name);
    if (!a.type)
      throw py::type_error("detred." + name + ": " + what + " has a dtype detred does not take: " + a.type_name);
    return a;
  };
  const device_array v = gpu(x, "the input");
  const device_array r = gpu(out, "out");
  std::optional<device_array> o;
  if (!offsets.is_none()) {
    o = gpu(offsets, "offsets");
    if (*o->type != element::int64 && *o->type != element::uint64) {
      throw py::type_error("detred." + name + ": offsets must be int64 or uint64");
    }
  }
  if (r.size != v.size) throw py::value_error("detred." + name + ": out must have the input's size");
  with_element(*v.type, [&]<class T>() {
    using Out = output_t<T>;
    if (*r.type != element_type_of<Out>()) {
      throw py::type_error("detred." + name + ": out must be " + std::string(name_of(element_type_of<Out>())) +
                           " for " + std::string(name_of(*v.type)) + " input; got " + r.type_name);
    }
    const std::span<const T> in{reinterpret_cast<const T*>(v.data), v.size};
    const std::span<Out> y{reinterpret_cast<Out*>(r.data), r.size};
    device_session session(v);
    for (const device_array* other : {&r, o ? &*o : &r}) {
      if (other->stream != v.stream) synchronize(other->stream);
    }
    const detred::options opt{.mode = m, .stream = v.stream, .workspace = &session.workspace()};
    if constexpr (std::is_integral_v<T>) {
      // Exact whatever the mode; synchronous, so that an overflow is refused here (OverflowError).
      if (o) {
        const detred::segments segs{{reinterpret_cast<const std::uint64_t*>(o->data), o->size}};
        exclusive ? detred::cuda::exclusive_cumsum(in, segs, y, opt) : detred::cuda::cumsum(in, segs, y, opt);
      } else {
        exclusive ? detred::cuda::exclusive_cumsum(in, y, opt) : detred::cuda::cumsum(in, y, opt);
      }
    } else if (o) {
      const detred::segments segs{{reinterpret_cast<const std::uint64_t*>(o->data), o->size}};
      exclusive ? detred::cuda::exclusive_cumsum_async(in, segs, y, opt) : detred::cuda::cumsum_async(in, segs, y, opt);
    } else {
      exclusive ? detred::cuda::exclusive_cumsum_async(in, y, opt) : detred::cuda::cumsum_async(in, y, opt);
    }
  });
}

py::object scan(const py::object& obj, const py::object& axis, std::string_view mode, const py::object& out,
                int threads, bool exclusive) {
  const detred::operation op = exclusive ? detred::operation::exclusive_cumsum : detred::operation::cumsum;
  const std::string_view name = detred::to_string(op);
  const detred::options opt{.mode = parse_mode(mode), .threads = checked_threads(threads)};
  const source s = source_of(obj);
  if (on_gpu(s)) {
    // GPU arrays reach scan_device through the package's wrapper (detred/__init__.py), which allocates the output
    // in the array's own library; only a direct call of the extension ends here.
    throw py::type_error("detred." + std::string(name) + ": GPU arrays go through detred." + std::string(name) +
                         " of the detred package (CuPy arrays and PyTorch CUDA tensors)");
  }
  require_single_axis(axis, name);
  const host_array h = as_host_array(obj, s, name);
  if (!h.type || !detred::catalogue::has(op, *h.type)) {
    std::string supported;
    for (element e : all_elements) {
      if (detred::catalogue::has(op, e)) supported += (supported.empty() ? "" : ", ") + std::string(name_of(e));
    }
    unsupported_dtype(name, dtype_name(h.array.dtype()), supported, conversion_hint(h.array.dtype(), true), false);
  }
  std::optional<int> ax;
  if (!axis.is_none()) ax = reduced_axes(axis, static_cast<int>(h.array.ndim()))[0];
  std::optional<py::array> given;
  if (!out.is_none()) {
    if (!py::isinstance<py::array>(out)) {
      throw py::type_error("detred." + std::string(name) + ": out must be a numpy.ndarray; got " +
                           std::string(py::str(py::type::of(out).attr("__name__"))));
    }
    given = out.cast<py::array>();
  }
  return with_element(*h.type,
                      [&]<class T>() -> py::object { return scan_typed<T>(h.array, ax, given, opt, exclusive, name); });
}

constexpr const char* cumsum_doc = R"(Deterministic cumulative sum (inclusive scan), as numpy.cumsum.

Output i is the sum of the elements up to and including i, computed in the canonical scan order: its bits depend
only on i and those elements, never on the array's length, ``threads``, the instruction set or the machine.

Parameters
----------
a : array_like
    float64, float32, float16, bfloat16, int32, int64, uint32 or uint64 values: a NumPy array (any shape and
    strides), a CPU tensor with ``__dlpack__``, or anything ``numpy.asarray`` accepts. A CuPy array or a PyTorch
    CUDA tensor is scanned on its GPU (detred::cuda::cumsum, the same bits), and the result is an array of its own
    library on its device (``out``, if given, too). ``numpy.ma`` masked arrays and pandas objects with missing
    values raise TypeError, as for detred.sum.
axis : None or int
    None (default) scans the flattened array in C order, as numpy.cumsum; an int scans each line along that axis
    (negative counts from the end), each line with the bits of the same call on it alone as a contiguous array.
mode : {"tree", "compensated"}
    ``"tree"``: error of output i <= gamma_D * sum_{k<=i} |x_k|; ``"compensated"``: <= u |S_i| + (1+u) gamma_D
    gamma_D' sum |x_k| (docs/scan.md). ``"exact"`` raises ValueError. Integer scans are exact in every mode.
out : numpy.ndarray, optional
    Where to write the result: the result's shape and dtype exactly (no casting), writeable. It may be ``a``
    itself (in place) for float64, float32, int64 and uint64 arrays. Returned.
)" DETRED_DOC_THREADS R"(
Returns
-------
A NumPy array of a's shape (1-D of a.size elements for axis=None), of the result type: float64 -> float64,
float32 -> float32, float16 and bfloat16 -> float32 (accumulated in float32; NumPy keeps float16), int32, int64
-> int64 and uint32, uint64 -> uint64 (as NumPy on 64-bit Linux), exact.

Memory: a C-contiguous, aligned array with axis=None, or a 2-D float64/float32 array whose rows or columns lie
evenly in memory, is read in place; otherwise the array (with the axis moved last) is copied into one contiguous
buffer first. The GIL is released for 4096 elements or more.

Special values: NaN outputs are the canonical quiet NaN; +-inf propagate; finite prefixes may overflow to +-inf.
Integer scans never wrap around.

Raises
------
TypeError
    for another dtype (bool, int8, uint16, complex, ...) with the conversion to use, an out of another
    dtype, or an axis that is a tuple.
ValueError
    for mode "exact" or an unknown mode, a negative thread count, an axis out of range (numpy.AxisError), an out
    of another shape.
OverflowError
    for an integer output that does not fit int64 (uint64); the message names it and its exact value.
)";

constexpr const char* exclusive_doc = R"(Deterministic exclusive cumulative sum: output i is the sum of the elements
before i, output 0 the empty sum (-0.0 for floating point, 0 for integers).

The same as ``numpy.concatenate(([0], numpy.cumsum(a)[:-1]))`` along the axis, and bit for bit detred.cumsum's
output i - 1 for i > 0 (the offsets of ragged batches: exclusive_cumsum(lengths)). Arguments, result types,
errors and memory as detred.cumsum.
)";

}  // namespace

void define_scans(py::module_& m) {
  m.def(
      "_cumsum_device",
      [](const py::object& x, const py::object& out, const py::object& offsets, std::string_view mode, bool exclusive) {
        scan_device(x, out, offsets, mode, exclusive);
      },
      py::arg("x"), py::arg("out"), py::arg("offsets"), py::arg("mode"), py::arg("exclusive"),
      "Private: the GPU scan behind detred.cumsum and detred.exclusive_cumsum of GPU arrays.");
  m.def(
      "cumsum",
      [](const py::object& a, const py::object& axis, std::string_view mode, const py::object& out, int threads) {
        return scan(a, axis, mode, out, threads, false);
      },
      py::arg("a"), py::arg("axis") = py::none(), py::arg("mode") = "tree", py::arg("out") = py::none(),
      py::arg("threads") = 0, cumsum_doc);
  m.def(
      "exclusive_cumsum",
      [](const py::object& a, const py::object& axis, std::string_view mode, const py::object& out, int threads) {
        return scan(a, axis, mode, out, threads, true);
      },
      py::arg("a"), py::arg("axis") = py::none(), py::arg("mode") = "tree", py::arg("out") = py::none(),
      py::arg("threads") = 0, exclusive_doc);
}

}  // namespace detred::python
