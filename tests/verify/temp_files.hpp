// SPDX-License-Identifier: BSD-3-Clause
// Scratch files for the reader and tool tests, removed with the test binary's temporary folder.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

namespace detred::verify::testing {

/// A folder of its own per test binary run, under the system temporary folder.
inline const std::filesystem::path& scratch_dir() {
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() / ("detred-verify-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}

inline std::string write_file(const std::string& name, std::string_view bytes) {
  const std::string path = (scratch_dir() / name).string();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path;
}

/// A .npy file with the given header dict text; the header is padded like NumPy's. data is appended as is.
inline std::string npy_bytes(const std::string& dict, std::string_view data, int major = 1) {
  std::string header = dict;
  const std::size_t prefix = major == 1 ? 10 : 12;
  header.append((64 - (prefix + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  const std::size_t len = header.size();
  out += static_cast<char>(len & 0xff);
  out += static_cast<char>((len >> 8) & 0xff);
  if (major != 1) {
    out += static_cast<char>((len >> 16) & 0xff);
    out += static_cast<char>((len >> 24) & 0xff);
  }
  return out + header + std::string(data);
}

template <class T>
std::string le_bytes(const std::vector<T>& x) {
  return std::string(reinterpret_cast<const char*>(x.data()), x.size() * sizeof(T));  // tests run little-endian
}

}  // namespace detred::verify::testing
