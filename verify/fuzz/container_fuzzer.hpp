// SPDX-License-Identifier: BSD-3-Clause
// The shared part of the NetCDF and HDF5 fuzzers. Their file formats are parsed by Debian's libraries, which are
// not built with coverage instrumentation here and which trust the sizes in a file's header (random bytes make
// libnetcdf allocate gigabytes within seconds, outside this project's code). So these targets are structure-aware:
// the fuzzer's bytes choose a variable (type, rank, extents, chunking, compression, fill value, values as raw
// bits, the name asked for, the block size), the library writes that file into memory, and the reader must read
// it back through its in-memory entry point exactly: the same type and shape, every element's bits in row-major
// order, the fill value among the missing values; and a name that does not exist must be an input_error.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <fuzzer/FuzzedDataProvider.h>

#include "input_error.hpp"
#include "variable_reader.hpp"

namespace detred::verify::fuzzing {

struct variable_case {
  bool is_float = false;              ///< float32, else float64
  std::vector<std::uint64_t> shape;   ///< rank 0 to 4, extents 0 to 6
  std::vector<std::uint64_t> chunks;  ///< empty: contiguous
  int deflate = 0;
  bool shuffle = false;
  std::optional<std::uint64_t> fill;  ///< the fill value's bits
  std::vector<std::uint64_t> bits;    ///< the elements' bits, row-major
  std::string requested;              ///< the name asked for
  bool exists = true;                 ///< whether `requested` names the variable
  std::uint64_t block_bytes = 8;

  std::uint64_t count() const {
    std::uint64_t n = 1;
    for (std::uint64_t d : shape) n *= d;
    return n;
  }
  template <class T>
  std::vector<T> values() const {
    std::vector<T> out(bits.size());
    for (std::size_t i = 0; i < bits.size(); ++i) {
      if constexpr (sizeof(T) == 4) {
        const auto b = static_cast<std::uint32_t>(bits[i]);
        std::memcpy(&out[i], &b, 4);
      } else {
        std::memcpy(&out[i], &bits[i], 8);
      }
    }
    return out;
  }
};

/// Decodes a case; with first_extent_only_zero, only the first extent may be 0 (NetCDF: a zero-length dimension is
/// the unlimited one, which classic files allow first only).
/// `bad_names` never name the variable (which is called "v").
inline variable_case decode_case(FuzzedDataProvider& in, bool first_extent_only_zero,
                                 const std::vector<std::string>& bad_names) {
  variable_case c;
  c.is_float = in.ConsumeBool();
  const int rank = in.ConsumeIntegralInRange(0, 4);
  for (int d = 0; d < rank; ++d) {
    const int low = first_extent_only_zero && d > 0 ? 1 : 0;
    c.shape.push_back(in.ConsumeIntegralInRange<std::uint64_t>(static_cast<std::uint64_t>(low), 6));
  }
  const bool all_positive = std::all_of(c.shape.begin(), c.shape.end(), [](std::uint64_t d) { return d > 0; });
  if (rank > 0 && all_positive && in.ConsumeBool()) {
    for (std::uint64_t d : c.shape) c.chunks.push_back(in.ConsumeIntegralInRange<std::uint64_t>(1, d));
    c.deflate = in.ConsumeIntegralInRange(0, 9);
    c.shuffle = in.ConsumeBool();
  }
  if (in.ConsumeBool()) c.fill = in.ConsumeIntegral<std::uint64_t>();
  c.block_bytes = in.ConsumeIntegralInRange<std::uint64_t>(1, 256);
  if (in.ConsumeBool()) {
    c.requested = in.ConsumeBool() ? "v" : "/v";
  } else {
    c.requested = bad_names[in.ConsumeIntegralInRange<std::size_t>(0, bad_names.size() - 1)];
    c.exists = false;
  }
  for (std::uint64_t i = 0; i < c.count(); ++i) c.bits.push_back(in.ConsumeIntegral<std::uint64_t>());
  return c;
}

/// Reads the case's variable through `open` and traps on any disagreement with what was written.
template <class Open>
void expect_read_back(const variable_case& c, Open open) {
  std::unique_ptr<variable_reader> r;
  try {
    r = open();
  } catch (const input_error&) {
    if (c.exists) __builtin_trap();  // a valid variable refused
    return;
  }
  if (!c.exists) __builtin_trap();  // a name that does not exist accepted
  if (r->type() != (c.is_float ? dtype::float32 : dtype::float64) || r->shape() != c.shape) __builtin_trap();
  const std::size_t item = item_size(r->type());
  const std::uint64_t n = r->size(), block = r->block_elements();
  if (n != c.count() || block == 0) __builtin_trap();
  std::vector<std::byte> out(n * item);
  for (std::uint64_t k = 0; k < r->block_count(); ++k) {
    const std::uint64_t first = k * block, count = std::min(block, n - first);
    if (first >= n) __builtin_trap();
    r->read_block(k, std::span<std::byte>(out).subspan(first * item, count * item));
  }
  for (std::uint64_t i = 0; i < n; ++i) {
    std::uint64_t got = 0;
    std::memcpy(&got, out.data() + i * item, item);
    const std::uint64_t expected = item == 4 ? (c.bits[i] & 0xffffffffULL) : c.bits[i];
    if (got != expected) __builtin_trap();
  }
  if (c.fill) {
    const std::vector<double> missing = r->missing_values();
    double f = 0;
    if (c.is_float) {
      float x = 0;
      const auto b = static_cast<std::uint32_t>(*c.fill);
      std::memcpy(&x, &b, 4);
      f = x;
    } else {
      std::memcpy(&f, &*c.fill, 8);
    }
    const bool found =
        std::any_of(missing.begin(), missing.end(), [f](double m) { return m == f || (m != m && f != f); });
    if (!found) __builtin_trap();
  }
}

}  // namespace detred::verify::fuzzing
