// SPDX-License-Identifier: BSD-3-Clause
// Command-line options of detred-bench.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "detred/options.hpp"
#include "measure.hpp"

namespace detred::bench {

struct bench_options {
  std::vector<std::uint64_t> sizes;  ///< element counts
  std::vector<int> threads;
  std::vector<std::string> types;  ///< "double", "float"
  int rounds = 0;
  timing_policy timing;
  std::vector<detred::isa> isas;         ///< detred runs once per entry, interleaved with the rest
  std::optional<std::string> json_path;  ///< "-" for stdout
};

/// Parses argv; prints help or an error and exits on bad input.
bench_options parse_bench_options(int argc, char** argv);

/// "2^20" or "1048576" to an element count. Throws std::invalid_argument.
std::uint64_t parse_size(const std::string& text);

/// An element count as "2^k" when it is a power of two, else in decimal.
std::string format_size(std::uint64_t n);

}  // namespace detred::bench
