// SPDX-License-Identifier: BSD-3-Clause
// See safetensors.hpp.
#include "safetensors.hpp"

#include <limits>
#include <optional>

#include <nlohmann/json.hpp>

#include "input_error.hpp"
#include "variable_list.hpp"

namespace detred::verify {
namespace {

std::uint64_t header_length(std::span<const std::byte> file) {
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<std::uint8_t>(file[static_cast<std::size_t>(i)]);
  return n;
}

std::optional<dtype> tensor_dtype(const std::string& name) {
  if (name == "F64") return dtype::float64;
  if (name == "F32") return dtype::float32;
  if (name == "F16") return dtype::float16;
  if (name == "BF16") return dtype::bfloat16;
  if (name == "I64") return dtype::int64;
  if (name == "I32") return dtype::int32;
  if (name == "I16") return dtype::int16;
  if (name == "I8") return dtype::int8;
  if (name == "U64") return dtype::uint64;
  if (name == "U32") return dtype::uint32;
  if (name == "U16") return dtype::uint16;
  if (name == "U8") return dtype::uint8;
  return std::nullopt;
}

constexpr const char* supported_dtypes = "F64, F32, F16, BF16, I64, I32, I16, I8, U64, U32, U16, U8";

// The checked header: every entry's structure and offsets, the data region's size.
struct header {
  nlohmann::json entries;
  std::size_t data_start = 0;
  std::uint64_t data_size = 0;
};

// `file` is the file's head (at least the length and the header, when the file holds them); file_size its size.
header parse_header(std::span<const std::byte> file, std::uint64_t file_size, const std::string& name) {
  if (file_size < 8 || file.size() < 8) {
    throw input_error(
        name, "truncated safetensors file: " + std::to_string(file_size) + " bytes, the header length alone takes 8");
  }
  const std::uint64_t length = header_length(file);
  if (length > safetensors_max_header_bytes) {
    throw input_error(name, "oversized safetensors header: " + std::to_string(length) + " bytes (the limit is " +
                                std::to_string(safetensors_max_header_bytes) + ")");
  }
  if (length > file_size - 8 || length > file.size() - 8) {
    throw input_error(name, "truncated safetensors header: it claims " + std::to_string(length) +
                                " bytes, the file holds " + std::to_string(file_size - 8) + " after the length");
  }
  header h;
  h.data_start = 8 + static_cast<std::size_t>(length);
  h.data_size = file_size - h.data_start;
  const char* text = reinterpret_cast<const char*>(file.data() + 8);
  try {
    h.entries = nlohmann::json::parse(text, text + length);
  } catch (const nlohmann::json::exception& e) {
    throw input_error(name, std::string("malformed safetensors header: ") + e.what());
  }
  if (!h.entries.is_object()) throw input_error(name, "malformed safetensors header: it must be a JSON object");
  for (const auto& [key, entry] : h.entries.items()) {
    if (key == "__metadata__") continue;
    const std::string where = "malformed safetensors header: tensor '" + key + "': ";
    if (!entry.is_object() || !entry.contains("dtype") || !entry.contains("shape") || !entry.contains("data_offsets")) {
      throw input_error(name, where + "expected an object with dtype, shape and data_offsets");
    }
    const auto& offsets = entry["data_offsets"];
    if (!entry["dtype"].is_string() || !entry["shape"].is_array() || !offsets.is_array() || offsets.size() != 2 ||
        !offsets[0].is_number_unsigned() || !offsets[1].is_number_unsigned()) {
      throw input_error(name, where + "dtype must be a string, shape an array, data_offsets two unsigned integers");
    }
    for (const auto& d : entry["shape"]) {
      if (!d.is_number_unsigned()) throw input_error(name, where + "the shape must hold unsigned integers");
    }
    const auto begin = offsets[0].get<std::uint64_t>(), end = offsets[1].get<std::uint64_t>();
    if (begin > end || end > h.data_size) {
      throw input_error(name, "tensor '" + key + "': data_offsets [" + std::to_string(begin) + ", " +
                                  std::to_string(end) + "] lie outside the " + std::to_string(h.data_size) +
                                  " bytes of data");
    }
  }
  return h;
}

std::vector<std::string> float_names(const header& h) {
  std::vector<std::string> names;
  for (const auto& [key, entry] : h.entries.items()) {
    if (key != "__metadata__" && tensor_dtype(entry["dtype"].get<std::string>())) names.push_back(key);
  }
  return names;
}

}  // namespace

bool has_safetensors_layout(std::span<const std::byte> file) {
  if (file.size() < 10) return false;
  const std::uint64_t length = header_length(file);
  return length >= 2 && length <= file.size() - 8 && file[8] == std::byte{'{'};
}

safetensors_tensor parse_safetensors(std::span<const std::byte> file, const std::string& tensor,
                                     const std::string& name) {
  return parse_safetensors(file, file.size(), tensor, name);
}

safetensors_tensor parse_safetensors(std::span<const std::byte> head, std::uint64_t file_size,
                                     const std::string& tensor, const std::string& name) {
  const header h = parse_header(head, file_size, name);
  if (tensor == "__metadata__" || !h.entries.contains(tensor)) {
    throw input_error(name,
                      "no tensor '" + tensor + "' (" + describe_variables("readable tensors", float_names(h)) + ")");
  }
  const auto& entry = h.entries[tensor];
  const std::string type = entry["dtype"].get<std::string>();
  const std::optional<dtype> t = tensor_dtype(type);
  if (!t)
    throw input_error(name, "tensor '" + tensor + "' has dtype " + type + " (supported: " + supported_dtypes + ")");
  safetensors_tensor out;
  out.type = *t;
  out.count = 1;
  for (const auto& d : entry["shape"]) {
    const auto extent = d.get<std::uint64_t>();
    out.shape.push_back(extent);
    if (extent != 0 && out.count > std::numeric_limits<std::uint64_t>::max() / extent) {
      throw input_error(name, "tensor '" + tensor + "': the shape overflows");
    }
    out.count *= extent;
  }
  const auto begin = entry["data_offsets"][0].get<std::uint64_t>();
  const auto end = entry["data_offsets"][1].get<std::uint64_t>();
  const std::uint64_t item = item_size(out.type);
  if (out.count > (end - begin) / item || out.count * item != end - begin) {
    throw input_error(name, "tensor '" + tensor + "': the shape holds " + std::to_string(out.count) + " " + type +
                                " elements, data_offsets hold " + std::to_string(end - begin) + " bytes");
  }
  out.data_offset = h.data_start + static_cast<std::size_t>(begin);
  return out;
}

std::vector<std::string> safetensors_float_tensors(std::span<const std::byte> file, const std::string& name) {
  return float_names(parse_header(file, file.size(), name));
}

}  // namespace detred::verify
