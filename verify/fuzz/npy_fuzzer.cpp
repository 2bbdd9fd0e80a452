// SPDX-License-Identifier: BSD-3-Clause
// libFuzzer target: the .npy header parser must accept or reject any bytes with an input_error, never crash,
// never read outside the buffer, and never accept a header that claims more data than there is. Every dtype it
// accepts (floats of 2, 4 and 8 bytes, integers of 1 to 8, 'bfloat16', opaque V2) has the element size the data
// is measured in, and an opaque V2 is read as bfloat16 only. The streaming reader's form (the file's head and its
// size) must give the same header or the same error.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "input_error.hpp"
#include "npy.hpp"

namespace {
// "offset count" of an accepted header, or the error message.
template <class Parse>
std::string verdict(Parse parse) {
  try {
    const detred::verify::npy_header h = parse();
    return std::to_string(h.data_offset) + " " + std::to_string(h.count) + " " + detred::verify::to_string(h.type);
  } catch (const detred::verify::input_error& e) {
    return e.what();
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  const std::span<const std::byte> head =
      bytes.first(size < detred::verify::npy_max_header_bytes + 12 ? size : detred::verify::npy_max_header_bytes + 12);
  if (verdict([&] { return detred::verify::parse_npy_header(bytes, "fuzz.npy"); }) !=
      verdict([&] { return detred::verify::parse_npy_header(head, size, "fuzz.npy"); })) {
    __builtin_trap();
  }
  try {
    const detred::verify::npy_header h = detred::verify::parse_npy_header(bytes, "fuzz.npy");
    // An accepted header describes exactly the bytes that follow it: touch the last one.
    const std::size_t item = detred::verify::item_size(h.type);
    if (h.opaque && (h.type != detred::verify::dtype::bfloat16 || item != 2)) __builtin_trap();
    if (h.data_offset > size || h.count * item != size - h.data_offset) __builtin_trap();
    if (h.count > 0) {
      volatile std::byte last = bytes[h.data_offset + h.count * item - 1];
      (void)last;
    }
  } catch (const detred::verify::input_error&) {
  }
  return 0;
}
