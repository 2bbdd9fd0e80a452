// SPDX-License-Identifier: BSD-3-Clause
// A variable inside a container file (a NetCDF or HDF5 variable, a safetensors tensor), read in storage order as
// consecutive blocks of elements.
//
// Block k holds elements [k * block_elements(), min(size(), (k + 1) * block_elements())) of the row-major
// flattening. The blocks follow the variable's storage (whole chunks of a chunked variable), so that each block is
// decoded once. read_dataset reads every block into one buffer; element_stream (element_stream.hpp) takes them one
// at a time.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "dtype.hpp"

namespace detred::verify {

class variable_reader {
 public:
  virtual ~variable_reader() = default;

  virtual dtype type() const = 0;
  virtual const std::vector<std::uint64_t>& shape() const = 0;
  /// Elements: the product of the shape (1 for a scalar; the largest uint64 when the product overflows, which no
  /// buffer can hold).
  std::uint64_t size() const;
  /// Elements per block (the last block may hold fewer); at least 1.
  virtual std::uint64_t block_elements() const = 0;
  std::uint64_t block_count() const;
  /// Reads block k into out, which holds exactly that block's elements (item_size(type()) bytes each, this
  /// machine's byte order). Throws input_error.
  virtual void read_block(std::uint64_t k, std::span<std::byte> out) = 0;
  /// The values the file marks as missing (fill values, missing_value attributes), converted exactly to double.
  virtual std::vector<double> missing_values() const { return {}; }
};

/// The size a block aims at: large enough to amortize a library call, small enough for a streaming pass.
inline constexpr std::uint64_t default_block_bytes = std::uint64_t{16} << 20;

/// Blocks of whole rows along the first dimension: `rows_per_chunk` rows (the chunk's first extent, or 1 for
/// contiguous storage) times the largest factor that keeps a block near `target_bytes`.
std::uint64_t rows_per_block(const std::vector<std::uint64_t>& shape, std::uint64_t rows_per_chunk,
                             std::size_t item_bytes, std::uint64_t target_bytes = default_block_bytes);

/// Elements in a block of `rows` whole rows along the first dimension (at least 1; 1 for a scalar).
std::uint64_t elements_in_rows(const std::vector<std::uint64_t>& shape, std::uint64_t rows);

/// True if x equals one of the missing values (== : +0 and -0 match each other; a NaN value matches every NaN).
template <class T>
inline bool is_missing(T x, const std::vector<double>& missing) {
  return std::any_of(missing.begin(), missing.end(), [x](double m) { return x == m || (m != m && x != x); });
}

/// The elements of `values` equal to a missing value: counted, and removed when `skip` (the rest keeps its order).
template <class T>
inline std::uint64_t count_missing(std::vector<T>& values, const std::vector<double>& missing, bool skip) {
  if (missing.empty()) return 0;
  if (!skip) {
    return static_cast<std::uint64_t>(
        std::count_if(values.begin(), values.end(), [&](T x) { return is_missing(x, missing); }));
  }
  const auto kept = std::remove_if(values.begin(), values.end(), [&](T x) { return is_missing(x, missing); });
  const auto dropped = static_cast<std::uint64_t>(values.end() - kept);
  values.erase(kept, values.end());
  return dropped;
}

}  // namespace detred::verify
