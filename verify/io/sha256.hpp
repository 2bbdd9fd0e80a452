// SPDX-License-Identifier: BSD-3-Clause
// SHA-256 of a file's bytes, for golden files: a changed byte anywhere in a data file is reported as such.
#pragma once

#include <cstddef>
#include <span>
#include <string>

namespace detred::verify {

/// Lower-case hex digest (64 characters), computed with OpenSSL's libcrypto.
std::string sha256_hex(std::span<const std::byte> bytes);

/// The same digest of bytes that arrive in pieces (inputs read as a stream): update() in order, then hex().
class sha256_stream {
 public:
  sha256_stream();
  ~sha256_stream();
  sha256_stream(const sha256_stream&) = delete;
  sha256_stream& operator=(const sha256_stream&) = delete;

  void update(std::span<const std::byte> bytes);
  /// The digest of everything updated so far; the stream takes no more bytes afterwards.
  std::string hex();

 private:
  void* context_;  // EVP_MD_CTX, kept out of the header
};

}  // namespace detred::verify
