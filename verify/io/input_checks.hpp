// SPDX-License-Identifier: BSD-3-Clause
// What read_dataset checks before it reads an element, shared with the streaming reader (element_stream.hpp) so that
// both refuse the same inputs with the same messages. Each throws input_error naming the file.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "dataset.hpp"
#include "input_spec.hpp"
#include "npy.hpp"
#include "safetensors.hpp"

namespace detred::verify {

/// The input's format (detected, or options.format), after checking that the file exists, is not empty or a
/// directory, and names a variable exactly when its format has variables.
file_format checked_format(const input_spec& spec, const read_options& options);
/// The .npy header from the file's head and size, checked against --dtype (and V2 without --dtype bfloat16).
npy_header checked_npy_header(std::span<const std::byte> head, std::uint64_t file_size, const std::string& path,
                              const read_options& options);
/// A raw file's element type: --dtype, required, and a file size that is a whole number of elements.
dtype checked_raw_type(std::uint64_t file_size, const std::string& path, const read_options& options);
/// A text file's element type: float64, or --dtype float32.
dtype checked_text_type(const std::string& path, const read_options& options);
/// The safetensors tensor, checked against --dtype.
safetensors_tensor checked_tensor(std::span<const std::byte> head, std::uint64_t file_size, const input_spec& spec,
                                  const read_options& options);
/// A NetCDF or HDF5 variable's type checked against --dtype.
void check_variable_type(const std::string& path, const std::string& variable, dtype type, const read_options& options);

}  // namespace detred::verify
