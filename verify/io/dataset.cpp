// SPDX-License-Identifier: BSD-3-Clause
// See dataset.hpp.
#include "dataset.hpp"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include <unistd.h>

#include "element_decode.hpp"
#include "hdf5_reader.hpp"
#include "input_checks.hpp"
#include "input_error.hpp"
#include "input_spec.hpp"
#include "netcdf_reader.hpp"
#include "npy.hpp"
#include "safetensors.hpp"
#include "text.hpp"
#include "variable_list.hpp"

namespace detred::verify {

const char* to_string(file_format f) {
  switch (f) {
    case file_format::automatic:
      return "auto";
    case file_format::npy:
      return "npy";
    case file_format::raw:
      return "raw";
    case file_format::text:
      return "text";
    case file_format::netcdf:
      return "netcdf";
    case file_format::hdf5:
      return "hdf5";
    case file_format::safetensors:
      return "safetensors";
  }
  return "unknown";
}

std::optional<file_format> parse_file_format(const std::string& name) {
  if (name == "auto") return file_format::automatic;
  if (name == "npy") return file_format::npy;
  if (name == "raw") return file_format::raw;
  if (name == "text") return file_format::text;
  if (name == "netcdf") return file_format::netcdf;
  if (name == "hdf5") return file_format::hdf5;
  if (name == "safetensors") return file_format::safetensors;
  return std::nullopt;
}

std::span<const std::byte> dataset::digest_bytes() const { return digest_; }

template <class T>
std::span<const std::byte> dataset::little_endian_bytes(std::span<const T> values) {
  if constexpr (std::endian::native == std::endian::little) {
    return std::as_bytes(values);
  } else {
    digest_copy_.resize(values.size_bytes());
    for (std::size_t k = 0; k < values.size(); ++k) {
      const auto* p = reinterpret_cast<const std::byte*>(&values[k]);
      std::reverse_copy(p, p + sizeof(T), digest_copy_.begin() + static_cast<std::ptrdiff_t>(k * sizeof(T)));
    }
    return digest_copy_;
  }
}

std::uint64_t dataset::size() const {
  return std::visit([](auto s) { return static_cast<std::uint64_t>(s.size()); }, values_);
}

bool dataset::holds_pair() const {
  return text_pair_.has_value() || (format_ == file_format::npy && shape_.size() == 2 && shape_[1] == 2);
}

namespace {

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The first bytes of a file and its size, with the same errors as mapped_file for a missing, unreadable, empty
// file or a directory.
struct signature {
  unsigned char bytes[16] = {};
  std::size_t got = 0;
  std::uint64_t size = 0;
  bool starts_with(std::string_view s) const { return got >= s.size() && std::memcmp(bytes, s.data(), s.size()) == 0; }
};

signature read_signature(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw input_error(path, "is a directory, not a data file");
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) throw input_error(path, std::string("cannot open: ") + std::strerror(errno));
  signature s;
  s.got = std::fread(s.bytes, 1, sizeof s.bytes, f);
  std::fclose(f);
  s.size = std::filesystem::file_size(path, ec);
  if (s.got == 0) throw input_error(path, "empty file (0 bytes)");
  return s;
}

bool any_suffix(const std::string& path, std::initializer_list<std::string_view> suffixes) {
  return std::any_of(suffixes.begin(), suffixes.end(), [&](std::string_view s) { return ends_with(path, s); });
}

file_format detect(const std::string& path, const signature& sig, const read_options& options) {
  if (options.format != file_format::automatic) return options.format;
  const bool netcdf_name = any_suffix(path, {".nc", ".nc4", ".cdf", ".netcdf"});
  if (sig.starts_with("CDF\x01") || sig.starts_with("CDF\x02") || sig.starts_with("CDF\x05"))
    return file_format::netcdf;
  if (sig.starts_with("\x89HDF\r\n\x1a\n")) return netcdf_name ? file_format::netcdf : file_format::hdf5;
  if (netcdf_name) return file_format::netcdf;
  if (any_suffix(path, {".h5", ".hdf5", ".he5", ".hdf"})) return file_format::hdf5;
  if (ends_with(path, ".safetensors")) return file_format::safetensors;
  const std::span<const std::byte> head(reinterpret_cast<const std::byte*>(sig.bytes), sig.got);
  if (has_npy_magic(head) || ends_with(path, ".npy")) return file_format::npy;
  if (sig.got >= 9 && sig.bytes[8] == '{') {
    std::uint64_t length = 0;
    for (int i = 7; i >= 0; --i) length = (length << 8) | sig.bytes[i];
    if (length >= 2 && length <= sig.size - 8) return file_format::safetensors;
  }
  if (ends_with(path, ".txt") || ends_with(path, ".csv") || ends_with(path, ".tsv")) return file_format::text;
  if (options.type) return file_format::raw;
  throw input_error(path,
                    "cannot tell the format: not .npy, NetCDF, HDF5 or safetensors, not .txt/.csv, and no --dtype for "
                    "raw binary (use --format npy|raw|text|netcdf|hdf5|safetensors)");
}

bool has_variables(file_format f) {
  return f == file_format::netcdf || f == file_format::hdf5 || f == file_format::safetensors;
}

const char* display_name(file_format f) {
  switch (f) {
    case file_format::netcdf:
      return "NetCDF";
    case file_format::hdf5:
      return "HDF5";
    case file_format::safetensors:
      return "safetensors";
    default:
      return to_string(f);
  }
}

// Stored elements converted into new storage (element_decode.hpp). The vector's storage comes from operator new,
// aligned for every element type.
template <class Stored, class Reduced>
std::vector<std::byte> decode(std::span<const std::byte> bytes, bool big_endian) {
  std::vector<std::byte> out(bytes.size() / sizeof(Stored) * sizeof(Reduced));
  decode_into<Stored, Reduced>(bytes, big_endian, reinterpret_cast<Reduced*>(out.data()));
  return out;
}

// Every other element of a span, from `first`, into new storage.
template <class T>
std::span<const T> every_other(std::span<const T> x, std::size_t first, std::vector<std::byte>& storage) {
  const std::size_t count = x.size() / 2;
  storage.resize(count * sizeof(T));
  auto* target = reinterpret_cast<T*>(storage.data());
  for (std::size_t k = 0; k < count; ++k) target[k] = x[2 * k + first];
  return std::span<const T>(target, count);
}

// The names an error message offers when a file needs FILE:VARIABLE.
std::string variable_names(const std::string& path, file_format f) {
  if (f == file_format::netcdf) return describe_variables("float variables", netcdf_float_variables(path));
  if (f == file_format::hdf5) return describe_variables("float datasets", hdf5_float_variables(path));
  const mapped_file file(path);
  return describe_variables("readable tensors", safetensors_float_tensors(file.bytes(), path));
}

// A NetCDF or HDF5 variable read into memory, block by block, with its fill and missing values counted (and
// dropped when options.skip_missing).
struct variable_data {
  dtype type = dtype::float64;
  std::vector<float> floats;
  std::vector<double> doubles;
  std::vector<double> missing_values;
  std::uint64_t missing_count = 0;
};

template <class T>
std::vector<T> read_blocks(variable_reader& reader, const std::string& path, const std::string& variable) {
  const std::uint64_t n = reader.size();
  if (n == std::numeric_limits<std::uint64_t>::max()) {
    throw input_error(path, "variable '" + variable + "': its shape holds more elements than 64 bits can count");
  }
  // Refused up front when larger than this machine's memory: the allocation could succeed (overcommit) and the
  // process be killed while the blocks are read.
  const std::uint64_t mib = n / ((std::uint64_t{1} << 20) / sizeof(T));
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  const std::uint64_t memory_mib =
      pages > 0 && page > 0
          ? static_cast<std::uint64_t>(pages) / ((std::uint64_t{1} << 20) / static_cast<std::uint64_t>(page))
          : 0;
  const std::string too_large = "variable '" + variable + "' holds " + std::to_string(n) + " elements (" +
                                std::to_string(mib) + " MiB), more than fits in memory";
  const std::string until = " (read it with --stream)";
  if (memory_mib > 0 && mib >= memory_mib) {
    throw input_error(path, too_large + " (" + std::to_string(memory_mib) + " MiB)" + until);
  }
  std::vector<T> out;
  try {
    if (n > out.max_size()) throw std::length_error("too large");
    out.resize(static_cast<std::size_t>(n));
  } catch (const std::exception&) {  // std::bad_alloc, std::length_error
    throw input_error(path, too_large + until);
  }
  const std::uint64_t block = reader.block_elements();
  for (std::uint64_t k = 0; k < reader.block_count(); ++k) {
    const std::uint64_t first = k * block, count = std::min(block, n - first);
    reader.read_block(k, std::as_writable_bytes(std::span<T>(out.data() + first, static_cast<std::size_t>(count))));
  }
  return out;
}

variable_data read_variable(const std::string& path, const std::string& variable, file_format f,
                            const read_options& options) {
  const std::unique_ptr<variable_reader> reader =
      f == file_format::netcdf ? open_netcdf_variable(path, variable) : open_hdf5_variable(path, variable);
  variable_data v;
  v.type = reader->type();
  v.missing_values = reader->missing_values();
  if (v.type == dtype::float32) {
    v.floats = read_blocks<float>(*reader, path, variable);
    v.missing_count = count_missing(v.floats, v.missing_values, options.skip_missing);
  } else {
    v.doubles = read_blocks<double>(*reader, path, variable);
    v.missing_count = count_missing(v.doubles, v.missing_values, options.skip_missing);
  }
  return v;
}

}  // namespace

