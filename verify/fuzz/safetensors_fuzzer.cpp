// SPDX-License-Identifier: BSD-3-Clause
// libFuzzer target: the safetensors header parser must accept or reject any bytes with an input_error, never
// crash, never read outside the buffer, and never accept a tensor whose bytes lie outside the file or do not match
// its shape.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "input_error.hpp"
#include "safetensors.hpp"

namespace {
void check(std::span<const std::byte> bytes, const std::string& tensor) {
  try {
    const detred::verify::safetensors_tensor t = detred::verify::parse_safetensors(bytes, tensor, "fuzz.safetensors");
    const std::size_t item = detred::verify::item_size(t.type);
    if (t.data_offset > bytes.size() || t.count > (bytes.size() - t.data_offset) / item) __builtin_trap();
    if (t.count > 0) {
      volatile std::byte last = bytes[t.data_offset + t.count * item - 1];
      (void)last;
    }
  } catch (const detred::verify::input_error&) {
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  check(bytes, "x");
  try {
    for (const std::string& name : detred::verify::safetensors_float_tensors(bytes, "fuzz.safetensors")) {
      check(bytes, name);
    }
  } catch (const detred::verify::input_error&) {
  }
  return 0;
}
