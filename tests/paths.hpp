// SPDX-License-Identifier: BSD-3-Clause
// Every way detred can compute a sum on this machine, and the check that all of them return the reference's bits.
#pragma once

#include <atomic>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/operators.hpp"
#include "cpu/cpu_backend.hpp"
#include "detred/detred.hpp"
#include "test_data.hpp"

namespace detred::testing {

/// Every instruction set detred has a kernel for, on some architecture.
inline std::vector<isa> all_isas() { return {isa::baseline, isa::avx2, isa::avx512, isa::neon}; }

/// The others (the x86 ones on aarch64, neon on x86-64): skipped, and the tests say so.
inline std::vector<isa> unsupported_isas() {
  std::vector<isa> out;
  for (isa i : all_isas()) {
    if (!isa_supported(i)) out.push_back(i);
  }
  return out;
}

inline const std::vector<int>& thread_counts() {
  static const std::vector<int> counts = {1, 2, 3, 4, 7, 16, 64};
  return counts;
}

/// Number of (input, path) bit comparisons made so far; reported at the end of each test binary.
inline std::atomic<std::uint64_t>& comparisons() {
  static std::atomic<std::uint64_t> count{0};
  return count;
}

/// Runs x through every instruction set and thread count, through the public API and through the threaded driver
/// with the parallel threshold lowered to 0 (so small inputs are split among threads too), and requires the
/// reference's bits from each. Returns the reference result.
template <class T>
T expect_every_path_matches_reference(std::span<const T> x, mode m, const std::string& what) {
  const T expected = reference::sum(x, {.mode = m});
  for (isa i : supported_isas()) {
    for (int t : thread_counts()) {
      const T api = detred::sum(x, {.mode = m, .threads = t, .isa = i});
      const T split = with_sum_operator<T>(m, [&]<class Op>() {
        return cpu::reduce<Op>(x, {.threads = t, .instruction_set = i, .parallel_threshold_bytes = 0});
      });
      EXPECT_EQ(bits(api), bits(expected))
          << what << " mode=" << to_string(m) << " isa=" << to_string(i) << " threads=" << t << " n=" << x.size()
          << " got " << api << " expected " << expected;
      EXPECT_EQ(bits(split), bits(expected)) << what << " (threshold 0) mode=" << to_string(m)
                                             << " isa=" << to_string(i) << " threads=" << t << " n=" << x.size();
      comparisons() += 2;
    }
  }
  return expected;
}

}  // namespace detred::testing
