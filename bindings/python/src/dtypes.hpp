// SPDX-License-Identifier: BSD-3-Clause
// The element types the library reduces, as NumPy dtypes, DLPack types and C++ types.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "detred/catalogue.hpp"
#include "detred/number_types.hpp"

namespace detred::python {

/// Every element type of the C++ library (detred/catalogue.hpp). Which ones an operation takes follows from its C++
/// overloads (calls.hpp).
using element = detred::element_type;
inline constexpr auto& all_elements = detred::catalogue::element_types;

/// f.template operator()<T>() with T the C++ type of e.
template <class F>
decltype(auto) with_element(element e, F&& f) {
  return detred::with_type(e, std::forward<F>(f));
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
