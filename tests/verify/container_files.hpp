// SPDX-License-Identifier: BSD-3-Clause
// Test files written with the NetCDF and HDF5 C libraries and by hand for safetensors: the layouts the readers
// must accept, built the way other programs build them.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <hdf5.h>
#include <netcdf.h>
#include <nlohmann/json.hpp>

#include "temp_files.hpp"

namespace detred::verify::testing {

inline void nc_check(int status) {
  if (status != NC_NOERR) throw std::runtime_error(std::string("netcdf: ") + nc_strerror(status));
}

struct netcdf_layout {
  int cmode = NC_NETCDF4;               ///< 0 (classic), NC_64BIT_OFFSET, NC_64BIT_DATA, NC_NETCDF4
  std::vector<std::size_t> chunks{};    ///< netCDF-4 only; empty: contiguous
  int deflate = 0;                      ///< netCDF-4 only: zlib level
  bool shuffle = false;                 ///< netCDF-4 only
  std::string group{};                  ///< netCDF-4 only: "g" or "g/sub"
  bool unlimited_first = false;         ///< the first dimension is the record dimension
  std::optional<double> fill{};         ///< a _FillValue attribute
  std::vector<double> missing_value{};  ///< a missing_value attribute
  std::size_t written = SIZE_MAX;       ///< write only this many leading rows (fixed dimensions: the rest is fill)
};

/// Writes variable `name` (double or float values, row-major) with the given shape and layout; returns the path.
template <class T>
std::string write_netcdf(const std::string& file, const std::string& name, const std::vector<std::size_t>& shape,
                         const std::vector<T>& values, const netcdf_layout& layout = {}) {
  const std::string path = (scratch_dir() / file).string();
  int ncid = -1;
  nc_check(nc_create(path.c_str(), NC_CLOBBER | layout.cmode, &ncid));
  int group = ncid;
  std::string rest = layout.group;
  while (!rest.empty()) {
    const std::size_t slash = rest.find('/');
    const std::string g = rest.substr(0, slash);
    nc_check(nc_def_grp(group, g.c_str(), &group));
    rest = slash == std::string::npos ? "" : rest.substr(slash + 1);
  }
  std::vector<int> dims;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    int id = -1;
    const std::string dim_name = name + "_d" + std::to_string(d);
    nc_check(nc_def_dim(group, dim_name.c_str(), d == 0 && layout.unlimited_first ? NC_UNLIMITED : shape[d], &id));
    dims.push_back(id);
  }
  const nc_type type = sizeof(T) == 4 ? NC_FLOAT : NC_DOUBLE;
  int var = -1;
  nc_check(nc_def_var(group, name.c_str(), type, static_cast<int>(dims.size()), dims.data(), &var));
  if (!layout.chunks.empty()) nc_check(nc_def_var_chunking(group, var, NC_CHUNKED, layout.chunks.data()));
  if (layout.deflate > 0 || layout.shuffle) {
    nc_check(nc_def_var_deflate(group, var, layout.shuffle, layout.deflate > 0, layout.deflate));
  }
  if (layout.fill) {
    const T f = static_cast<T>(*layout.fill);
    nc_check(nc_put_att(group, var, "_FillValue", type, 1, &f));
  }
  if (!layout.missing_value.empty()) {
    nc_check(
        nc_put_att_double(group, var, "missing_value", type, layout.missing_value.size(), layout.missing_value.data()));
  }
  nc_check(nc_enddef(ncid));
  if (shape.empty()) {
    nc_check(nc_put_var(group, var, values.data()));
  } else {
    std::vector<std::size_t> start(shape.size(), 0), count = shape;
    count[0] = std::min(count[0], layout.written);
    if (count[0] > 0) nc_check(nc_put_vara(group, var, start.data(), count.data(), values.data()));
  }
  nc_check(nc_close(ncid));
  return path;
}

inline void h5_check(std::int64_t status) {
  if (status < 0) throw std::runtime_error("hdf5 call failed");
}

