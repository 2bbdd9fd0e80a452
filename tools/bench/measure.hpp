// SPDX-License-Identifier: BSD-3-Clause
// Timing of one variant: warm it up, then time a batch of calls long enough to swamp the clock's resolution.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <vector>

namespace detred::bench {

struct timing_policy {
  double warmup_seconds = 0.010;  ///< run at least this long (and at least one call) before timing
  double min_seconds = 0.030;     ///< a timed batch lasts at least this long (and has at least one call)
};

/// Seconds per call of call(). Templated so that the call is inlined into the timing loop: no indirect call or
/// clock read between iterations, which matters at n = 2^10 where one call takes tens of nanoseconds.
///
/// The warm-up also estimates the cost of one call; the batch size follows from it. Warming up every variant
/// before every measurement matters on this kind of machine: the first two-thread pass after single-thread work
/// is often slow (the second thread has to wake up and its caches are cold).
template <class Call>
double seconds_per_call(Call&& call, const timing_policy& policy) {
  using clock = std::chrono::steady_clock;
  const auto seconds = [](clock::duration d) { return std::chrono::duration<double>(d).count(); };

  std::uint64_t warmup_calls = 0;
  const auto warmup_start = clock::now();
  double warmup_elapsed = 0;
  do {
    call();
    ++warmup_calls;
    warmup_elapsed = seconds(clock::now() - warmup_start);
  } while (warmup_elapsed < policy.warmup_seconds);

  const double estimate = warmup_elapsed / static_cast<double>(warmup_calls);
  const auto batch = static_cast<std::uint64_t>(std::max(1.0, std::ceil(policy.min_seconds / estimate)));
  const auto start = clock::now();
  for (std::uint64_t i = 0; i < batch; ++i) call();
  return seconds(clock::now() - start) / static_cast<double>(batch);
}

/// The median of a non-empty sample (the mean of the two middle values for an even count).
inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 == 1 ? v[h] : (v[h - 1] + v[h]) / 2;
}

}  // namespace detred::bench
