// SPDX-License-Identifier: BSD-3-Clause
// The batched sums of detred/batched.hpp (segments, by key) as the module's private functions _segment_sum,
// _segment_dot and _sum_by_key, writing into a result array the caller made: the building blocks of detred.torch
// (reductions over dims as segments of rows, scatter-add and index-add as sums by key). Host arrays (NumPy) go to the
// host calls, CUDA arrays (DLPack, __cuda_array_interface__) to the detred::cuda calls on their device. float32 and
// float64; _segment_sum also takes 16-bit values (float16 and bfloat16: NumPy's float16, CPU DLPack tensors, GPU
// arrays) with float32 results, their sums in float as detred.sum of a 16-bit array gives them (no widened copy).
#include <pybind11/numpy.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include "arguments.hpp"
#include "define.hpp"
#include "detred/batched.hpp"
#include "detred/cuda.hpp"
#include "device_array.hpp"
#include "device_reduce.hpp"
#include "dtypes.hpp"
#include "host_array.hpp"
#include "sources.hpp"

namespace py = pybind11;

namespace detred::python {
namespace {

[[noreturn]] void type_error(std::string_view function, const std::string& what) {
  throw py::type_error("detred." + std::string(function) + ": " + what);
}

/// A 1-D C-contiguous NumPy array of kind `kinds` ("f", "iu") and `size` bytes an element (0: any size).
py::array host_vector(const py::object& obj, std::string_view function, const char* name, std::string_view kinds,
                      py::ssize_t size, bool writable) {
  if (!py::isinstance<py::array>(obj)) type_error(function, std::string(name) + " must be a NumPy array");
  py::array a = py::reinterpret_borrow<py::array>(obj);
  const char kind = a.dtype().kind();
  if (a.ndim() != 1 || !(a.flags() & py::array::c_style) || kinds.find(kind) == std::string_view::npos ||
      (size != 0 && item_size(a.dtype()) != size) || (writable && !a.writeable())) {
    type_error(function, std::string(name) + " must be a 1-D C-contiguous" + (writable ? " writable" : "") +
                             " array of " + (size != 0 ? std::to_string(size) + "-byte " : std::string()) +
                             (kinds == "f" ? "floats" : "integers") + ", not " +
                             py::str(a.dtype()).cast<std::string>() + " of " + std::to_string(a.ndim()) +
                             " dimensions");
  }
  return a;
}

template <class T>
std::span<const T> elements(const py::array& a) {
  return {static_cast<const T*>(a.data()), static_cast<std::size_t>(a.size())};
}
template <class T>
std::span<T> writable_elements(py::array& a) {
  return {static_cast<T*>(a.mutable_data()), static_cast<std::size_t>(a.size())};
}

/// The float width (4 or 8) of the values, checked against the results'.
py::ssize_t float_width(const py::array& values, const py::array& out, std::string_view function) {
  const py::ssize_t w = item_size(values.dtype());
  if (values.dtype().kind() != 'f' || (w != 4 && w != 8) || item_size(out.dtype()) != w || out.dtype().kind() != 'f') {
    type_error(function, "values and out must both be float32 or both float64");
  }
  return w;
}

/// A CUDA array (C-contiguous) of an element type the library knows.
device_array device_vector(const py::object& obj, std::string_view function, const char* name) {
  const source s = source_of(obj);
  if (!on_gpu(s)) type_error(function, std::string(name) + " must be a GPU array as the values are");
  device_array a = as_device_array(obj, s, function);
  if (!a.type) type_error(function, std::string(name) + " has a dtype detred does not take: " + a.type_name);
  return a;
}

/// _segment_sum (y None) and _segment_dot: out[k] = detred::sum (dot) of segment k of the values (and of y).
void segments_call(const py::object& values, const py::object& y, const py::object& offsets, const py::object& out,
                   std::string_view mode, int threads) {
  const bool dot = !y.is_none();
  const std::string_view function = dot ? "_segment_dot" : "_segment_sum";
  const detred::options opt{parse_mode(mode), checked_threads(threads)};
  if (on_gpu(source_of(values))) {
    const device_array v = device_vector(values, function, "values");
    const device_array w = dot ? device_vector(y, function, "y") : v;
    const device_array o = device_vector(offsets, function, "offsets");
    const device_array r = device_vector(out, function, "out");
    if (*o.type != element::int64 && *o.type != element::uint64)
      type_error(function, "offsets must be int64 or uint64");
    if (r.size + 1 != o.size)
      throw py::value_error("detred." + std::string(function) + ": out needs one element per segment");
    if (*w.type != *v.type || w.size != v.size) type_error(function, "y must have the values' dtype and size");
    const std::span<const std::uint64_t> offs{reinterpret_cast<const std::uint64_t*>(o.data), o.size};
    // T: the values' type; R: the results' (float for 16-bit values, which only the sum takes).
    auto run = [&]<class T, class R = T>() {
      device_session session(v);
      for (const device_array* other : {&w, &o, &r}) {
        if (other->stream != v.stream) synchronize(other->stream);
      }
      const std::span<const T> x{reinterpret_cast<const T*>(v.data), v.size};
      const std::span<R> results{reinterpret_cast<R*>(r.data), r.size};
      const detred::options gpu{.mode = opt.mode, .stream = v.stream, .workspace = &session.workspace()};
      if constexpr (std::is_same_v<T, R>) {
        if (dot) {
          detred::cuda::dot_async(x, std::span<const T>{reinterpret_cast<const T*>(w.data), w.size},
                                  detred::segments{offs}, results, gpu);
          return;
        }
      }
      detred::cuda::sum_async(x, detred::segments{offs}, results, gpu);
    };
    if (*v.type == element::float64 && *r.type == element::float64) {
      run.template operator()<double>();
    } else if (*v.type == element::float32 && *r.type == element::float32) {
      run.template operator()<float>();
    } else if (!dot && *v.type == element::float16 && *r.type == element::float32) {
      run.template operator()<float16, float>();
    } else if (!dot && *v.type == element::bfloat16 && *r.type == element::float32) {
      run.template operator()<bfloat16, float>();
    } else {
      type_error(function, dot ? "values and out must both be float32 or both float64"
                               : "values and out must both be float32 or both float64, or float16 or bfloat16 "
                                 "values with float32 out");
    }
    return;
  }
  // The 16-bit values of a sum: NumPy's float16, or a CPU DLPack tensor of float16 or bfloat16 (PyTorch's bfloat16,
  // which NumPy has no dtype for), read as it is.
  std::optional<element> half;
  py::array v;
  if (!dot && source_of(values) == source::host_dlpack) {
    const host_array h = as_host_array(values, source::host_dlpack, function);
    if (h.type == element::float16 || h.type == element::bfloat16) {
      if (h.array.ndim() != 1 || !(h.array.flags() & py::array::c_style)) {
        type_error(function, "values must be a 1-D C-contiguous array");
      }
      half = h.type;
      v = h.array;
    }
  }
  if (!half) {
    v = host_vector(values, function, "values", "f", 0, false);
    if (!dot && item_size(v.dtype()) == 2) half = element::float16;
  }
  const py::array w = dot ? host_vector(y, function, "y", "f", 0, false) : v;
  const py::array o = host_vector(offsets, function, "offsets", "iu", 8, false);
  py::array r = host_vector(out, function, "out", "f", 0, true);
  if (dot && (item_size(w.dtype()) != item_size(v.dtype()) || w.size() != v.size())) {
    type_error(function, "y must have the values' dtype and size");
  }
  const auto offs = elements<std::uint64_t>(o);  // a negative int64 reads as past the end: refused by the call
  auto run = [&]<class T, class R = T>() {
    const auto x = elements<T>(v);
    const auto results = writable_elements<R>(r);
    const auto call = [&] {
      if constexpr (std::is_same_v<T, R>) {
        if (dot) return detred::dot(x, elements<T>(w), detred::segments{offs}, results, opt);
      }
      detred::sum(x, detred::segments{offs}, results, opt);
    };
    if (v.size() >= 4096) {
      const py::gil_scoped_release no_gil;
      call();
    } else {
      call();
    }
  };
  if (half) {
    if (item_size(r.dtype()) != 4) type_error(function, "out must be float32 for float16 or bfloat16 values");
    if (*half == element::bfloat16) return run.template operator()<bfloat16, float>();
    return run.template operator()<float16, float>();
  }
  if (float_width(v, r, function) == 8) {
    run.template operator()<double>();
  } else {
    run.template operator()<float>();
  }
}

void sum_by_key(const py::object& values, const py::object& keys, const py::object& out, std::string_view mode,
                int threads) {
  constexpr std::string_view function = "_sum_by_key";
  const detred::options opt{parse_mode(mode), checked_threads(threads)};
  if (on_gpu(source_of(values))) {
    const device_array v = device_vector(values, function, "values");
    const device_array k = device_vector(keys, function, "keys");
    const device_array r = device_vector(out, function, "out");
    // int64 keys go to the device as they are (it checks and narrows them in one pass); an int32 key below 0 reads,
    // as uint32, as one above every bin: refused by the call too.
    const bool wide_keys = *k.type == element::int64;
    if (!wide_keys && *k.type != element::int32 && *k.type != element::uint32) {
      type_error(function, "keys of a GPU array must be int64, int32 or uint32");
    }
    auto run = [&]<class T>() {
      device_session session(v);
      for (const device_array* other : {&k, &r}) {
        if (other->stream != v.stream) synchronize(other->stream);
      }
      const std::span<const T> x{reinterpret_cast<const T*>(v.data), v.size};
      const std::span<T> results{reinterpret_cast<T*>(r.data), r.size};
      const detred::options gpu{.mode = opt.mode, .stream = v.stream, .workspace = &session.workspace()};
      if (wide_keys) {
        detred::cuda::sum_by_key(
            x, std::span<const std::int64_t>{reinterpret_cast<const std::int64_t*>(k.data), k.size}, results, gpu);
      } else {
        detred::cuda::sum_by_key(
            x, std::span<const std::uint32_t>{reinterpret_cast<const std::uint32_t*>(k.data), k.size}, results, gpu);
      }
    };
    if (*v.type == element::float64 && *r.type == element::float64) {
      run.template operator()<double>();
    } else if (*v.type == element::float32 && *r.type == element::float32) {
      run.template operator()<float>();
    } else {
      type_error(function, "values and out must both be float32 or both float64");
    }
    return;
  }
  const py::array v = host_vector(values, function, "values", "f", 0, false);
  py::array r = host_vector(out, function, "out", "f", 0, true);
  const py::array k = host_vector(keys, function, "keys", "iu", 0, false);
  const bool wide_keys = item_size(k.dtype()) == 8;
  if (wide_keys ? k.dtype().kind() != 'i' : item_size(k.dtype()) != 4) {
    type_error(function, "keys must be int64, int32 or uint32");
  }
  auto run = [&]<class T>() {
    const auto x = elements<T>(v);
    const auto results = writable_elements<T>(r);
    const py::gil_scoped_release no_gil;  // the grouping allocates and sorts: always worth releasing
    if (wide_keys) {
      detred::sum_by_key(x, elements<std::int64_t>(k), results, opt);
    } else {
      // int32 keys as uint32: a negative one reads as above every bin, refused by the call with its index.
      detred::sum_by_key(x, elements<std::uint32_t>(k), results, opt);
    }
  };
  if (float_width(v, r, function) == 8) {
    run.template operator()<double>();
  } else {
    run.template operator()<float>();
  }
}

}  // namespace

void define_batched(py::module_& m) {
  m.def(
      "_segment_sum",
      [](const py::object& values, const py::object& offsets, const py::object& out, std::string_view mode,
         int threads) { segments_call(values, py::none(), offsets, out, mode, threads); },
      py::arg("values"), py::arg("offsets"), py::arg("out"), py::arg("mode") = "tree", py::arg("threads") = 0,
      "out[k] = detred.sum(values[offsets[k]:offsets[k+1]]) for every segment (detred/batched.hpp), bit for bit.\n"
      "values and out: 1-D C-contiguous float32 or float64 arrays of one dtype, or float16 or bfloat16 values (a\n"
      "NumPy float16 array, a CPU DLPack tensor, a GPU array) with float32 out, all on the host or all on one CUDA\n"
      "device (then enqueued on the values' stream); offsets: int64 or uint64, one more than out, non-decreasing.\n"
      "Private: the building block of detred.torch.");
  m.def("_segment_dot", &segments_call, py::arg("x"), py::arg("y"), py::arg("offsets"), py::arg("out"),
        py::arg("mode") = "tree", py::arg("threads") = 0,
        "out[k] = detred.dot(x[offsets[k]:offsets[k+1]], y[offsets[k]:offsets[k+1]]) for every segment, bit for bit;\n"
        "x and y of one dtype and size, otherwise as _segment_sum. Private: the building block of detred.torch.");
  m.def("_sum_by_key", &sum_by_key, py::arg("values"), py::arg("keys"), py::arg("out"), py::arg("mode") = "tree",
        py::arg("threads") = 0,
        "out[b] = detred.sum of the values whose key is b, in index order (detred/batched.hpp), bit for bit.\n"
        "values and out: 1-D C-contiguous float32 or float64 arrays of one dtype; keys: one per value, each below\n"
        "len(out): int64, int32 or uint32 (on a CUDA device the call waits for the stream). Private: the building\n"
        "block of detred.torch.");
}

}  // namespace detred::python
