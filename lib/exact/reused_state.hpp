// SPDX-License-Identifier: BSD-3-Clause
// One superaccumulator reused line after line of a batch. A short line (64 floats) touches a handful of its 136 words,
// so emptying the whole state for each line (a 1.1 KiB store) and rounding a copy of it (a 1.1 KiB copy, then a scan
// of every word) cost more than the line's additions. Here the state is emptied once; each line's result is rounded
// in place, over the words it touched, and only those words are cleared again. The value rounded is the same exact
// value, so the result is round_to's, bit for bit.
#pragma once

#include <cstdint>

#include "detred/exact/exact_ops.hpp"
#include "detred/exact/superaccumulator.hpp"

namespace detred::exact_cpu {

class reused_state {
 public:
  reused_state() : acc_(exact::empty_superaccumulator()) {}

  /// The state to add the next line to; empty (value 0, every term -0.0) after construction and after each take().
  exact::superaccumulator& state() { return acc_; }

  /// The correctly rounded value of what was added since the last take() (exact::round_to's result), leaving the
  /// state empty again.
  template <class T>
  T take() {
    constexpr int words = exact::superaccumulator::words;
    std::int64_t* const w = acc_.word;
    // The nonzero words, found a block of eight at a time (one test per block instead of one per word).
    int lo = 0;
    while (lo + 8 <= words &&
           (w[lo] | w[lo + 1] | w[lo + 2] | w[lo + 3] | w[lo + 4] | w[lo + 5] | w[lo + 6] | w[lo + 7]) == 0) {
      lo += 8;
    }
    while (lo < words && w[lo] == 0) ++lo;
    int hi = words - 1;
    while (hi - 7 >= lo &&
           (w[hi] | w[hi - 1] | w[hi - 2] | w[hi - 3] | w[hi - 4] | w[hi - 5] | w[hi - 6] | w[hi - 7]) == 0) {
      hi -= 8;
    }
    while (hi >= lo && w[hi] == 0) --hi;
    const T result = exact::round_words<T>(w, lo, hi, acc_.flags);
    // round_words normalized w[lo .. hi + 2] (at most the last word) in place; every other word is still zero.
    const int top = hi + 2 < words ? hi + 2 : words - 1;
    for (int k = lo; k <= top; ++k) w[k] = 0;
    acc_.pending = 0;
    acc_.flags = 0;
    return result;
  }

  /// What was added since the last take(), of n elements, finished by f (exact::finish_to's result), leaving the
  /// state empty again. A square root's comparisons and a quotient's division read the whole state, so for them it is
  /// emptied whole.
  template <class T>
  T take(exact::finish f, std::uint64_t n) {
    if (f == exact::finish::rounded) return take<T>();
    const T result = exact::finish_to<T>(f, acc_, n);
    acc_ = exact::empty_superaccumulator();
    return result;
  }

 private:
  exact::superaccumulator acc_;
};

}  // namespace detred::exact_cpu
