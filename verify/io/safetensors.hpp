// SPDX-License-Identifier: BSD-3-Clause
// safetensors files: an 8-byte little-endian header length, a JSON header, then the tensors' bytes.
//
// The header maps each tensor name to {"dtype", "shape", "data_offsets": [begin, end]} (offsets into the bytes
// after the header); "__metadata__" holds strings. Accepted dtypes: F64, F32, F16, BF16 and the integers I64, I32,
// I16, I8, U64, U32, U16, U8 (the narrow ones are widened when read), stored little-endian and row-major, so a
// tensor is reduced in its storage order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "dtype.hpp"

namespace detred::verify {

/// Headers above this size are refused (the format's own limit is 100 MB).
inline constexpr std::uint64_t safetensors_max_header_bytes = 100'000'000;

struct safetensors_tensor {
  dtype type = dtype::float64;
  std::vector<std::uint64_t> shape;
  std::uint64_t count = 0;      ///< product of shape (1 for shape [])
  std::size_t data_offset = 0;  ///< from the start of the file
};

/// True if the file looks like safetensors: a plausible header length followed by '{'.
bool has_safetensors_layout(std::span<const std::byte> file);

/// Parses the header of a whole safetensors file and locates `tensor`. Throws input_error naming `name` for a
/// truncated or oversized header, malformed JSON, a malformed entry, offsets outside the data, a size that does
/// not match the shape, an unsupported dtype, or a missing tensor (the message lists the readable tensors).
safetensors_tensor parse_safetensors(std::span<const std::byte> file, const std::string& tensor,
                                     const std::string& name);

/// The same from the file's first bytes (at least the 8-byte length and the header it gives, when the file holds
/// them) and its size: a file read as a stream is checked without being read whole.
safetensors_tensor parse_safetensors(std::span<const std::byte> head, std::uint64_t file_size,
                                     const std::string& tensor, const std::string& name);

/// The names of the tensors of accepted dtypes in a safetensors file (the header is checked as by parse_safetensors).
std::vector<std::string> safetensors_float_tensors(std::span<const std::byte> file, const std::string& name);

}  // namespace detred::verify
