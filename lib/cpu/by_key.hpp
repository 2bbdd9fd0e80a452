// SPDX-License-Identifier: BSD-3-Clause
// The CPU's reductions by key (by_key.cpp): the values streamed through their bins' lane states, no sort.
#pragma once

#include <cstdint>

#include "core/operators.hpp"
#include "cpu_backend.hpp"
#include "detred/order.hpp"

namespace detred::cpu {

/// The operators of the calls by key (sum_by_key, stats_by_key) that reduce_by_key takes: the sums of float and double
/// in tree and compensated mode, and stats. (Exact mode's sums by key group the values first,
/// lib/api/group_by_key.hpp.)
using by_key_operators =
    op_list<order::sum_op<float, order::plain_sums>, order::sum_op<float, order::compensated_sums>,
            order::sum_op<double, order::plain_sums>, order::sum_op<double, order::compensated_sums>,
            order::moments_op<float>, order::moments_op<double>>;

/// True where reduce_by_key beats grouping the values by a stable counting sort and reducing the groups as segments
/// (lib/api/group_by_key.hpp), on one thread of the development VM:
///   - inputs of at least 16 MiB of values and keys: below, the sort's scatter stays in the caches (2^20 floats,
///     int64 keys into 2^16 bins: 2.6 ms sorted, 4.2 ms streamed; 2^21: 39 and 7 ms);
///   - at least 32 bins, and four per thread: a bin is streamed by one thread, where the sort's segments of a few
///     bins are long lines that every thread shares, and few bins are few streams for the sort's scatter (2^24
///     floats into 16 bins: 23 ms sorted, 25 ms streamed; 32 bins: 29 and 25 ms).
inline bool streams_by_key(std::uint64_t n, std::uint64_t bins, std::uint64_t bytes_per_value, int threads) {
  const std::uint64_t per_thread = 4 * static_cast<std::uint64_t>(threads > 0 ? threads : 1);
  return n * bytes_per_value >= (std::uint64_t{16} << 20) && bins >= 32 && bins >= per_thread;
}

/// results[b] = Op over the values whose key is b, in index order, for b < bins (K: std::uint32_t or std::int64_t;
/// Op in by_key_operators): each bin's result has the bits of reduce<Op> on its values gathered into an array.
/// Returns n, or the index of the first key that is not below `bins` (then no result is written).
template <class Op, class K>
std::uint64_t reduce_by_key(const typename Op::input* values, const K* keys, std::uint64_t n, std::uint64_t bins,
                            typename Op::result* results, const run_options& how);

}  // namespace detred::cpu