file_format checked_format(const input_spec& spec, const read_options& options) {
  const std::string& path = spec.file;
  const file_format f = detect(path, read_signature(path), options);
  if (has_variables(f) && spec.variable.empty()) {
    throw input_error(path, std::string(f == file_format::hdf5 ? "an " : "a ") + display_name(f) +
                                " file: name the variable as FILE:VARIABLE (" + variable_names(path, f) + ")");
  }
  if (!has_variables(f) && !spec.variable.empty()) {
    throw input_error(path,
                      std::string("a ") + to_string(f) + " file has no variables, ':" + spec.variable + "' names one");
  }
  return f;
}

void check_variable_type(const std::string& path, const std::string& variable, dtype type,
                         const read_options& options) {
  if (options.type && *options.type != type) {
    throw input_error(path, std::string("--dtype ") + to_string(*options.type) + " contradicts variable '" + variable +
                                "' (" + to_string(type) + ")");
  }
}

npy_header checked_npy_header(std::span<const std::byte> head, std::uint64_t file_size, const std::string& path,
                              const read_options& options) {
  const npy_header h = parse_npy_header(head, file_size, path);
  if (h.opaque && options.type != dtype::bfloat16) {
    throw input_error(path,
                      "dtype 'V2' is two opaque bytes per element (np.save writes ml_dtypes' bfloat16 arrays this "
                      "way): add --dtype bfloat16 if they are bfloat16");
  }
  if (options.type && *options.type != h.type) {
    throw input_error(path, std::string("--dtype ") + to_string(*options.type) + " contradicts the .npy header (" +
                                to_string(h.type) + ")");
  }
  return h;
}

