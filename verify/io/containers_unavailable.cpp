// SPDX-License-Identifier: BSD-3-Clause
// The NetCDF and HDF5 readers in a build without their libraries (DETRED_WITH_NETCDF_HDF5=OFF): every other format
// reads as usual, and a NetCDF or HDF5 input is refused with one line naming the file (exit status 2).
#include <string>

#include "hdf5_reader.hpp"
#include "input_error.hpp"
#include "netcdf_reader.hpp"

namespace detred::verify {
namespace {

[[noreturn]] void unavailable(const std::string& path, const char* format) {
  throw input_error(path, std::string(format) + " input needs a detred built with DETRED_WITH_NETCDF_HDF5=ON");
}

}  // namespace

std::unique_ptr<variable_reader> open_netcdf_variable(const std::string& path, const std::string&, std::uint64_t) {
  unavailable(path, "NetCDF");
}
std::unique_ptr<variable_reader> open_netcdf_variable_in_memory(const std::string& name, void*, std::size_t,
                                                                const std::string&, std::uint64_t) {
  unavailable(name, "NetCDF");
}
std::vector<std::string> netcdf_float_variables(const std::string& path) { unavailable(path, "NetCDF"); }

std::unique_ptr<variable_reader> open_hdf5_variable(const std::string& path, const std::string&, std::uint64_t) {
  unavailable(path, "HDF5");
}
std::unique_ptr<variable_reader> open_hdf5_variable_in_memory(const std::string& name, const void*, std::size_t,
                                                              const std::string&, std::uint64_t) {
  unavailable(name, "HDF5");
}
std::vector<std::string> hdf5_float_variables(const std::string& path) { unavailable(path, "HDF5"); }
void silence_hdf5_errors() {}

}  // namespace detred::verify
