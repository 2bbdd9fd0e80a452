// SHA-256 of a file's bytes, for golden files: a changed byte anywhere in a data file is reported as such.
#pragma once

#include <cstddef>
#include <span>
#include <string>

namespace detred::verify {

/// Lower-case hex digest (64 characters), computed with OpenSSL's libcrypto.
std::string sha256_hex(std::span<const std::byte> bytes);

}  // namespace detred::verify