dtype checked_raw_type(std::uint64_t file_size, const std::string& path, const read_options& options) {
  if (!options.type) throw input_error(path, std::string("raw binary input needs --dtype (") + dtype_names() + ")");
  const dtype t = *options.type;
  if (file_size % item_size(t) != 0) {
    throw input_error(path, "truncated data: " + std::to_string(file_size) + " bytes is not a whole number of " +
                                to_string(t) + " elements (" + std::to_string(item_size(t)) + " bytes each)");
  }
  return t;
}

dtype checked_text_type(const std::string& path, const read_options& options) {
  const dtype t = options.type.value_or(dtype::float64);
  if (t != dtype::float32 && t != dtype::float64) {
    throw input_error(path, std::string("text input is read as float32 or float64, not --dtype ") + to_string(t));
  }
  return t;
}

safetensors_tensor checked_tensor(std::span<const std::byte> head, std::uint64_t file_size, const input_spec& spec,
                                  const read_options& options) {
  const safetensors_tensor t = parse_safetensors(head, file_size, spec.variable, spec.file);
  if (options.type && *options.type != t.type) {
    throw input_error(spec.file, std::string("--dtype ") + to_string(*options.type) + " contradicts tensor '" +
                                     spec.variable + "' (" + to_string(t.type) + ")");
  }
  return t;
}

