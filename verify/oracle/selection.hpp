// SPDX-License-Identifier: BSD-3-Clause
// The oracle of min, max, argmin and argmax: one plain scalar loop each, written from the documented rules
// (detred/extrema.hpp) and sharing no code with the library's operators:
//   - a NaN anywhere: min and max are the canonical quiet NaN, argmin and argmax the index of the first NaN;
//   - -0.0 is smaller than +0.0;
//   - of equal values the lowest index wins.
// Selection rounds nothing, so the library's result must equal these bit for bit.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <type_traits>

namespace detred::verify {

namespace selection_detail {

/// a before b in the order min uses: by value, -0.0 before +0.0 (no NaN here).
template <class T>
bool before(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (a == b) return std::signbit(a) && !std::signbit(b);
  }
  return a < b;
}

/// The index of the first NaN, or n.
template <class T>
std::uint64_t first_nan(std::span<const T> x) {
  if constexpr (std::is_floating_point_v<T>) {
    for (std::uint64_t i = 0; i < x.size(); ++i) {
      if (std::isnan(x[i])) return i;
    }
  }
  return x.size();
}

/// The index of the first element that no other element precedes (smallest = true) or follows; x is not empty.
template <class T>
std::uint64_t select(std::span<const T> x, bool smallest) {
  const std::uint64_t nan = first_nan(x);
  if (nan < x.size()) return nan;
  std::uint64_t best = 0;
  for (std::uint64_t i = 1; i < x.size(); ++i) {
    if (smallest ? before(x[i], x[best]) : before(x[best], x[i])) best = i;  // strictly: ties keep the earlier
  }
  return best;
}

template <class T>
T value_at(std::span<const T> x, std::uint64_t i) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(x[i])) return std::numeric_limits<T>::quiet_NaN();  // the canonical NaN
  }
  return x[i];
}

}  // namespace selection_detail

/// x must not be empty (the library refuses empty input; so does the tool, before calling these).
template <class T>
std::uint64_t oracle_argmin(std::span<const T> x) {
  return selection_detail::select(x, true);
}
template <class T>
std::uint64_t oracle_argmax(std::span<const T> x) {
  return selection_detail::select(x, false);
}
template <class T>
T oracle_min(std::span<const T> x) {
  return selection_detail::value_at(x, oracle_argmin(x));
}
template <class T>
T oracle_max(std::span<const T> x) {
  return selection_detail::value_at(x, oracle_argmax(x));
}

/// The same selection over elements that arrive in chunks: each chunk's own selection against the best so far,
/// replaced only by a strictly better element (so ties keep the earlier index) or by a first NaN, which then stays.
template <class T>
class running_selection {
 public:
  explicit running_selection(bool smallest) : smallest_(smallest) {}

  void add(std::span<const T> x) {
    if (!x.empty() && !nan_) {
      const std::uint64_t nan = selection_detail::first_nan(x);
      if (nan < x.size()) {
        nan_ = true;
        index_ = offset_ + nan;
        value_ = x[nan];
      } else {
        const std::uint64_t local = selection_detail::select(x, smallest_);
        const bool better =
            smallest_ ? selection_detail::before(x[local], value_) : selection_detail::before(value_, x[local]);
        if (!any_ || better) {
          index_ = offset_ + local;
          value_ = x[local];
        }
      }
      any_ = true;
    }
    offset_ += x.size();
  }
  /// The selected index and value (the canonical NaN for a NaN); the elements must not all be empty.
  std::uint64_t index() const { return index_; }
  T value() const {
    if constexpr (std::is_floating_point_v<T>) {
      if (nan_) return std::numeric_limits<T>::quiet_NaN();
    }
    return value_;
  }

 private:
  bool smallest_;
  bool any_ = false;
  bool nan_ = false;
  std::uint64_t offset_ = 0;
  std::uint64_t index_ = 0;
  T value_{};
};

}  // namespace detred::verify
