// SPDX-License-Identifier: BSD-3-Clause
// detred::min, max, argmin, argmax: the front door of their operations (front_door.hpp), which refuses an empty input.
#include <cstdint>
#include <span>

#include "detred/extrema.hpp"
#include "front_door.hpp"

namespace detred {

#define DETRED_SELECTIONS(T)                                                                                       \
  T min(std::span<const T> x, const options& opt) { return front_door<operation::min>(x, opt); }                   \
  T max(std::span<const T> x, const options& opt) { return front_door<operation::max>(x, opt); }                   \
  std::uint64_t argmin(std::span<const T> x, const options& opt) { return front_door<operation::argmin>(x, opt); } \
  std::uint64_t argmax(std::span<const T> x, const options& opt) { return front_door<operation::argmax>(x, opt); }

DETRED_SELECTIONS(double)
DETRED_SELECTIONS(float)
DETRED_SELECTIONS(std::int32_t)
DETRED_SELECTIONS(std::int64_t)
DETRED_SELECTIONS(std::uint32_t)
DETRED_SELECTIONS(std::uint64_t)
#undef DETRED_SELECTIONS

}  // namespace detred
