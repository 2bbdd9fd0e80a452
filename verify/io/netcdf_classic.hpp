// SPDX-License-Identifier: BSD-3-Clause
// The size a classic-format NetCDF file (CDF-1 classic, CDF-2 64-bit offset, CDF-5) must have, read from its header.
//
// Why: the NetCDF C library reads a classic file's variables at the offsets its header gives and does not check that
// the file reaches them; the bytes of a truncated file read as zeros or garbage, with no error. The header says where
// each variable's data lie, so the size they need is known before any read. (netCDF-4 files are HDF5 files, whose
// library refuses a truncated one.) The format:
// https://docs.unidata.ucar.edu/netcdf-c/current/file_format_specifications.html
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace detred::verify {

/// The least size in bytes that holds every variable's data as the header of the classic, 64-bit offset or CDF-5
/// file `file` places them (the records counted by the header's numrecs). nullopt if `file` does not start with a
/// classic header this parser reads to the end (not a classic file, or one the NetCDF library will refuse itself),
/// or for a header in streaming mode (numrecs unknown).
std::optional<std::uint64_t> classic_netcdf_extent(std::span<const std::byte> file);

}  // namespace detred::verify
