// SPDX-License-Identifier: BSD-3-Clause
// libFuzzer target: partial_state::deserialize must accept or refuse any bytes with a detred::error, never crash or
// read outside them. Half the inputs get a correct checksum appended (chosen by the first byte), so that the
// structural checks behind the checksum are explored too. An accepted state is canonical: serializing it again
// gives the same bytes; and a complete one gives its result or the single-array call's error.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "detred/partial.hpp"
#include "partial/bytes.hpp"

namespace {

void use(const detred::partial_state& s) {
  (void)s.ranges();
  if (!s.complete()) return;
  try {
    switch (s.element_type()) {
      case detred::element_type::float64:
        if (s.operation() == detred::operation::stats) {
          (void)s.result<detred::statistics<double>>();
        } else if (s.operation() == detred::operation::argmin || s.operation() == detred::operation::argmax) {
          (void)s.result<std::uint64_t>();
        } else {
          (void)s.result<double>();
        }
        break;
      default:
        (void)s.result<float>();  // the wrong type for most: refused with detred::error, which is fine here
        break;
    }
  } catch (const detred::error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  std::vector<std::byte> bytes(reinterpret_cast<const std::byte*>(data) + 1,
                               reinterpret_cast<const std::byte*>(data) + size);
  if (data[0] % 2 == 0) {
    const std::uint64_t sum = detred::partial::checksum(bytes);
    const auto* p = reinterpret_cast<const std::byte*>(&sum);
    bytes.insert(bytes.end(), p, p + sizeof sum);
  }
  try {
    const detred::partial_state s = detred::partial_state::deserialize(bytes);
    if (s.serialize() != bytes) __builtin_trap();
    use(s);
  } catch (const detred::error&) {
  }
  return 0;
}
