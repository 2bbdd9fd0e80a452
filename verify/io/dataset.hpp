// One input file, read in whichever format it has, exposed as a span of floats or doubles.
//
// .npy and raw files are memory-mapped and their elements read in place (the data is never copied), except a
// big-endian .npy file or one whose data is misaligned for its type, which is converted into memory. Text files
// are parsed into memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "dtype.hpp"
#include "mapped_file.hpp"

namespace detred::verify {

enum class file_format { automatic, npy, raw, text };
const char* to_string(file_format f);
/// "auto", "npy", "raw", "text"; nullopt otherwise.
std::optional<file_format> parse_file_format(const std::string& name);

struct read_options {
  file_format format = file_format::automatic;
  std::optional<dtype> type;  ///< required for raw files; for text files the default is float64
  std::string column;         ///< text files only: the CSV column (index or name); empty = one number per line
};

class dataset {
 public:
  using values_type = std::variant<std::span<const float>, std::span<const double>>;

  const std::string& path() const { return path_; }
  file_format format() const { return format_; }
  dtype type() const { return type_; }
  std::uint64_t size() const;
  values_type values() const { return values_; }
  /// Every byte of the file, for its SHA-256.
  std::span<const std::byte> file_bytes() const { return file_.bytes(); }
  /// True if the elements are read from the mapped file in place.
  bool mapped_in_place() const { return in_place_; }

 private:
  friend dataset read_dataset(const std::string& path, const read_options& options);
  explicit dataset(mapped_file file) : file_(std::move(file)) {}

  std::string path_;
  mapped_file file_;
  file_format format_ = file_format::npy;
  dtype type_ = dtype::float64;
  bool in_place_ = true;
  std::vector<float> floats_;
  std::vector<double> doubles_;
  values_type values_;
};

/// Reads path. Format automatic: the .npy magic string means .npy; otherwise .txt, .csv and .tsv files are text and
/// .npy files without the magic are an error; anything else is raw when a dtype is given. Throws input_error.
dataset read_dataset(const std::string& path, const read_options& options);

}  // namespace detred::verify