struct hdf5_layout {
  hid_t file_type = -1;           ///< e.g. H5T_IEEE_F64BE; default: the native type of the values
  std::vector<hsize_t> chunks{};  ///< empty: contiguous
  int gzip = 0;                   ///< deflate level (chunked only)
  bool shuffle = false;
  std::optional<double> fill{};         ///< a user-defined fill value
  std::vector<double> missing_value{};  ///< a missing_value attribute (float64)
  bool scalar = false;                  ///< a scalar dataspace
};

/// Creates the groups on the way to `dataset` ("/g/sub/x") and writes the values; returns the path.
template <class T>
std::string write_hdf5(const std::string& file, const std::string& dataset, const std::vector<hsize_t>& shape,
                       const std::vector<T>& values, const hdf5_layout& layout = {}) {
  const std::string path = (scratch_dir() / file).string();
  const hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  h5_check(f);
  const hid_t links = H5Pcreate(H5P_LINK_CREATE);
  H5Pset_create_intermediate_group(links, 1);
  const hid_t space =
      layout.scalar ? H5Screate(H5S_SCALAR) : H5Screate_simple(static_cast<int>(shape.size()), shape.data(), nullptr);
  const hid_t create = H5Pcreate(H5P_DATASET_CREATE);
  if (!layout.chunks.empty()) {
    h5_check(H5Pset_chunk(create, static_cast<int>(layout.chunks.size()), layout.chunks.data()));
    if (layout.shuffle) h5_check(H5Pset_shuffle(create));
    if (layout.gzip > 0) h5_check(H5Pset_deflate(create, static_cast<unsigned>(layout.gzip)));
  }
  const hid_t memory_type = sizeof(T) == 4 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
  if (layout.fill) {
    const T fill = static_cast<T>(*layout.fill);
    h5_check(H5Pset_fill_value(create, memory_type, &fill));
  }
  const hid_t type = layout.file_type >= 0 ? layout.file_type : memory_type;
  const hid_t d = H5Dcreate2(f, dataset.c_str(), type, space, links, create, H5P_DEFAULT);
  h5_check(d);
  if (!values.empty()) h5_check(H5Dwrite(d, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()));
  if (!layout.missing_value.empty()) {
    const hsize_t n = layout.missing_value.size();
    const hid_t as = H5Screate_simple(1, &n, nullptr);
    const hid_t a = H5Acreate2(d, "missing_value", H5T_IEEE_F64LE, as, H5P_DEFAULT, H5P_DEFAULT);
    h5_check(H5Awrite(a, H5T_NATIVE_DOUBLE, layout.missing_value.data()));
    H5Aclose(a);
    H5Sclose(as);
  }
  H5Dclose(d);
  H5Pclose(create);
  H5Sclose(space);
  H5Pclose(links);
  H5Fclose(f);
  return path;
}

/// A dataset of another type (integers, a compound, a long double...) written from raw bytes of `memory_type`.
inline std::string write_hdf5_typed(const std::string& file, const std::string& dataset, hid_t file_type,
                                    hid_t memory_type, hsize_t n, const void* data) {
  const std::string path = (scratch_dir() / file).string();
  const hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  const hid_t space = H5Screate_simple(1, &n, nullptr);
  const hid_t d = H5Dcreate2(f, dataset.c_str(), file_type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  h5_check(H5Dwrite(d, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data));
  H5Dclose(d);
  H5Sclose(space);
  H5Fclose(f);
  return path;
}

/// safetensors bytes: the 8-byte length, the header (padded with spaces to `pad_to` bytes when given), the data.
inline std::string safetensors_bytes(const nlohmann::json& header, const std::string& data, std::size_t pad_to = 8) {
  std::string text = header.dump();
  if (pad_to > 1) text.append((pad_to - text.size() % pad_to) % pad_to, ' ');
  std::string out;
  for (int i = 0; i < 8; ++i) out += static_cast<char>((text.size() >> (8 * i)) & 0xff);
  return out + text + data;
}

}  // namespace detred::verify::testing
