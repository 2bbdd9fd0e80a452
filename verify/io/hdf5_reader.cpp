// SPDX-License-Identifier: BSD-3-Clause
// See hdf5_reader.hpp.
#include "hdf5_reader.hpp"

#include <algorithm>
#include <optional>
#include <utility>

#include <hdf5.h>

#include "input_error.hpp"
#include "variable_list.hpp"

namespace detred::verify {
namespace {

// HDF5 prints its error stack on stderr by default; the tool reports one line of its own instead.
void silence_hdf5() { silence_hdf5_errors(); }

// Closes an HDF5 identifier with the matching function.
class handle {
 public:
  using closer = herr_t (*)(hid_t);
  handle() = default;
  handle(hid_t id, closer close) : id_(id), close_(close) {}
  ~handle() {
    if (id_ >= 0 && close_ != nullptr) close_(id_);
  }
  handle(handle&& o) noexcept : id_(std::exchange(o.id_, -1)), close_(o.close_) {}
  handle& operator=(handle&& o) noexcept {
    std::swap(id_, o.id_);
    std::swap(close_, o.close_);
    return *this;
  }
  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }

 private:
  hid_t id_ = -1;
  closer close_ = nullptr;
};

// float32 or float64 in IEEE layout (sign, exponent, mantissa fields and bias), or nullopt.
std::optional<dtype> ieee_type(hid_t type) {
  if (H5Tget_class(type) != H5T_FLOAT) return std::nullopt;
  const std::size_t size = H5Tget_size(type);
  std::size_t spos = 0, epos = 0, esize = 0, mpos = 0, msize = 0;
  if (H5Tget_fields(type, &spos, &epos, &esize, &mpos, &msize) < 0) return std::nullopt;
  const std::size_t precision = H5Tget_precision(type), offset = static_cast<std::size_t>(H5Tget_offset(type));
  const std::size_t bias = H5Tget_ebias(type);
  if (size == 4 && precision == 32 && offset == 0 && spos == 31 && epos == 23 && esize == 8 && mpos == 0 &&
      msize == 23 && bias == 127) {
    return dtype::float32;
  }
  if (size == 8 && precision == 64 && offset == 0 && spos == 63 && epos == 52 && esize == 11 && mpos == 0 &&
      msize == 52 && bias == 1023) {
    return dtype::float64;
  }
  return std::nullopt;
}

std::string describe_type(hid_t type) {
  switch (H5Tget_class(type)) {
    case H5T_INTEGER:
      return "integer";
    case H5T_FLOAT:
      return "a " + std::to_string(8 * H5Tget_size(type)) + "-bit float that is not IEEE float32 or float64";
    case H5T_STRING:
      return "string";
    case H5T_COMPOUND:
      return "compound";
    case H5T_ENUM:
      return "enum";
    case H5T_ARRAY:
      return "array";
    case H5T_VLEN:
      return "variable-length";
    case H5T_REFERENCE:
      return "reference";
    case H5T_OPAQUE:
      return "opaque";
    case H5T_BITFIELD:
      return "bitfield";
    case H5T_TIME:
      return "time";
    default:
      return "unknown";
  }
}

herr_t collect_float(hid_t object, const char* name, const H5O_info_t* info, void* data) {
  if (info->type != H5O_TYPE_DATASET) return 0;
  handle d(H5Dopen2(object, name, H5P_DEFAULT), H5Dclose);
  if (!d.valid()) return 0;
  handle t(H5Dget_type(d.get()), H5Tclose);
  if (t.valid() && ieee_type(t.get())) static_cast<std::vector<std::string>*>(data)->push_back(std::string("/") + name);
  return 0;
}

std::vector<std::string> list_floats(hid_t file) {
  std::vector<std::string> names;
  H5Ovisit2(file, H5_INDEX_NAME, H5_ITER_INC, collect_float, &names, H5O_INFO_BASIC);
  return names;
}

class hdf5_variable final : public variable_reader {
 public:
  hdf5_variable(std::string path, handle file, const std::string& variable, std::uint64_t block_bytes)
      : path_(std::move(path)), name_(variable), file_(std::move(file)) {
    open(block_bytes);
  }

