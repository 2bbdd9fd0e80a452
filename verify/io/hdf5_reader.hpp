// SPDX-License-Identifier: BSD-3-Clause
// HDF5 datasets, read with the HDF5 C library.
//
// The dataset is named by its path inside the file ("/group/name" or "group/name"). Types: IEEE float32 and
// float64 of either byte order (HDF5 converts the byte order only, which is exact). Blocks are whole chunks along
// the first dimension (a hyperslab per block), so that a compressed chunk is decoded once. Missing values: the
// dataset's user-defined fill value, and every value of a _FillValue or missing_value attribute.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "variable_reader.hpp"

namespace detred::verify {

/// Opens the dataset at `variable` in the HDF5 file `path`. Throws input_error naming `path` for a file HDF5
/// cannot open, a missing dataset (the message lists the file's float datasets), a group, or an unsupported type.
std::unique_ptr<variable_reader> open_hdf5_variable(const std::string& path, const std::string& variable,
                                                    std::uint64_t block_bytes = default_block_bytes);

/// The same, from a file image in memory (HDF5's core driver); the bytes are copied.
std::unique_ptr<variable_reader> open_hdf5_variable_in_memory(const std::string& name, const void* bytes,
                                                              std::size_t size, const std::string& variable,
                                                              std::uint64_t block_bytes = default_block_bytes);

/// Turns off HDF5's printing of its error stack in the calling thread (the library, thread-safe in Debian, keeps
/// that setting per thread): the tool reports one line of its own. The readers call it on the thread that opens a
/// file; a thread that reads blocks later (element_stream's reading thread, through NetCDF too) calls it again.
void silence_hdf5_errors();

/// The paths of the float32 and float64 datasets of an HDF5 file. Throws input_error.
std::vector<std::string> hdf5_float_variables(const std::string& path);

}  // namespace detred::verify
