// SPDX-License-Identifier: BSD-3-Clause
// The element types the library reduces, as NumPy dtypes, DLPack types and C++ types.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "detred/number_types.hpp"

namespace detred::python {

/// Every element type of the C++ library. Which ones an operation takes follows from its C++ overloads (calls.hpp).
enum class element { f64, f32, f16, bf16, i32, i64, u32, u64 };
inline constexpr element all_elements[] = {element::f64, element::f32, element::f16, element::bf16,
                                           element::i32, element::i64, element::u32, element::u64};

/// f.template operator()<T>() with T the C++ type of e (double, float, detred::float16, detred::bfloat16, int32_t,
/// int64_t, uint32_t, uint64_t).
template <class F>
decltype(auto) with_element(element e, F&& f) {
  switch (e) {
    case element::f64:
      return f.template operator()<double>();
    case element::f32:
      return f.template operator()<float>();
    case element::f16:
      return f.template operator()<detred::float16>();
    case element::bf16:
      return f.template operator()<detred::bfloat16>();
    case element::i32:
      return f.template operator()<std::int32_t>();
    case element::i64:
      return f.template operator()<std::int64_t>();
    case element::u32:
      return f.template operator()<std::uint32_t>();
    case element::u64:
      break;
  }
  return f.template operator()<std::uint64_t>();
}

/// NumPy's name of the dtype: "float64", ..., "bfloat16" (the name PyTorch and ml_dtypes use).
const char* name_of(element e);

/// The dtype of a host array of e: its own for all but bfloat16, which NumPy lacks: its bits as uint16.
pybind11::dtype storage_dtype(element e);

/// The element type of a dtype, or nothing for one the library does not reduce. A bfloat16 dtype (ml_dtypes) is
/// recognized by its name. TypeError, naming `operation`, for a dtype the library knows in a non-native byte order.
std::optional<element> element_of(const pybind11::dtype& dtype, std::string_view operation);

/// dtype.itemsize, read through Python: pybind11 before 2.12 reads it from NumPy 1's descriptor struct, whose layout
/// NumPy 2 changed (Debian 12's pybind11 2.10 against a NumPy 2 installed by pip gives wrong sizes otherwise).
pybind11::ssize_t item_size(const pybind11::dtype& dtype);

/// The element type of a DLPack data type (type code, bits, lanes), or nothing.
std::optional<element> element_of_dlpack(int code, int bits, int lanes);

/// The conversion to suggest for a dtype an operation cannot reduce: "a.astype(numpy.int64)" for integers (and
/// bool) when the operation takes int64, "a.astype(numpy.float32)" for float16, else "a.astype(numpy.float64)".
std::string conversion_hint(const pybind11::dtype& dtype, bool takes_int64);

}  // namespace detred::python
