// SPDX-License-Identifier: BSD-3-Clause
// NumPy .npy files: the header parser (format versions 1, 2 and 3) and a writer for generated datasets.
//
// Accepted: descr f8 f4 f2 (float64/32/16), i8 i4 i2 i1, u8 u4 u2 u1 in either byte order ('<', '>', or '|' for
// one byte), 'bfloat16', and '|V2' (two opaque bytes: np.save's form of ml_dtypes' bfloat16, read only with
// --dtype bfloat16); any shape (flattened in C order); fortran_order True only when at most one dimension exceeds
// 1, since otherwise the file's element order is not NumPy's C-order flattening and the sum would be of a different
// sequence than np.ravel(a) gives.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "dtype.hpp"

namespace detred::verify {

/// Headers above this size are refused before they are parsed (NumPy's own writers stay below 1 KiB for arrays of
/// floats; NumPy's reader refuses more than 10000 bytes by default).
inline constexpr std::size_t npy_max_header_bytes = std::size_t{1} << 16;

struct npy_header {
  int major_version = 1;
  dtype type = dtype::float64;
  bool opaque = false;  ///< descr V2: two bytes of unknown meaning (type says bfloat16, the only 2-byte V we read)
  bool big_endian = false;
  bool fortran_order = false;
  std::vector<std::uint64_t> shape;
  std::uint64_t count = 0;      ///< product of shape (1 for shape ())
  std::size_t data_offset = 0;  ///< bytes before the first element
};

/// True if the bytes start with the .npy magic string.
bool has_npy_magic(std::span<const std::byte> file);

/// Parses the header of a whole .npy file and checks it against the file's size. Throws input_error naming `name`
/// for a bad magic string or version, a truncated or oversized header, malformed header text, an unsupported dtype,
/// an unsupported Fortran-order array, or a size that does not match the data the file holds.
npy_header parse_npy_header(std::span<const std::byte> file, const std::string& name);
/// The same from the file's first bytes (all of them, or at least npy_max_header_bytes + 12) and its size: a file
/// read as a stream is checked without being read whole.
npy_header parse_npy_header(std::span<const std::byte> head, std::uint64_t file_size, const std::string& name);

/// Writes n elements to a .npy file (version 1.0, little-endian, shape (n,)) in chunks, so that datasets larger
/// than memory can be written. Elements are encoded byte by byte, the same on every machine.
class npy_writer {
 public:
  /// raw = true writes only the little-endian elements, without the .npy header.
  npy_writer(const std::string& path, dtype type, std::uint64_t n, bool raw = false);
  ~npy_writer();
  npy_writer(const npy_writer&) = delete;
  npy_writer& operator=(const npy_writer&) = delete;

  void write(std::span<const float> x);
  void write(std::span<const double> x);
  /// Flushes and closes; throws std::runtime_error if fewer or more than n elements were written or a write failed.
  void finish();

 private:
  void put(const std::vector<unsigned char>& bytes);

  std::string path_;
  dtype type_;
  std::uint64_t expected_;
  std::uint64_t written_ = 0;
  void* file_ = nullptr;  // FILE*, kept out of the header
};

}  // namespace detred::verify
