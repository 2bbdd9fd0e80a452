// SPDX-License-Identifier: BSD-3-Clause
// The one exception the readers throw: a problem with an input file, with the file's name in front.
#pragma once

#include <stdexcept>
#include <string>

namespace detred::verify {

/// what() is "FILE: problem", one line, ready for the user; the tool exits with status 2.
class input_error : public std::runtime_error {
 public:
  input_error(const std::string& file, const std::string& problem) : std::runtime_error(file + ": " + problem) {}
};

}  // namespace detred::verify
