// SPDX-License-Identifier: BSD-3-Clause
// The exit statuses of the detred tool (docs/verify.md lists them with their meaning).
#pragma once

namespace detred::verify::cli {

enum exit_status : int {
  success = 0,           ///< all results bitwise equal (and, for verify, within their bounds)
  bits_differ = 1,       ///< verify: a bitwise mismatch between backends; check: a result or a SHA-256 differs
  bad_input = 2,         ///< bad input file, bad golden file, or bad usage
  bound_violated = 3,    ///< verify: an error above the documented bound (or an impossible non-finite result)
  internal_failure = 4,  ///< the tool could not finish: a CUDA error, memory exhausted, an output it cannot write
};

}  // namespace detred::verify::cli
