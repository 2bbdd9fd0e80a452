// SPDX-License-Identifier: BSD-3-Clause
// See variable_reader.hpp.
#include "variable_reader.hpp"

#include <algorithm>
#include <limits>

namespace detred::verify {

std::uint64_t variable_reader::size() const {
  std::uint64_t n = 1;
  for (std::uint64_t d : shape()) {
    if (d == 0) return 0;
    if (n > std::numeric_limits<std::uint64_t>::max() / d) return std::numeric_limits<std::uint64_t>::max();
    n *= d;
  }
  return n;
}

std::uint64_t variable_reader::block_count() const {
  const std::uint64_t n = size(), b = block_elements();
  return n == 0 ? 0 : (n + b - 1) / b;
}

std::uint64_t rows_per_block(const std::vector<std::uint64_t>& shape, std::uint64_t rows_per_chunk,
                             std::size_t item_bytes, std::uint64_t target_bytes) {
  if (shape.empty()) return 1;
  std::uint64_t row_bytes = item_bytes;
  for (std::size_t d = 1; d < shape.size(); ++d) row_bytes *= std::max<std::uint64_t>(shape[d], 1);
  const std::uint64_t chunk_rows = std::max<std::uint64_t>(rows_per_chunk, 1);
  const std::uint64_t chunk_bytes = chunk_rows * row_bytes;
  const std::uint64_t factor = std::max<std::uint64_t>(target_bytes / std::max<std::uint64_t>(chunk_bytes, 1), 1);
  return std::min(chunk_rows * factor, std::max<std::uint64_t>(shape[0], 1));
}

std::uint64_t elements_in_rows(const std::vector<std::uint64_t>& shape, std::uint64_t rows) {
  if (shape.empty()) return 1;
  std::uint64_t row = 1;
  for (std::size_t d = 1; d < shape.size(); ++d) row *= shape[d];
  return std::max<std::uint64_t>(rows * row, 1);
}

}  // namespace detred::verify
