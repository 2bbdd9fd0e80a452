// SPDX-License-Identifier: BSD-3-Clause
// See netcdf_reader.hpp.
#include "netcdf_reader.hpp"

#include <cstring>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include <netcdf.h>
#include <netcdf_mem.h>

#include "input_error.hpp"
#include "mapped_file.hpp"
#include "netcdf_classic.hpp"
#include "variable_list.hpp"

namespace detred::verify {
namespace {

// Every float variable of group `group` and its subgroups, as "a/b/name" paths.
void list_floats(int group, const std::string& prefix, std::vector<std::string>& out) {
  int count = 0;
  if (nc_inq_varids(group, &count, nullptr) != NC_NOERR) return;
  std::vector<int> ids(static_cast<std::size_t>(count));
  nc_inq_varids(group, &count, ids.data());
  for (int id : ids) {
    char name[NC_MAX_NAME + 1] = {};
    nc_type type = NC_NAT;
    if (nc_inq_var(group, id, name, &type, nullptr, nullptr, nullptr) != NC_NOERR) continue;
    if (type == NC_FLOAT || type == NC_DOUBLE) out.push_back(prefix + name);
  }
  int groups = 0;
  if (nc_inq_grps(group, &groups, nullptr) != NC_NOERR || groups <= 0) return;
  std::vector<int> gids(static_cast<std::size_t>(groups));
  nc_inq_grps(group, &groups, gids.data());
  for (int g : gids) {
    char name[NC_MAX_NAME + 1] = {};
    if (nc_inq_grpname(g, name) == NC_NOERR) list_floats(g, prefix + name + "/", out);
  }
}

const char* type_name(nc_type t) {
  switch (t) {
    case NC_BYTE:
      return "byte";
    case NC_CHAR:
      return "char";
    case NC_SHORT:
      return "short";
    case NC_INT:
      return "int";
    case NC_UBYTE:
      return "ubyte";
    case NC_USHORT:
      return "ushort";
    case NC_UINT:
      return "uint";
    case NC_INT64:
      return "int64";
    case NC_UINT64:
      return "uint64";
    case NC_STRING:
      return "string";
    default:
      return "a user-defined type";
  }
}

class netcdf_variable final : public variable_reader {
 public:
  netcdf_variable(std::string path, int ncid, const std::string& variable, std::uint64_t block_bytes)
      : path_(std::move(path)), ncid_(ncid) {
    try {
      open(variable, block_bytes);
    } catch (...) {
      nc_close(ncid_);
      throw;
    }
  }
  ~netcdf_variable() override { nc_close(ncid_); }
  netcdf_variable(const netcdf_variable&) = delete;
  netcdf_variable& operator=(const netcdf_variable&) = delete;

  dtype type() const override { return type_; }
  const std::vector<std::uint64_t>& shape() const override { return shape_; }
  std::uint64_t block_elements() const override { return block_; }
  std::vector<double> missing_values() const override { return missing_; }

  void read_block(std::uint64_t k, std::span<std::byte> out) override {
    int status = NC_NOERR;
    if (shape_.empty()) {
      status = type_ == dtype::float32 ? nc_get_var_float(group_, varid_, reinterpret_cast<float*>(out.data()))
                                       : nc_get_var_double(group_, varid_, reinterpret_cast<double*>(out.data()));
    } else {
      std::vector<std::size_t> start(shape_.size(), 0), count(shape_.begin(), shape_.end());
      start[0] = static_cast<std::size_t>(k * rows_);
      count[0] = static_cast<std::size_t>(std::min(rows_, shape_[0] - k * rows_));
      status =
          type_ == dtype::float32
              ? nc_get_vara_float(group_, varid_, start.data(), count.data(), reinterpret_cast<float*>(out.data()))
              : nc_get_vara_double(group_, varid_, start.data(), count.data(), reinterpret_cast<double*>(out.data()));
    }
    if (status != NC_NOERR) throw input_error(path_, "variable '" + name_ + "': cannot read: " + nc_strerror(status));
  }

 private:
  void open(const std::string& variable, std::uint64_t block_bytes) {
    name_ = variable;
    group_ = ncid_;
    std::string leaf = variable;
    const std::size_t slash = variable.rfind('/');
    if (slash != std::string::npos) {
      std::string groups = variable.substr(0, slash);
      leaf = variable.substr(slash + 1);
      if (!groups.empty()) {
        if (groups[0] != '/') groups.insert(groups.begin(), '/');
        if (nc_inq_grp_full_ncid(ncid_, groups.c_str(), &group_) != NC_NOERR) missing();
      }
    }
    if (leaf.empty() || nc_inq_varid(group_, leaf.c_str(), &varid_) != NC_NOERR) missing();
    nc_type t = NC_NAT;
    int rank = 0;
    nc_inq_vartype(group_, varid_, &t);
    nc_inq_varndims(group_, varid_, &rank);
    if (t != NC_FLOAT && t != NC_DOUBLE) {
      throw input_error(path_, "variable '" + variable + "' has type " + type_name(t) + " (supported: float, double)");
    }
    type_ = t == NC_FLOAT ? dtype::float32 : dtype::float64;
    std::vector<int> dims(static_cast<std::size_t>(rank));
    nc_inq_vardimid(group_, varid_, dims.data());
    for (int d : dims) {
      std::size_t len = 0;
      nc_inq_dimlen(group_, d, &len);
      shape_.push_back(len);
    }
    std::uint64_t rows_per_chunk = 1;
    int storage = NC_CONTIGUOUS;
    std::vector<std::size_t> chunks(static_cast<std::size_t>(rank) + 1, 0);
    if (rank > 0 && nc_inq_var_chunking(group_, varid_, &storage, chunks.data()) == NC_NOERR && storage == NC_CHUNKED &&
        chunks[0] > 0) {
      rows_per_chunk = chunks[0];
    }
    rows_ = rows_per_block(shape_, rows_per_chunk, item_size(type_), block_bytes);
    block_ = elements_in_rows(shape_, rows_);
    read_missing();
  }

