// See dataset.hpp.
#include "dataset.hpp"

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>

#include "input_error.hpp"
#include "npy.hpp"
#include "text.hpp"

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
  }
  return "unknown";
}

std::optional<file_format> parse_file_format(const std::string& name) {
  if (name == "auto") return file_format::automatic;
  if (name == "npy") return file_format::npy;
  if (name == "raw") return file_format::raw;
  if (name == "text") return file_format::text;
  return std::nullopt;
}

std::uint64_t dataset::size() const {
  return std::visit([](auto s) { return static_cast<std::uint64_t>(s.size()); }, values_);
}

namespace {

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

file_format detect(const std::string& path, std::span<const std::byte> bytes, const read_options& options) {
  if (options.format != file_format::automatic) return options.format;
  if (has_npy_magic(bytes) || ends_with(path, ".npy")) return file_format::npy;
  if (ends_with(path, ".txt") || ends_with(path, ".csv") || ends_with(path, ".tsv")) return file_format::text;
  if (options.type) return file_format::raw;
  throw input_error(path,
                    "cannot tell the format: not a .npy file, not .txt/.csv, and no --dtype for raw binary "
                    "(use --format npy|raw|text)");
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

}  // namespace

dataset read_dataset(const std::string& path, const read_options& options) {
  dataset d{mapped_file(path)};
  d.path_ = path;
  const std::span<const std::byte> bytes = d.file_.bytes();
  d.format_ = detect(path, bytes, options);

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
