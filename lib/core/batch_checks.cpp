// SPDX-License-Identifier: BSD-3-Clause
// Argument checks of the batched entry points.
#include "batch_checks.hpp"

#include <cstdint>
#include <string>

namespace detred {

void validate_segment_count(const segments& s, std::uint64_t results, const char* what) {
  const std::string call = std::string("detred::") + what + ": ";
  if (s.offsets.empty()) throw error(call + "offsets must hold at least one entry (segment count + 1)");
  const std::uint64_t count = s.offsets.size() - 1;
  if (results != count) {
    throw error(call + "the results span holds " + std::to_string(results) + " elements, but the offsets describe " +
                std::to_string(count) + " segments");
  }
}

void validate_segments(const segments& s, std::uint64_t extent, std::uint64_t results, const char* what) {
  validate_segment_count(s, results, what);
  const std::string call = std::string("detred::") + what + ": ";
  const std::uint64_t count = s.offsets.size() - 1;
  for (std::uint64_t k = 0; k < count; ++k) {
    if (s.offsets[k + 1] < s.offsets[k]) {
      throw error(call + "offsets decrease at segment " + std::to_string(k) + " (" + std::to_string(s.offsets[k]) +
                  " then " + std::to_string(s.offsets[k + 1]) + ")");
    }
  }
  if (s.offsets[count] > extent) {
    throw error(call + "the last offset " + std::to_string(s.offsets[count]) + " is past the end of the " +
                std::to_string(extent) + " values");
  }
}

void refuse_empty_segments(const segments& s, const char* what) {
  for (std::uint64_t k = 0; k + 1 < s.offsets.size(); ++k) {
    if (s.offsets[k + 1] == s.offsets[k]) {
      throw error(std::string("detred::") + what + ": segment " + std::to_string(k) +
                  " is empty, and an empty array has no " + what + " (it needs at least 1 element)");
    }
  }
}

}  // namespace detred
