// SPDX-License-Identifier: BSD-3-Clause
// One input, read in whichever format it has, exposed as a span of the element type the library reduces.
//
// An input is a whole file (.npy, raw, text) or a variable in a file (FILE:VARIABLE: a NetCDF or HDF5 variable, a
// safetensors tensor). .npy, raw and safetensors files are memory-mapped and their elements read in place (the
// data is never copied), except big-endian data, data misaligned for its type, and int8, int16, uint8 and uint16
// elements (widened exactly to int32 or uint32), which are converted into memory. Text files are parsed into memory.
// NetCDF and HDF5 variables are read block by block (whole chunks) into one buffer: the variable must fit in memory.
// Inputs larger than memory are read chunk by chunk instead (element_stream.hpp).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "detred/number_types.hpp"
#include "dtype.hpp"
#include "mapped_file.hpp"

namespace detred::verify {

enum class file_format { automatic, npy, raw, text, netcdf, hdf5, safetensors };
const char* to_string(file_format f);
/// "auto", "npy", "raw", "text", "netcdf", "hdf5", "safetensors"; nullopt otherwise.
std::optional<file_format> parse_file_format(const std::string& name);

struct read_options {
  file_format format = file_format::automatic;
  std::optional<dtype> type{};  ///< required for raw files; for text files the default is float64
  /// Text files only: the CSV column (index or name); empty = one number per line. Two columns "A,B" read the x and
  /// y of a dot product (dataset::columns()).
  std::string column{};
  bool skip_missing = false;  ///< NetCDF and HDF5 variables: drop the elements equal to a fill or missing value
};

class dataset {
 public:
  using values_type =
      std::variant<std::span<const float>, std::span<const double>, std::span<const float16>, std::span<const bfloat16>,
                   std::span<const std::int32_t>, std::span<const std::int64_t>, std::span<const std::uint32_t>,
                   std::span<const std::uint64_t>>;

  /// The input as named: FILE or FILE:VARIABLE.
  const std::string& path() const { return path_; }
  const std::string& file() const { return file_name_; }
  /// The variable or tensor; empty for a whole file.
  const std::string& variable() const { return variable_; }
  file_format format() const { return format_; }
  /// The stored element type; values() holds reduced_type(type()).
  dtype type() const { return type_; }
  std::uint64_t size() const;
  values_type values() const { return values_; }
  /// The shape as stored (.npy and safetensors), {rows, 2} for two text columns, {n} otherwise.
  const std::vector<std::uint64_t>& shape() const { return shape_; }
  /// True if the input holds both operands of a dot product: a .npy array of shape (n, 2) (x its column 0, y its
  /// column 1, as np.column_stack((x, y)) writes them) or a text file read with two columns.
  bool holds_pair() const;
  /// x and y of such an input (deinterleaved into memory at the first call); throws std::logic_error otherwise.
  std::array<values_type, 2> columns() const;
  /// The bytes a golden file's SHA-256 covers: every byte of a whole file; for a variable or tensor, its elements
  /// as reduced (little-endian, storage order, after --skip-missing).
  std::span<const std::byte> digest_bytes() const;
  /// The fill and missing values of a NetCDF or HDF5 variable (empty otherwise), the number of elements equal to
  /// one of them, and whether they were dropped (read_options::skip_missing) or reduced as stored.
  const std::vector<double>& missing_values() const { return missing_values_; }
  std::uint64_t missing_count() const { return missing_count_; }
  bool missing_skipped() const { return missing_skipped_; }
  /// True if the elements are read from the mapped file in place.
  bool mapped_in_place() const { return in_place_; }

 private:
  friend dataset read_dataset(const std::string& path, const read_options& options);
  friend class element_stream;  // describes a streamed input with a dataset that holds no elements
  dataset() = default;
  template <class T>
  std::span<const std::byte> little_endian_bytes(std::span<const T> values);

  std::string path_;
  std::string file_name_;
  std::string variable_;
  std::optional<mapped_file> file_;
  std::span<const std::byte> digest_;
  std::vector<std::byte> digest_copy_;  // big-endian hosts only: the elements in little-endian order
  std::vector<double> missing_values_;
  std::uint64_t missing_count_ = 0;
  bool missing_skipped_ = false;
  file_format format_ = file_format::npy;
  dtype type_ = dtype::float64;
  bool in_place_ = true;
  std::vector<float> floats_;
  std::vector<double> doubles_;
  std::vector<std::byte> decoded_;  // converted binary elements (reduced type), when they are not read in place
  values_type values_;
  std::vector<std::uint64_t> shape_;
  std::optional<std::array<values_type, 2>> text_pair_;  // two text columns: x is values_, y lives in y_*
  std::vector<float> y_floats_;
  std::vector<double> y_doubles_;
  mutable std::optional<std::array<values_type, 2>> pair_;  // deinterleaved (n, 2) columns, made on first use
  mutable std::array<std::vector<std::byte>, 2> pair_storage_;
};

/// Reads an input: FILE or FILE:VARIABLE (see input_spec.hpp). Format automatic: the .npy magic string means .npy;
/// a NetCDF signature (or an HDF5 one in a .nc file) means NetCDF, an HDF5 signature (or a .h5/.hdf5 name) HDF5, a
/// .safetensors name or layout safetensors; otherwise .txt, .csv and .tsv files are text and .npy files without
/// the magic are an error; anything else is raw when a dtype is given. NetCDF, HDF5 and safetensors inputs must
/// name a variable; the others must not. Throws input_error.
dataset read_dataset(const std::string& path, const read_options& options);

}  // namespace detred::verify