  dtype type() const override { return type_; }
  const std::vector<std::uint64_t>& shape() const override { return shape_; }
  std::uint64_t block_elements() const override { return block_; }
  std::vector<double> missing_values() const override { return missing_; }

  void read_block(std::uint64_t k, std::span<std::byte> out) override {
    const hid_t memory_type = type_ == dtype::float32 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
    herr_t status = 0;
    if (shape_.empty()) {
      status = H5Dread(dataset_.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data());
    } else {
      std::vector<hsize_t> start(shape_.size(), 0), count(shape_.begin(), shape_.end());
      start[0] = k * rows_;
      count[0] = std::min(rows_, shape_[0] - k * rows_);
      handle file_space(H5Dget_space(dataset_.get()), H5Sclose);
      const hsize_t elements = out.size() / item_size(type_);
      handle memory_space(H5Screate_simple(1, &elements, nullptr), H5Sclose);
      status = file_space.valid() && memory_space.valid()
                   ? H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr)
                   : -1;
      if (status >= 0) {
        status = H5Dread(dataset_.get(), memory_type, memory_space.get(), file_space.get(), H5P_DEFAULT, out.data());
      }
    }
    if (status < 0) throw input_error(path_, "dataset '" + name_ + "': cannot read (HDF5 read error)");
  }

 private:
  void open(std::uint64_t block_bytes) {
    if (name_.empty() || H5Oexists_by_name(file_.get(), name_.c_str(), H5P_DEFAULT) <= 0) {
      throw input_error(
          path_, "no dataset '" + name_ + "' (" + describe_variables("float datasets", list_floats(file_.get())) + ")");
    }
    H5O_info_t info{};
    if (H5Oget_info_by_name2(file_.get(), name_.c_str(), &info, H5O_INFO_BASIC, H5P_DEFAULT) < 0 ||
        info.type != H5O_TYPE_DATASET) {
      throw input_error(path_, "'" + name_ + "' is " + (info.type == H5O_TYPE_GROUP ? "a group" : "not a dataset") +
                                   ", not a dataset of floats (" +
                                   describe_variables("float datasets", list_floats(file_.get())) + ")");
    }
    dataset_ = handle(H5Dopen2(file_.get(), name_.c_str(), H5P_DEFAULT), H5Dclose);
    if (!dataset_.valid()) throw input_error(path_, "dataset '" + name_ + "': cannot open (HDF5 error)");
    handle t(H5Dget_type(dataset_.get()), H5Tclose);
    const std::optional<dtype> ieee = t.valid() ? ieee_type(t.get()) : std::nullopt;
    if (!ieee) {
      throw input_error(path_, "dataset '" + name_ + "' has type " + (t.valid() ? describe_type(t.get()) : "unknown") +
                                   " (supported: IEEE float32, float64)");
    }
    type_ = *ieee;
    handle space(H5Dget_space(dataset_.get()), H5Sclose);
    const H5S_class_t space_class = space.valid() ? H5Sget_simple_extent_type(space.get()) : H5S_NO_CLASS;
    if (space_class == H5S_NULL) {
      shape_ = {0};
    } else if (space_class == H5S_SIMPLE) {
      const int rank = H5Sget_simple_extent_ndims(space.get());
      std::vector<hsize_t> dims(static_cast<std::size_t>(std::max(rank, 0)));
      if (rank < 0 || H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr) < 0) {
        throw input_error(path_, "dataset '" + name_ + "': cannot read its shape (HDF5 error)");
      }
      shape_.assign(dims.begin(), dims.end());
    } else if (space_class != H5S_SCALAR) {
      throw input_error(path_, "dataset '" + name_ + "': cannot read its shape (HDF5 error)");
    }
    handle plist(H5Dget_create_plist(dataset_.get()), H5Pclose);
    std::uint64_t rows_per_chunk = 1;
    if (plist.valid() && !shape_.empty() && H5Pget_layout(plist.get()) == H5D_CHUNKED) {
      std::vector<hsize_t> chunk(shape_.size(), 0);
      if (H5Pget_chunk(plist.get(), static_cast<int>(chunk.size()), chunk.data()) == static_cast<int>(chunk.size()) &&
          chunk[0] > 0) {
        rows_per_chunk = chunk[0];
      }
    }
    rows_ = rows_per_block(shape_, rows_per_chunk, item_size(type_), block_bytes);
    block_ = elements_in_rows(shape_, rows_);
    if (plist.valid()) read_missing(plist.get());
  }

  void add_missing(double v) {
    if (std::find(missing_.begin(), missing_.end(), v) == missing_.end()) missing_.push_back(v);
  }

  void read_missing(hid_t plist) {
    const hid_t memory_type = type_ == dtype::float32 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
    H5D_fill_value_t defined = H5D_FILL_VALUE_UNDEFINED;
    if (H5Pfill_value_defined(plist, &defined) >= 0 && defined == H5D_FILL_VALUE_USER_DEFINED) {
      double d = 0;
      float f = 0;
      if (H5Pget_fill_value(plist, memory_type, type_ == dtype::float32 ? static_cast<void*>(&f) : &d) >= 0) {
        add_missing(type_ == dtype::float32 ? f : d);
      }
    }
    for (const char* attribute : {"_FillValue", "missing_value"}) {
      if (H5Aexists(dataset_.get(), attribute) <= 0) continue;
      handle a(H5Aopen(dataset_.get(), attribute, H5P_DEFAULT), H5Aclose);
      if (!a.valid()) continue;
      handle t(H5Aget_type(a.get()), H5Tclose);
      handle s(H5Aget_space(a.get()), H5Sclose);
      if (!t.valid() || !s.valid() || (H5Tget_class(t.get()) != H5T_FLOAT && H5Tget_class(t.get()) != H5T_INTEGER))
        continue;
      const hssize_t n = H5Sget_simple_extent_npoints(s.get());
      if (n <= 0 || n > 1024) continue;
      if (type_ == dtype::float32) {
        std::vector<float> v(static_cast<std::size_t>(n));
        if (H5Aread(a.get(), H5T_NATIVE_FLOAT, v.data()) >= 0) {
          for (float x : v) add_missing(x);
        }
      } else {
        std::vector<double> v(static_cast<std::size_t>(n));
        if (H5Aread(a.get(), H5T_NATIVE_DOUBLE, v.data()) >= 0) {
          for (double x : v) add_missing(x);
        }
      }
    }
  }

  std::string path_;
  std::string name_;
  handle file_;
  handle dataset_;
  dtype type_ = dtype::float64;
  std::vector<std::uint64_t> shape_;
  std::uint64_t rows_ = 1;
  std::uint64_t block_ = 1;
  std::vector<double> missing_;
};

