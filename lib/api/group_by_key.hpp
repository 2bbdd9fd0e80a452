// SPDX-License-Identifier: BSD-3-Clause
// Grouping values by key for the *_by_key calls: a stable counting sort, so that each bin's values keep their index
// order and the bin's reduction is the canonical order over them (docs/batched.md).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include <omp.h>

#include "core/scratch_array.hpp"
#include "detred/options.hpp"

namespace detred {

/// The values in bin order: bin b's values are values[offsets[b] .. offsets[b + 1]), in index order.
template <class T>
struct grouped_values {
  std::vector<std::uint64_t> offsets;
  scratch_array<T> values;
};

namespace grouping {

/// Parts of the keys counted and scattered by threads of their own: each part needs a histogram of every bin, so a
/// part takes at least four values per bin and 2^15 values (a fork and join costs microseconds).
inline int parts_for(std::uint64_t n, std::uint64_t bins, int threads) {
  const std::uint64_t floor = bins * 4 > (std::uint64_t{1} << 15) ? bins * 4 : (std::uint64_t{1} << 15);
  const std::uint64_t most = n / floor;
  const int team = threads > 0 ? threads : omp_get_max_threads();
  if (most <= 1 || team <= 1) return 1;
  return most < static_cast<std::uint64_t>(team) ? static_cast<int>(most) : team;
}

/// True if `key` names one of `bins` bins.
template <class K>
bool is_bin(K key, std::uint64_t bins) {
  if constexpr (std::is_signed_v<K>) {
    if (key < 0) return false;
  }
  return static_cast<std::uint64_t>(key) < bins;
}

/// Throws detred::error unless there are as many keys as values.
inline void check_lengths(std::uint64_t keys, std::uint64_t values, const char* what) {
  if (keys != values) {
    throw error(std::string("detred::") + what + ": keys and values differ in length (" + std::to_string(keys) +
                " and " + std::to_string(values) + ")");
  }
}

/// Throws the error of a key that is not a bin: `key`, the first such (lowest index), at index i.
template <class K>
[[noreturn]] void throw_not_a_bin(K key, std::uint64_t i, std::uint64_t bins, const char* what) {
  throw error(std::string("detred::") + what + ": key " + std::to_string(key) + " at index " + std::to_string(i) +
              " is not a bin (the results span holds " + std::to_string(bins) + " bins)");
}

}  // namespace grouping

/// Groups `values` by `keys` into `bins` bins. Threads (options::threads) count and scatter contiguous parts of the
/// keys; a bin's values from part p go after those from parts before p, so the order within a bin is the index
/// order whatever the thread count. Throws detred::error naming the first key (lowest index) that is not a bin.
template <class T, class K>
grouped_values<T> group_by_key(std::span<const T> values, std::span<const K> keys, std::uint64_t bins, int threads,
                               const char* what) {
  grouping::check_lengths(keys.size(), values.size(), what);
  const std::uint64_t n = keys.size();
  const int parts = grouping::parts_for(n, bins, threads);
  const auto part_begin = [&](int p) { return n / static_cast<std::uint64_t>(parts) * static_cast<std::uint64_t>(p); };
  const auto part_end = [&](int p) { return p + 1 == parts ? n : part_begin(p + 1); };
  // cursor[p * bins + b]: first the count of bin b in part p, then where part p writes its next value of bin b.
  std::vector<std::uint64_t> cursor(static_cast<std::uint64_t>(parts) * bins, 0);
  std::vector<std::uint64_t> first_bad(static_cast<std::size_t>(parts), n);
#pragma omp parallel for schedule(static, 1) num_threads(parts) if (parts > 1)
  for (int p = 0; p < parts; ++p) {
    std::uint64_t* const count = cursor.data() + static_cast<std::uint64_t>(p) * bins;
    const std::uint64_t end = part_end(p);
    for (std::uint64_t i = part_begin(p); i < end; ++i) {
      if (!grouping::is_bin(keys[i], bins)) {
        first_bad[static_cast<std::size_t>(p)] = i;
        break;
      }
      ++count[static_cast<std::uint64_t>(keys[i])];
    }
  }
  for (int p = 0; p < parts; ++p) {
    const std::uint64_t i = first_bad[static_cast<std::size_t>(p)];
    if (i < n) grouping::throw_not_a_bin(keys[i], i, bins, what);
  }
  grouped_values<T> g{std::vector<std::uint64_t>(bins + 1), scratch_array<T>(n)};
  std::uint64_t at = 0;
  for (std::uint64_t b = 0; b < bins; ++b) {
    g.offsets[b] = at;
    for (int p = 0; p < parts; ++p) {
      std::uint64_t& c = cursor[static_cast<std::uint64_t>(p) * bins + b];
      const std::uint64_t count = c;
      c = at;
      at += count;
    }
  }
  g.offsets[bins] = at;
  T* const out = g.values.data();
#pragma omp parallel for schedule(static, 1) num_threads(parts) if (parts > 1)
  for (int p = 0; p < parts; ++p) {
    std::uint64_t* const next = cursor.data() + static_cast<std::uint64_t>(p) * bins;
    const std::uint64_t end = part_end(p);
    for (std::uint64_t i = part_begin(p); i < end; ++i) out[next[static_cast<std::uint64_t>(keys[i])]++] = values[i];
  }
  return g;
}

}  // namespace detred
