// SPDX-License-Identifier: BSD-3-Clause
// What detred check found for each recorded result, and its three renderings: text lines, JSON, JUnit XML.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common.hpp"

namespace detred::verify::cli {

/// One result of one path, against the golden bits.
struct path_outcome {
  std::string path;  ///< compute_path::label()
  result_bits got;
  bool equal = true;
};

/// One recorded result (an input, an op, an output, a mode) and what this machine computed for it.
struct result_check {
  std::string input;  ///< the input as read (FILE or FILE:VARIABLE, after --data-dir; "X and Y" for dot's two)
  /// The input with its file names relative to the golden file's folder: the JUnit classname, the same on every
  /// checkout and build folder.
  std::string report_input;
  std::string op;
  std::string output;  ///< stats' member ("mean"); empty for the operations with one result
  std::string mode;    ///< empty for the operations without modes (selections, integer sums)
  result_bits golden;
  std::vector<path_outcome> paths;  ///< empty when the data changed
  std::string sha256_recorded;      ///< set, with sha256_now, when the data's SHA-256 differs
  std::string sha256_now;
  double seconds = 0;

  bool data_changed() const { return !sha256_now.empty(); }
  /// "sum tree", "stats.mean tree", "argmin": the op, its output and its mode.
  std::string label() const;
  bool passed() const;
  /// Empty when passed; otherwise which result changed and how, e.g. "sum tree on cpu/automatic: 0x... (1.5),
  /// golden 0x... (1.4999999999999998): 1 ulp apart", after "the data changed: SHA-256 ...; " when it did.
  std::string failure_message() const;
};

/// The distance between two floating-point results of the same type in units in the last place: the number of
/// representable values from one to the other (+0 and -0 are one apart); nullopt when either is NaN, for integer
/// results and refused ones.
std::optional<std::uint64_t> ulps_apart(const result_bits& a, const result_bits& b);
/// "1 ulp apart", "N ulps apart", "NaN, no distance", or "integers differ".
std::string distance_text(const result_bits& a, const result_bits& b);

/// Parses "0x" + hex digits (8 for 32-bit types, 16 for 64-bit ones) into the bits of a result of type t; nullopt
/// when malformed.
std::optional<result_bits> parse_bits(const std::string& hex, dtype t);

nlohmann::ordered_json check_json(const std::vector<result_check>& checks);
/// A JUnit XML document: one testsuite named after the golden file, one testcase per recorded result.
std::string check_junit(const std::string& golden, const std::vector<result_check>& checks);

}  // namespace detred::verify::cli
