// SPDX-License-Identifier: BSD-3-Clause
// Little-endian byte writing and checked reading for the partial state's portable form (docs/partial-states.md).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "detred/options.hpp"

namespace detred::partial {

// The format stores numbers as the little-endian machines that run detred (x86-64, AArch64) hold them, so a state
// is its values' bytes. A big-endian port would byte-swap here.
static_assert(std::endian::native == std::endian::little, "the partial-state format is written for little-endian");

class byte_writer {
 public:
  template <class T>
  void put(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto* p = reinterpret_cast<const std::byte*>(&value);
    bytes_.insert(bytes_.end(), p, p + sizeof(T));
  }
  void put_bytes(const void* data, std::size_t size) {
    const auto* p = static_cast<const std::byte*>(data);
    bytes_.insert(bytes_.end(), p, p + size);
  }
  std::vector<std::byte>& bytes() { return bytes_; }

 private:
  std::vector<std::byte> bytes_;
};

/// Reads what byte_writer wrote; every read past the end throws detred::error saying the state is truncated.
class byte_reader {
 public:
  explicit byte_reader(std::span<const std::byte> bytes) : bytes_(bytes) {}

  template <class T>
  T get(const char* what) {
    static_assert(std::is_trivially_copyable_v<T>);
    T value;
    get_bytes(&value, sizeof(T), what);
    return value;
  }
  void get_bytes(void* out, std::size_t size, const char* what) {
    if (bytes_.size() - at_ < size) {
      throw error("partial state: truncated: " + std::to_string(bytes_.size()) + " bytes end inside its " + what);
    }
    std::memcpy(out, bytes_.data() + at_, size);
    at_ += size;
  }
  std::size_t remaining() const { return bytes_.size() - at_; }

 private:
  std::span<const std::byte> bytes_;
  std::size_t at_ = 0;
};

/// A 64-bit checksum that catches the corruption of a stored or sent state (not an attack on it): FNV-1a's multiply
/// on 8-byte words in four independent streams (a state of 32 KiB checks in microseconds), then the tail bytes.
inline std::uint64_t checksum(std::span<const std::byte> bytes) {
  constexpr std::uint64_t prime = 0x100000001b3u;
  std::uint64_t h[4] = {0xcbf29ce484222325u, 0x84222325cbf29ce4u, 0x9ce484222325cbf2u, 0x2325cbf29ce48422u};
  std::size_t i = 0;
  for (; i + 32 <= bytes.size(); i += 32) {
    for (int k = 0; k < 4; ++k) {
      std::uint64_t w;
      std::memcpy(&w, bytes.data() + i + 8 * k, 8);
      h[k] = (h[k] ^ w) * prime;
    }
  }
  std::uint64_t r = h[0];
  for (int k = 1; k < 4; ++k) r = (r ^ h[k]) * prime;
  for (; i < bytes.size(); ++i) r = (r ^ static_cast<std::uint64_t>(bytes[i])) * prime;
  return (r ^ bytes.size()) * prime;
}

}  // namespace detred::partial