  [[noreturn]] void missing() const {
    std::vector<std::string> names;
    list_floats(ncid_, "", names);
    throw input_error(path_, "no variable '" + name_ + "' (" + describe_variables("float variables", names) + ")");
  }

  void read_missing() {
    int no_fill = 0;
    double fill = 0;
    if (type_ == dtype::float32) {
      float f = 0;
      if (nc_inq_var_fill(group_, varid_, &no_fill, &f) == NC_NOERR && !no_fill) missing_.push_back(f);
    } else if (nc_inq_var_fill(group_, varid_, &no_fill, &fill) == NC_NOERR && !no_fill) {
      missing_.push_back(fill);
    }
    nc_type att_type = NC_NAT;
    std::size_t len = 0;
    if (nc_inq_att(group_, varid_, "missing_value", &att_type, &len) == NC_NOERR && len > 0 && att_type != NC_CHAR &&
        att_type != NC_STRING) {
      // Read in the variable's own type: the values that can appear in the data.
      if (type_ == dtype::float32) {
        std::vector<float> v(len);
        if (nc_get_att_float(group_, varid_, "missing_value", v.data()) == NC_NOERR) {
          missing_.insert(missing_.end(), v.begin(), v.end());
        }
      } else {
        std::vector<double> v(len);
        if (nc_get_att_double(group_, varid_, "missing_value", v.data()) == NC_NOERR) {
          missing_.insert(missing_.end(), v.begin(), v.end());
        }
      }
    }
  }

  std::string path_;
  std::string name_;
  int ncid_ = -1;
  int group_ = -1;
  int varid_ = -1;
  dtype type_ = dtype::float64;
  std::vector<std::uint64_t> shape_;
  std::uint64_t rows_ = 1;
  std::uint64_t block_ = 1;
  std::vector<double> missing_;
};

/// Throws input_error if the classic, 64-bit offset or CDF-5 file `bytes` is shorter than its header says (the NetCDF
/// library would read the missing data as zeros: netcdf_classic.hpp). netCDF-4 files are left to HDF5.
void check_classic_size(const std::string& path, int ncid, std::span<const std::byte> bytes) {
  int format = 0;
  if (nc_inq_format(ncid, &format) != NC_NOERR ||
      (format != NC_FORMAT_CLASSIC && format != NC_FORMAT_64BIT_OFFSET && format != NC_FORMAT_CDF5))
    return;
  const std::optional<std::uint64_t> needed = classic_netcdf_extent(bytes);
  if (needed && *needed > bytes.size()) {
    throw input_error(path, "truncated NetCDF file: its header places data up to byte " + std::to_string(*needed) +
                                ", the file has " + std::to_string(bytes.size()) + " bytes");
  }
}

}  // namespace

std::unique_ptr<variable_reader> open_netcdf_variable(const std::string& path, const std::string& variable,
                                                      std::uint64_t block_bytes) {
  int ncid = -1;
  const int status = nc_open(path.c_str(), NC_NOWRITE, &ncid);
  if (status != NC_NOERR) throw input_error(path, std::string("cannot open as NetCDF: ") + nc_strerror(status));
  try {
    const mapped_file file(path);  // mapped, not read: only the header's pages are touched
    check_classic_size(path, ncid, file.bytes());
  } catch (...) {
    nc_close(ncid);
    throw;
  }
  return std::make_unique<netcdf_variable>(path, ncid, variable, block_bytes);
}

std::unique_ptr<variable_reader> open_netcdf_variable_in_memory(const std::string& name, void* bytes, std::size_t size,
                                                                const std::string& variable,
                                                                std::uint64_t block_bytes) {
  int ncid = -1;
  const int status = nc_open_mem(name.c_str(), NC_NOWRITE, size, bytes, &ncid);
  if (status != NC_NOERR) throw input_error(name, std::string("cannot open as NetCDF: ") + nc_strerror(status));
  try {
    check_classic_size(name, ncid, std::span<const std::byte>(static_cast<const std::byte*>(bytes), size));
  } catch (...) {
    nc_close(ncid);
    throw;
  }
  return std::make_unique<netcdf_variable>(name, ncid, variable, block_bytes);
}

std::vector<std::string> netcdf_float_variables(const std::string& path) {
  int ncid = -1;
  const int status = nc_open(path.c_str(), NC_NOWRITE, &ncid);
  if (status != NC_NOERR) throw input_error(path, std::string("cannot open as NetCDF: ") + nc_strerror(status));
  std::vector<std::string> names;
  list_floats(ncid, "", names);
  nc_close(ncid);
  return names;
}

}  // namespace detred::verify
