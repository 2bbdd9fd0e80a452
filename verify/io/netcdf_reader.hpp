// SPDX-License-Identifier: BSD-3-Clause
// NetCDF variables (classic, 64-bit offset, CDF-5 and netCDF-4 files), read with the NetCDF C library.
//
// The variable is named by its name, or by a path through netCDF-4 groups ("group/sub/var"). Types: NC_FLOAT
// (float32) and NC_DOUBLE (float64). Blocks are whole chunks along the first dimension (nc_get_vara), so that a
// compressed chunk is decoded once. Missing values: the fill value (the _FillValue attribute, or NetCDF's default
// fill value unless the variable is in no-fill mode) and every value of a missing_value attribute.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "variable_reader.hpp"

namespace detred::verify {

/// Opens `variable` of the NetCDF file `path`. Throws input_error naming `path` for a file NetCDF cannot open, a
/// missing variable (the message lists the file's float variables), or an unsupported type.
std::unique_ptr<variable_reader> open_netcdf_variable(const std::string& path, const std::string& variable,
                                                      std::uint64_t block_bytes = default_block_bytes);

/// The same, from a file image in memory (nc_open_mem); the bytes must outlive the reader.
std::unique_ptr<variable_reader> open_netcdf_variable_in_memory(const std::string& name, void* bytes, std::size_t size,
                                                                const std::string& variable,
                                                                std::uint64_t block_bytes = default_block_bytes);

/// The float32 and float64 variables of a NetCDF file, with their group paths. Throws input_error.
std::vector<std::string> netcdf_float_variables(const std::string& path);

}  // namespace detred::verify
