// SPDX-License-Identifier: BSD-3-Clause
// The default team (threads = 0) on a busy machine: measured, not assumed.
//
// Why: a parallel region ends when its last thread does. On a machine whose cores are taken by other processes, the
// second thread may wait a scheduler time slice (milliseconds) before it starts, and the call waits with it: on a
// loaded 2-core machine, detred.sum of 10^6 doubles took 13-27 ms with the default team and 0.3 ms on one thread.
// Neither the thread count nor the load is known in advance, and OpenMP's wait policy is fixed when the runtime
// starts (OMP_WAIT_POLICY is the user's), so each region of a default call checks what it gained: the time from
// entering the region to its end against what one thread would have taken, estimated as n times the time per element
// of the team's fastest thread (a thread that started late does not raise the estimate, one that another process
// took off its core is slow per element and not the fastest: either way the region compares badly; on a machine
// shared fairly, every thread is slowed alike, and a team that still helps is kept).
//
// A region that did not beat one thread by 10 % sends the next calls of its size (and smaller) to one thread for a
// back-off time, which doubles at each losing probe (from 0.1 s to 3.2 s) and halves at each winning one (on a busy
// machine a probe now and then wins by luck; resetting at once would probe ten times as often). A probe is one call:
// on a machine that stays busy, about one call per size class in every 3.2 s runs with the full team; once the
// machine is idle again, the full team is back within the back-off. Explicit thread counts (threads > 0) are neither
// changed nor observed. Threads never change the result bits.
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>

namespace detred::cpu {

class team_policy {
 public:
  static constexpr std::int64_t first_backoff_ns = 100'000'000;
  static constexpr std::int64_t longest_backoff_ns = 3'200'000'000;
  /// A region must take at most this share of one thread's estimated time.
  static constexpr double required_gain = 0.9;

  /// The team of a default call over `bytes` of input that may use `available` threads, at time now_ns (steady
  /// clock).
  int team(int available, std::uint64_t bytes, std::int64_t now_ns) const {
    return now_ns < classes_[size_class(bytes)].serial_until.load(std::memory_order_relaxed) ? 1 : available;
  }

  /// A default call's parallel region over `bytes` ended at now_ns: it took elapsed_ns from entry to end, where one
  /// thread would have taken about one_thread_ns. Sizes are judged by class (powers of two): a region that lost sends
  /// its class and the smaller ones to one thread (a thread's late start costs a short region more), one that won
  /// halves the back-off of its class.
  void observe(std::uint64_t bytes, std::int64_t now_ns, std::int64_t elapsed_ns, std::int64_t one_thread_ns) {
    size_state& mine = classes_[size_class(bytes)];
    if (static_cast<double>(elapsed_ns) <= required_gain * static_cast<double>(one_thread_ns)) {
      const std::int64_t backoff = mine.backoff.load(std::memory_order_relaxed);
      mine.backoff.store(std::max(backoff / 2, first_backoff_ns), std::memory_order_relaxed);
      return;
    }
    const std::int64_t backoff = mine.backoff.load(std::memory_order_relaxed);
    mine.backoff.store(std::min(2 * backoff, longest_backoff_ns), std::memory_order_relaxed);
    for (std::size_t k = 0; k <= size_class(bytes); ++k) {
      std::int64_t until = classes_[k].serial_until.load(std::memory_order_relaxed);
      while (until < now_ns + backoff &&
             !classes_[k].serial_until.compare_exchange_weak(until, now_ns + backoff, std::memory_order_relaxed)) {
      }
    }
  }

 private:
  struct size_state {
    std::atomic<std::int64_t> serial_until{0};
    std::atomic<std::int64_t> backoff{first_backoff_ns};
  };
  static std::size_t size_class(std::uint64_t bytes) { return static_cast<std::size_t>(std::bit_width(bytes)); }

  size_state classes_[65];
};

/// The process's policy (driver.cpp): every default call consults and feeds it.
team_policy& default_team_policy();

}  // namespace detred::cpu
