// SPDX-License-Identifier: BSD-3-Clause
// One input read as consecutive chunks of elements, a bounded buffer at a time: the streaming counterpart of
// read_dataset (dataset.hpp), for inputs larger than memory.
//
// Nothing is mapped and nothing holds the whole input: .npy, raw and safetensors data are read with pread (byte
// order converted and narrow integers widened per chunk, as read_dataset does), text line by line, NetCDF and HDF5
// variables by whole storage blocks (variable_reader.hpp; --skip-missing applied per block). The chunks are the
// input's elements in storage order, the same elements read_dataset gives, so any reduction of them gives the same
// bits. The same checks run before the first element and give the same messages; problems found while reading (a
// bad text line, a chunk the NetCDF library cannot decode, a file that shrank) throw input_error from next().
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "dataset.hpp"

namespace detred::verify {

/// Bytes read at a time unless asked otherwise: large enough to amortize a call, small next to any memory.
inline constexpr std::uint64_t default_chunk_bytes = std::uint64_t{32} << 20;

/// The next elements of a stream: x, and y for an input read as a pair (element_stream::read_pairs).
struct element_chunk {
  dataset::values_type x;
  std::optional<dataset::values_type> y;
  std::uint64_t size() const;
};

class element_stream {
 public:
  /// Opens an input (FILE or FILE:VARIABLE, as read_dataset) and checks everything read_dataset checks before the
  /// elements. chunk_bytes: about how many bytes of the input each chunk covers (at least one element; NetCDF and
  /// HDF5 blocks are whole storage chunks, so may be larger). Throws input_error.
  element_stream(const std::string& input, const read_options& options,
                 std::uint64_t chunk_bytes = default_chunk_bytes);
  ~element_stream();
  element_stream(element_stream&&) noexcept;
  element_stream& operator=(element_stream&&) noexcept;

  /// The input as a dataset without elements: path, format, type, shape, holds_pair(), missing values;
  /// missing_count() is final once next() has returned the empty chunk.
  const dataset& info() const { return info_; }
  /// A copy of info() (datasets without elements are cheap to copy; make_operands takes them by value).
  dataset description() const;
  /// The element count when the file says it before it is read (not for text, nor with --skip-missing on a variable
  /// that has missing values).
  std::optional<std::uint64_t> known_size() const;
  /// The bytes of data the input holds (a whole file, or the variable's elements as stored): the memory budget's
  /// measure, and the progress bar's total.
  std::uint64_t data_bytes() const;
  /// The bytes of data read so far.
  std::uint64_t bytes_read() const;

  /// For an input that holds both operands of a dot product (info().holds_pair()): deliver x and y instead of the
  /// flattened elements. Call before the first next().
  void read_pairs();
  /// The next elements (at least one), valid until the next call; an empty chunk at the end.
  element_chunk next();
  /// The elements delivered so far (after --skip-missing; pairs for read_pairs).
  std::uint64_t count() const;
  /// No SHA-256 (reduce and verify need none; it costs about as much as a reduction). Call before the first next().
  void skip_digest();
  /// After the end: the SHA-256 of the bytes a golden file records (dataset::digest_bytes).
  std::string sha256_hex();

  class source;

 private:
  dataset info_;
  std::unique_ptr<source> source_;
};

}  // namespace detred::verify
