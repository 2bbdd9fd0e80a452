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

#include "hdf5_reader.hpp"
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

// Elements stored little- or big-endian at bytes, converted into a vector in this machine's order.
template <class T>
std::vector<T> decode(std::span<const std::byte> bytes, bool big_endian) {
  using bits_t = std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>;
  std::vector<T> out(bytes.size() / sizeof(T));
  for (std::size_t k = 0; k < out.size(); ++k) {
    bits_t b = 0;
    for (std::size_t i = 0; i < sizeof(T); ++i) {
      const auto byte = static_cast<bits_t>(bytes[k * sizeof(T) + (big_endian ? i : sizeof(T) - 1 - i)]);
      b = static_cast<bits_t>((b << 8) | byte);
    }
    out[k] = std::bit_cast<T>(b);
  }
  return out;
}

// The names an error message offers when a file needs FILE:VARIABLE.
std::string variable_names(const std::string& path, file_format f) {
  if (f == file_format::netcdf) return describe_variables("float variables", netcdf_float_variables(path));
  if (f == file_format::hdf5) return describe_variables("float datasets", hdf5_float_variables(path));
  const mapped_file file(path);
  return describe_variables("F32/F64 tensors", safetensors_float_tensors(file.bytes(), path));
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
bool is_missing(T x, const std::vector<double>& missing) {
  return std::any_of(missing.begin(), missing.end(), [x](double m) { return x == m || (m != m && x != x); });
}

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
  const std::string until = " (a variable must fit in memory until the streaming accumulator lands)";
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

template <class T>
std::uint64_t count_missing(std::vector<T>& values, const std::vector<double>& missing, bool skip) {
  if (missing.empty()) return 0;
  if (!skip) {
    return static_cast<std::uint64_t>(
        std::count_if(values.begin(), values.end(), [&](T x) { return is_missing(x, missing); }));
  }
  const auto kept = std::remove_if(values.begin(), values.end(), [&](T x) { return is_missing(x, missing); });
  const auto dropped = static_cast<std::uint64_t>(values.end() - kept);
  values.erase(kept, values.end());
  return dropped;
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

dataset read_dataset(const std::string& input, const read_options& options) {
  const input_spec spec = split_input_spec(input);
  const std::string& path = spec.file;
  dataset d;
  d.path_ = input;
  d.file_name_ = spec.file;
  d.variable_ = spec.variable;
  d.format_ = detect(path, read_signature(path), options);
  if (has_variables(d.format_) && spec.variable.empty()) {
    throw input_error(path, std::string(d.format_ == file_format::hdf5 ? "an " : "a ") + display_name(d.format_) +
                                " file: name the variable as FILE:VARIABLE (" + variable_names(path, d.format_) + ")");
  }
  if (!has_variables(d.format_) && !spec.variable.empty()) {
    throw input_error(
        path, std::string("a ") + to_string(d.format_) + " file has no variables, ':" + spec.variable + "' names one");
  }
  if (d.format_ == file_format::netcdf || d.format_ == file_format::hdf5) {
    variable_data v = read_variable(path, spec.variable, d.format_, options);
    if (options.type && *options.type != v.type) {
      throw input_error(path, std::string("--dtype ") + to_string(*options.type) + " contradicts variable '" +
                                  spec.variable + "' (" + to_string(v.type) + ")");
    }
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
    std::visit([&](auto values) { d.digest_ = d.little_endian_bytes(values); }, d.values_);
    return d;
  }
  d.file_.emplace(path);
  const std::span<const std::byte> bytes = d.file_->bytes();
  d.digest_ = bytes;

  std::span<const std::byte> data;
  bool big_endian = false;
  switch (d.format_) {
    case file_format::npy: {
      const npy_header h = parse_npy_header(bytes, path);
      if (options.type && *options.type != h.type) {
        throw input_error(path, std::string("--dtype ") + to_string(*options.type) + " contradicts the .npy header (" +
                                    to_string(h.type) + ")");
      }
      d.type_ = h.type;
      big_endian = h.big_endian;
      data = bytes.subspan(h.data_offset);
      break;
    }
    case file_format::raw: {
      if (!options.type) throw input_error(path, "raw binary input needs --dtype float32|float64");
      d.type_ = *options.type;
      if (bytes.size() % item_size(d.type_) != 0) {
        throw input_error(path, "truncated data: " + std::to_string(bytes.size()) + " bytes is not a whole number of " +
                                    to_string(d.type_) + " elements (" + std::to_string(item_size(d.type_)) +
                                    " bytes each)");
      }
      data = bytes;
      break;
    }
    case file_format::text: {
      d.type_ = options.type.value_or(dtype::float64);
      const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
      d.in_place_ = false;
      if (d.type_ == dtype::float32) {
        d.floats_ = parse_text_f32(text, options.column, path);
        d.values_ = std::span<const float>(d.floats_);
      } else {
        d.doubles_ = parse_text_f64(text, options.column, path);
        d.values_ = std::span<const double>(d.doubles_);
      }
      return d;
    }
    case file_format::safetensors: {
      const safetensors_tensor t = parse_safetensors(bytes, spec.variable, path);
      if (options.type && *options.type != t.type) {
        throw input_error(path, std::string("--dtype ") + to_string(*options.type) + " contradicts tensor '" +
                                    spec.variable + "' (" + to_string(t.type) + ")");
      }
      d.type_ = t.type;
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
  const bool aligned = reinterpret_cast<std::uintptr_t>(data.data()) % item_size(d.type_) == 0;
  d.in_place_ = aligned && big_endian != little_host;
  if (d.type_ == dtype::float32) {
    if (d.in_place_) {
      d.values_ = std::span<const float>(reinterpret_cast<const float*>(data.data()), data.size() / 4);
    } else {
      d.floats_ = decode<float>(data, big_endian);
      d.values_ = std::span<const float>(d.floats_);
    }
  } else {
    if (d.in_place_) {
      d.values_ = std::span<const double>(reinterpret_cast<const double*>(data.data()), data.size() / 8);
    } else {
      d.doubles_ = decode<double>(data, big_endian);
      d.values_ = std::span<const double>(d.doubles_);
    }
  }
  return d;
}

}  // namespace detred::verify
