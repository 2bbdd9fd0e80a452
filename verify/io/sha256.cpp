// SPDX-License-Identifier: BSD-3-Clause
#include "sha256.hpp"

#include <stdexcept>

#include <openssl/evp.h>

namespace detred::verify {

namespace {
std::string to_hex(const unsigned char* digest, unsigned int length) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < length; ++i) {
    out += hex[digest[i] >> 4];
    out += hex[digest[i] & 15];
  }
  return out;
}
}  // namespace

std::string sha256_hex(std::span<const std::byte> bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr) != 1) {
    throw std::runtime_error("SHA-256 failed in libcrypto");
  }
  return to_hex(digest, length);
}

sha256_stream::sha256_stream() : context_(EVP_MD_CTX_new()) {
  if (context_ == nullptr || EVP_DigestInit_ex(static_cast<EVP_MD_CTX*>(context_), EVP_sha256(), nullptr) != 1) {
    EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(context_));
    throw std::runtime_error("SHA-256 failed in libcrypto");
  }
}

sha256_stream::~sha256_stream() { EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(context_)); }

void sha256_stream::update(std::span<const std::byte> bytes) {
  if (EVP_DigestUpdate(static_cast<EVP_MD_CTX*>(context_), bytes.data(), bytes.size()) != 1) {
    throw std::runtime_error("SHA-256 failed in libcrypto");
  }
}

std::string sha256_stream::hex() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(static_cast<EVP_MD_CTX*>(context_), digest, &length) != 1) {
    throw std::runtime_error("SHA-256 failed in libcrypto");
  }
  return to_hex(digest, length);
}

}  // namespace detred::verify
