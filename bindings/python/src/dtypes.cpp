// SPDX-License-Identifier: BSD-3-Clause
// NumPy dtypes and DLPack types of the element types.
#include "dtypes.hpp"

#include <dlpack/dlpack.h>

namespace py = pybind11;

namespace detred::python {

const char* name_of(element e) {
  switch (e) {
    case element::f64:
      return "float64";
    case element::f32:
      return "float32";
    case element::f16:
      return "float16";
    case element::bf16:
      return "bfloat16";
    case element::i32:
      return "int32";
    case element::i64:
      return "int64";
    case element::u32:
      return "uint32";
    case element::u64:
      break;
  }
  return "uint64";
}

py::dtype storage_dtype(element e) { return py::dtype(e == element::bf16 ? "uint16" : name_of(e)); }

py::ssize_t item_size(const py::dtype& dtype) { return dtype.attr("itemsize").cast<py::ssize_t>(); }

std::optional<element> element_of(const py::dtype& dtype, std::string_view operation) {
  const char kind = dtype.kind();
  const py::ssize_t size = item_size(dtype);
  std::optional<element> e;
  if (kind == 'f') {
    e = size == 8 ? element::f64 : size == 4 ? element::f32 : size == 2 ? element::f16 : std::optional<element>();
  } else if (kind == 'i') {
    e = size == 8 ? element::i64 : size == 4 ? element::i32 : std::optional<element>();
  } else if (kind == 'u') {
    e = size == 8 ? element::u64 : size == 4 ? element::u32 : std::optional<element>();
  } else if (size == 2 && py::str(dtype.attr("name")).cast<std::string>() == "bfloat16") {
    e = element::bf16;  // ml_dtypes' bfloat16: a dtype of its own, not a float kind
  }
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
      if (bits == 64) return element::f64;
      if (bits == 32) return element::f32;
      if (bits == 16) return element::f16;
      break;
    case kDLBfloat:
      if (bits == 16) return element::bf16;
      break;
    case kDLInt:
      if (bits == 64) return element::i64;
      if (bits == 32) return element::i32;
      break;
    case kDLUInt:
      if (bits == 64) return element::u64;
      if (bits == 32) return element::u32;
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
