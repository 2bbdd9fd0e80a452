// SPDX-License-Identifier: BSD-3-Clause
// NumPy dtypes and DLPack types of the element types.
#include "dtypes.hpp"

#include <dlpack/dlpack.h>

namespace py = pybind11;

namespace detred::python {

const char* name_of(element e) { return detred::to_string(e); }  // NumPy's names are the catalogue's

py::dtype storage_dtype(element e) { return py::dtype(e == element::bfloat16 ? "uint16" : name_of(e)); }

py::ssize_t item_size(const py::dtype& dtype) { return dtype.attr("itemsize").cast<py::ssize_t>(); }

namespace {

/// The element type of a dtype's kind and size, or nothing.
std::optional<element> element_of_kind(char kind, py::ssize_t size, const py::dtype& dtype) {
  if (kind == 'f' && size == 8) return element::float64;
  if (kind == 'f' && size == 4) return element::float32;
  if (kind == 'f' && size == 2) return element::float16;
  if (kind == 'i' && size == 8) return element::int64;
  if (kind == 'i' && size == 4) return element::int32;
  if (kind == 'u' && size == 8) return element::uint64;
  if (kind == 'u' && size == 4) return element::uint32;
  // ml_dtypes' bfloat16: a dtype of its own, not a float kind.
  if (kind != 'f' && kind != 'i' && kind != 'u' && size == 2 &&
      py::str(dtype.attr("name")).cast<std::string>() == "bfloat16") {
    return element::bfloat16;
  }
  return std::nullopt;
}

}  // namespace

std::optional<element> element_of(const py::dtype& dtype, std::string_view operation) {
  const char kind = dtype.kind();
  const py::ssize_t size = item_size(dtype);
  const std::optional<element> e = element_of_kind(kind, size, dtype);
  if (e && size > 1) {
    const char order = dtype.byteorder();
    const char native = PY_LITTLE_ENDIAN ? '<' : '>';
    if (order != '=' && order != '|' && order != native) {
      throw py::type_error("detred." + std::string(operation) + " needs a native byte order; got dtype " +
                           py::repr(dtype).cast<std::string>() + " (convert with a.astype(a.dtype.newbyteorder('=')))");
    }
  }
  return e;
}

std::optional<element> element_of_dlpack(int code, int bits, int lanes) {
  if (lanes != 1) return {};
  switch (code) {
    case kDLFloat:
      if (bits == 64) return element::float64;
      if (bits == 32) return element::float32;
      if (bits == 16) return element::float16;
      break;
    case kDLBfloat:
      if (bits == 16) return element::bfloat16;
      break;
    case kDLInt:
      if (bits == 64) return element::int64;
      if (bits == 32) return element::int32;
      break;
    case kDLUInt:
      if (bits == 64) return element::uint64;
      if (bits == 32) return element::uint32;
      break;
    default:
      break;
  }
  return {};
}

std::string conversion_hint(const py::dtype& dtype, bool takes_int64) {
  const char kind = dtype.kind();
  const bool integral = kind == 'i' || kind == 'u' || kind == 'b';
  if (integral && takes_int64) return "a.astype(numpy.int64)";
  // float16 widens exactly to float32, at half float64's memory.
  return kind == 'f' && item_size(dtype) == 2 ? "a.astype(numpy.float32)" : "a.astype(numpy.float64)";
}

}  // namespace detred::python
