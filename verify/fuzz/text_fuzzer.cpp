// SPDX-License-Identifier: BSD-3-Clause
// libFuzzer target: the text parser, one number per line and as CSV by index and by name, one column or a pair (the x
// and y of a dot product), for both types. Any bytes must give numbers or an input_error; never a crash, never a
// NaN, and a pair's columns always have the same length.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "input_error.hpp"
#include "text.hpp"

namespace {
template <class Parse>
void run(Parse parse, std::string_view text, const std::string& column) {
  try {
    for (auto v : parse(text, column, "fuzz.txt")) {
      if (v != v) __builtin_trap();
    }
  } catch (const detred::verify::input_error&) {
  }
}
template <class ParsePair>
void run_pair(ParsePair parse, std::string_view text, const std::string& first, const std::string& second) {
  try {
    const auto columns = parse(text, first, second, "fuzz.csv");
    if (columns[0].size() != columns[1].size()) __builtin_trap();
    for (const auto& column : columns) {
      for (auto v : column) {
        if (v != v) __builtin_trap();
      }
    }
  } catch (const detred::verify::input_error&) {
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const std::string column : {"", "1", "y"}) {
    run(detred::verify::parse_text_f64, text, column);
    run(detred::verify::parse_text_f32, text, column);
  }
  run_pair(detred::verify::parse_text_pair_f64, text, "0", "1");
  run_pair(detred::verify::parse_text_pair_f32, text, "x", "y");
  run_pair(detred::verify::parse_text_pair_f64, text, "2", "x");
  return 0;
}
