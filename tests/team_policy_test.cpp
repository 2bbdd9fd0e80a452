// SPDX-License-Identifier: BSD-3-Clause
// The default team's policy (lib/cpu/team_policy.hpp): a parallel region that did not beat one thread sends the
// default calls of its size class and the smaller ones to one thread for a back-off time that doubles at each losing
// probe and halves at each winning one; explicit thread counts are untouched; the driver's default thread count
// follows the process's policy.
#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include <gtest/gtest.h>

#include "cpu/cpu_backend.hpp"
#include "cpu/team_policy.hpp"
#include "detred/detred.hpp"

namespace detred::testing {
namespace {

using cpu::team_policy;
constexpr std::int64_t ms = 1'000'000;
constexpr std::uint64_t MiB = std::uint64_t{1} << 20;

TEST(TeamPolicy, ALosingRegionSendsItsSizeAndSmallerOnesToOneThread) {
  team_policy p;
  const std::int64_t t = 1000 * ms;
  EXPECT_EQ(p.team(8, 8 * MiB, t), 8);
  p.observe(8 * MiB, t, /*elapsed*/ 20 * ms, /*one thread*/ 2 * ms);  // a thread started a time slice late
  EXPECT_EQ(p.team(8, 8 * MiB, t + 1 * ms), 1);
  EXPECT_EQ(p.team(8, 1 * MiB, t + 1 * ms), 1);
  EXPECT_EQ(p.team(8, 64 * MiB, t + 1 * ms), 8) << "a larger region amortizes a late start: not judged by this one";
  EXPECT_EQ(p.team(8, 8 * MiB, t + team_policy::first_backoff_ns - 1), 1);
  EXPECT_EQ(p.team(8, 8 * MiB, t + team_policy::first_backoff_ns), 8) << "the probe after the back-off";
}

/// True if a loss observed at t sends the class to one thread for exactly `backoff`.
::testing::AssertionResult serial_for(const team_policy& p, std::int64_t t, std::int64_t backoff) {
  if (p.team(2, 4 * MiB, t + backoff - 1) != 1) return ::testing::AssertionFailure() << "the team is back too early";
  if (p.team(2, 4 * MiB, t + backoff) != 2) return ::testing::AssertionFailure() << "the team is not back in time";
  return ::testing::AssertionSuccess();
}

TEST(TeamPolicy, TheBackOffDoublesAtEachLossAndHalvesAtEachWin) {
  team_policy p;
  std::int64_t t = 0;
  std::int64_t expected = team_policy::first_backoff_ns;
  for (int k = 0; k < 8; ++k) {
    t += 10 * team_policy::longest_backoff_ns;
    ASSERT_EQ(p.team(2, 4 * MiB, t), 2);
    p.observe(4 * MiB, t, 5 * ms, 4 * ms);  // slower than one thread: a loss
    EXPECT_TRUE(serial_for(p, t, expected)) << "loss " << k;
    expected = std::min(2 * expected, team_policy::longest_backoff_ns);
  }
  EXPECT_EQ(expected, team_policy::longest_backoff_ns);
  // Two wins halve it twice: the next loss waits a quarter of the longest.
  t += 10 * team_policy::longest_backoff_ns;
  p.observe(4 * MiB, t, 3 * ms, 4 * ms);  // 3 ms where one thread takes 4: a win
  p.observe(4 * MiB, t, 3 * ms, 4 * ms);
  p.observe(4 * MiB, t, 5 * ms, 4 * ms);
  EXPECT_TRUE(serial_for(p, t, team_policy::longest_backoff_ns / 4));
  // Many wins: back to the first back-off, never below.
  for (int k = 0; k < 10; ++k) p.observe(4 * MiB, t, 3 * ms, 4 * ms);
  t += 10 * team_policy::longest_backoff_ns;
  p.observe(4 * MiB, t, 5 * ms, 4 * ms);
  EXPECT_TRUE(serial_for(p, t, team_policy::first_backoff_ns));
}

TEST(TeamPolicy, TheGainMustBeTenPercent) {
  team_policy p;
  p.observe(MiB, 0, 90, 100);
  EXPECT_EQ(p.team(2, MiB, 1), 2);
  p.observe(MiB, 0, 91, 100);
  EXPECT_EQ(p.team(2, MiB, 1), 1);
}

TEST(TeamPolicy, TheDriverFollowsTheProcesssPolicyForDefaultCallsOnly) {
  const std::int64_t far = std::int64_t{1} << 62;  // later than any steady clock reading: serial from now on
  // Explicit counts are untouched.
  EXPECT_EQ(cpu::thread_count(3), 3);
  // The process's policy after a loss at a large size: default calls get one thread (the batch driver's count too).
  cpu::default_team_policy().observe(std::uint64_t{1} << 40, far, 2, 1);
  // observe() keeps the back-off from `far`, in the future: every default call now runs on one thread.
  EXPECT_EQ(cpu::thread_count(0), 1);
  // The bits are the same whoever computes.
  std::vector<double> x(1 << 20);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = 1.0 / static_cast<double>(i + 1);
  const std::span<const double> xs(x);
  EXPECT_EQ(detred::sum(xs), detred::sum(xs, {.threads = 2}));
}

}  // namespace
}  // namespace detred::testing