dataset read_dataset(const std::string& input, const read_options& options) {
  const input_spec spec = split_input_spec(input);
  const std::string& path = spec.file;
  dataset d;
  d.path_ = input;
  d.file_name_ = spec.file;
  d.variable_ = spec.variable;
  d.format_ = checked_format(spec, options);
  if (d.format_ == file_format::netcdf || d.format_ == file_format::hdf5) {
    variable_data v = read_variable(path, spec.variable, d.format_, options);
    check_variable_type(path, spec.variable, v.type, options);
    d.type_ = v.type;
    d.in_place_ = false;
    d.floats_ = std::move(v.floats);
    d.doubles_ = std::move(v.doubles);
    if (d.type_ == dtype::float32) {
      d.values_ = std::span<const float>(d.floats_);
    } else {
      d.values_ = std::span<const double>(d.doubles_);
    }
    d.missing_values_ = std::move(v.missing_values);
    d.missing_count_ = v.missing_count;
    d.missing_skipped_ = options.skip_missing;
    d.shape_ = {d.size()};
    if (d.type_ == dtype::float32) {
      d.digest_ = d.little_endian_bytes(std::span<const float>(d.floats_));
    } else {
      d.digest_ = d.little_endian_bytes(std::span<const double>(d.doubles_));
    }
    return d;
  }
  d.file_.emplace(path);
  const std::span<const std::byte> bytes = d.file_->bytes();
  d.digest_ = bytes;

  std::span<const std::byte> data;
  bool big_endian = false;
  switch (d.format_) {
    case file_format::npy: {
      const npy_header h = checked_npy_header(bytes, bytes.size(), path, options);
      d.type_ = h.type;
      d.shape_ = h.shape;
      big_endian = h.big_endian;
      data = bytes.subspan(h.data_offset);
      break;
    }
    case file_format::raw: {
      d.type_ = checked_raw_type(bytes.size(), path, options);
      data = bytes;
      break;
    }
    case file_format::text: {
      d.type_ = checked_text_type(path, options);
      const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
      d.in_place_ = false;
      const std::size_t comma = options.column.find(',');
      if (comma != std::string::npos) {  // two columns: the x and y of a dot product
        const std::string first = options.column.substr(0, comma), second = options.column.substr(comma + 1);
        if (d.type_ == dtype::float32) {
          auto [x, y] = parse_text_pair_f32(text, first, second, path);
          d.floats_ = std::move(x);
          d.y_floats_ = std::move(y);
          d.values_ = std::span<const float>(d.floats_);
          d.text_pair_ = std::array<dataset::values_type, 2>{d.values_, std::span<const float>(d.y_floats_)};
        } else {
          auto [x, y] = parse_text_pair_f64(text, first, second, path);
          d.doubles_ = std::move(x);
          d.y_doubles_ = std::move(y);
          d.values_ = std::span<const double>(d.doubles_);
          d.text_pair_ = std::array<dataset::values_type, 2>{d.values_, std::span<const double>(d.y_doubles_)};
        }
        d.shape_ = {d.size(), 2};
        return d;
      }
      if (d.type_ == dtype::float32) {
        d.floats_ = parse_text_f32(text, options.column, path);
        d.values_ = std::span<const float>(d.floats_);
      } else {
        d.doubles_ = parse_text_f64(text, options.column, path);
        d.values_ = std::span<const double>(d.doubles_);
      }
      d.shape_ = {d.size()};
      return d;
    }
    case file_format::safetensors: {
      const safetensors_tensor t = checked_tensor(bytes, bytes.size(), spec, options);
      d.type_ = t.type;
      d.shape_ = t.shape;
      data = bytes.subspan(t.data_offset, static_cast<std::size_t>(t.count * item_size(t.type)));
      d.digest_ = data;
      break;
    }
    case file_format::netcdf:
    case file_format::hdf5:
    case file_format::automatic:
      break;
  }

  const bool little_host = std::endian::native == std::endian::little;
  if (d.shape_.empty() && d.format_ == file_format::raw) d.shape_ = {data.size() / item_size(d.type_)};
  with_element_types(d.type_, [&]<class Stored, class Reduced>() {
    const bool aligned = reinterpret_cast<std::uintptr_t>(data.data()) % alignof(Stored) == 0;
    d.in_place_ = std::is_same_v<Stored, Reduced> && aligned && (big_endian != little_host || sizeof(Stored) == 1);
    if (d.in_place_) {
      d.values_ = std::span<const Reduced>(reinterpret_cast<const Reduced*>(data.data()), data.size() / sizeof(Stored));
    } else {
      d.decoded_ = decode<Stored, Reduced>(data, big_endian);
      d.values_ = std::span<const Reduced>(reinterpret_cast<const Reduced*>(d.decoded_.data()),
                                           d.decoded_.size() / sizeof(Reduced));
    }
  });
  return d;
}

std::array<dataset::values_type, 2> dataset::columns() const {
  if (text_pair_) return *text_pair_;
  if (!holds_pair()) throw std::logic_error("dataset::columns: " + path_ + " does not hold two columns");
  if (!pair_) {
    pair_ = std::visit(
        [&](auto x) {
          return std::array<values_type, 2>{every_other(x, 0, pair_storage_[0]), every_other(x, 1, pair_storage_[1])};
        },
        values_);
  }
  return *pair_;
}

}  // namespace detred::verify