handle open_file(const std::string& path) {
  silence_hdf5();
  handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!file.valid()) throw input_error(path, "cannot open as HDF5 (not an HDF5 file, or a damaged one)");
  return file;
}

}  // namespace

std::unique_ptr<variable_reader> open_hdf5_variable(const std::string& path, const std::string& variable,
                                                    std::uint64_t block_bytes) {
  return std::make_unique<hdf5_variable>(path, open_file(path), variable, block_bytes);
}

std::unique_ptr<variable_reader> open_hdf5_variable_in_memory(const std::string& name, const void* bytes,
                                                              std::size_t size, const std::string& variable,
                                                              std::uint64_t block_bytes) {
  silence_hdf5();
  handle access(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  H5Pset_fapl_core(access.get(), 1 << 20, 0);
  H5Pset_file_image(access.get(), const_cast<void*>(bytes), size);
  handle file(H5Fopen(name.c_str(), H5F_ACC_RDONLY, access.get()), H5Fclose);
  if (!file.valid()) throw input_error(name, "cannot open as HDF5 (not an HDF5 file, or a damaged one)");
  return std::make_unique<hdf5_variable>(name, std::move(file), variable, block_bytes);
}

void silence_hdf5_errors() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

std::vector<std::string> hdf5_float_variables(const std::string& path) { return list_floats(open_file(path).get()); }

}  // namespace detred::verify
