// SPDX-License-Identifier: BSD-3-Clause
// Every CPU path of any operator against the reference engine, bit for bit, and the inputs those tests draw.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cpu/cpu_backend.hpp"
#include "detred/detred.hpp"
#include "paths.hpp"
#include "reference/reference_engine.hpp"
#include "test_data.hpp"

namespace detred::testing {

/// True if two results have the same bits (results are floats, integers, or aggregates of them without padding).
template <class R>
bool same_bits(const R& a, const R& b) {
  return std::memcmp(&a, &b, sizeof(R)) == 0;
}

/// Sizes around every boundary of the order for lane type V: lanes, leaves, groups of 8 leaves, the driver's 1024
/// blocks (when `large`, and unless DETRED_TEST_MAX_LOG2 asks for sizes below 2^22: the aarch64 run under qemu).
template <class V>
std::vector<std::uint64_t> op_sizes(bool large) {
  const char* max_log2 = std::getenv("DETRED_TEST_MAX_LOG2");
  if (max_log2 != nullptr && *max_log2 != '\0' && std::atoi(max_log2) < 22) large = false;
  constexpr std::uint64_t W = order::lanes<V>;
  constexpr std::uint64_t L = order::leaf_size<V>;
  std::set<std::uint64_t> s = {0,     1,         2,         3,         W - 1, W, W + 1, L - 1, L, L + 1, 2 * L + W + 3,
                               8 * L, 8 * L + 1, 9 * L + 5, 33 * L + 7};
  if (large) s.insert(1024 * L + 1);
  return {s.begin(), s.end()};
}

/// Thread counts for the operator tests: one, the machine's two, an odd count, more threads than cores.
inline const std::vector<int>& op_thread_counts() {
  static const std::vector<int> counts = {1, 2, 3, 8};
  return counts;
}

/// Runs Op over x[0..n) on every instruction set and thread count, with the parallel threshold at 0 so that even
/// small inputs are split, and requires the reference engine's bits from each. Returns the reference result.
template <class Op>
typename Op::result expect_every_cpu_path(const order::operands<Op>& x, std::uint64_t n, const std::string& what) {
  const typename Op::result expected = reference::reduce<Op>(x, n);
  for (isa i : supported_isas()) {
    for (int t : op_thread_counts()) {
      const typename Op::result got =
          cpu::reduce<Op>(x, n, {.threads = t, .instruction_set = i, .parallel_threshold_bytes = 0});
      EXPECT_TRUE(same_bits(got, expected)) << what << " isa=" << to_string(i) << " threads=" << t << " n=" << n;
      comparisons() += 1;
    }
  }
  return expected;
}

/// n random integers of type I: the full range, a narrow range (many ties), or the extremes.
template <class I>
std::vector<I> random_integers(std::uint64_t n, std::uint64_t seed, int kind) {
  rng r(seed);
  std::vector<I> x(n);
  for (auto& e : x) {
    const std::uint64_t bits = r.next();
    switch (kind) {
      case 0:
        e = static_cast<I>(bits);
        break;
      case 1:
        e = static_cast<I>(static_cast<std::int64_t>(bits % 7) - 3);
        break;
      default:
        e = (bits & 1) != 0 ? std::numeric_limits<I>::max() : std::numeric_limits<I>::lowest();
        break;
    }
  }
  return x;
}

/// n random 16-bit patterns: every class of binary16 and bfloat16 (zeros, subnormals, Inf, NaN payloads) appears.
template <class H>
std::vector<H> random_halves(std::uint64_t n, std::uint64_t seed, bool finite_only) {
  rng r(seed);
  std::vector<H> x(n);
  for (auto& e : x) {
    auto bits = static_cast<std::uint16_t>(r.next());
    // Keep the exponent below all-ones: no Inf or NaN.
    const std::uint16_t exponent_mask = std::is_same_v<H, float16> ? 0x7c00 : 0x7f80;
    if (finite_only && (bits & exponent_mask) == exponent_mask) bits = static_cast<std::uint16_t>(bits ^ 0x4000);
    e = static_cast<H>(bits);
  }
  return x;
}

}  // namespace detred::testing
