// SPDX-License-Identifier: BSD-3-Clause
// The list of candidate variables that an error message shows when a named variable is missing.
#pragma once

#include <string>
#include <vector>

namespace detred::verify {

/// "float variables: a, b, c" (at most 10 names, then "and N more"), or "the file has no float variables".
inline std::string describe_variables(const std::string& what, const std::vector<std::string>& names) {
  if (names.empty()) return "the file has no " + what;
  std::string out = what + ": ";
  for (std::size_t i = 0; i < names.size() && i < 10; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > 10) out += " and " + std::to_string(names.size() - 10) + " more";
  return out;
}

}  // namespace detred::verify
