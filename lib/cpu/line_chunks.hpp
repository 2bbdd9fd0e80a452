// SPDX-License-Identifier: BSD-3-Clause
// How the batch drivers share contiguous lines among threads, whatever reduces a line (lib/cpu/batch_driver.cpp for
// tree and compensated mode, lib/exact/batch_driver.cpp for exact mode).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>

#include <omp.h>

#include "cpu_backend.hpp"

namespace detred::cpu {

/// Lines [0, count) in chunks of consecutive lines taken dynamically by `team` threads (segment lengths may be
/// anything): `chunk(begin, end)` reduces the lines of one chunk that are at most `longest` elements long and
/// returns how many it left. A longer line is for every thread at once, so afterwards `long_line(k, n)` is called,
/// on the calling thread, for each line left; only the chunks that left one are searched again, since a serial pass
/// over every line's length would cost about a tenth of a batch of short lines.
template <class Chunk, class LongLine>
void reduce_in_chunks(const line_set& lines, std::uint64_t count, std::uint64_t chunks, int team, std::uint64_t longest,
                      Chunk&& chunk, LongLine&& long_line) {
  chunks = std::min(chunks, count);
  const auto chunk_begin = [&](std::uint64_t c) { return count * c / chunks; };
  const std::unique_ptr<std::uint64_t[]> left(new std::uint64_t[chunks]);
#pragma omp parallel for schedule(dynamic, 1) num_threads(team)
  for (std::uint64_t c = 0; c < chunks; ++c) left[c] = chunk(chunk_begin(c), chunk_begin(c + 1));
  for (std::uint64_t c = 0; c < chunks; ++c) {
    for (std::uint64_t k = chunk_begin(c); left[c] > 0 && k < chunk_begin(c + 1); ++k) {
      const std::uint64_t n = lines.size(k);
      if (n > longest) {
        long_line(k, n);
        --left[c];
      }
    }
  }
}

}  // namespace detred::cpu
