// SPDX-License-Identifier: BSD-3-Clause
// Text input: one number per line, or one column of a CSV file.
//
// Rules: lines end in \n or \r\n; blank lines and lines starting with '#' are skipped; spaces and tabs around a
// number are ignored; numbers are read with std::from_chars, so the result is the correctly rounded value of the
// decimal text, on every machine and in every locale. "inf" and "-inf" are accepted; NaN is not (a NaN in a text
// file is nearly always a missing value, and it would make every sum NaN); binary inputs may hold NaN. A value
// whose magnitude overflows, or underflows to zero, in the target type is an error.
//
// CSV: fields are separated by commas; a field may be wrapped in double quotes. The column is a 0-based index or
// a header name. The first non-blank line is a header when a name is given, or when its selected field is not a
// number. A pair of columns (the x and y of a dot product) follows the same rules, the first column deciding
// whether the first line is a header.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace detred::verify {

/// Parses text as described above; column empty means one number per line. Throws input_error naming `name` and
/// the line for the first problem found.
std::vector<double> parse_text_f64(std::string_view text, const std::string& column, const std::string& name);
std::vector<float> parse_text_f32(std::string_view text, const std::string& column, const std::string& name);

/// Two columns of a CSV file (each an index or a header name), read as above.
std::array<std::vector<double>, 2> parse_text_pair_f64(std::string_view text, const std::string& first,
                                                       const std::string& second, const std::string& name);
std::array<std::vector<float>, 2> parse_text_pair_f32(std::string_view text, const std::string& first,
                                                      const std::string& second, const std::string& name);

/// The same rules, a line at a time, for text read in pieces (element_stream.hpp); the functions above use it.
template <class T>
class text_parser {
 public:
  /// columns: empty (one number per line), one column or two (index or header name each).
  text_parser(std::vector<std::string> columns, std::string name);
  /// Parses the next line (its '\n' removed; a '\r' before it is accepted) and appends its numbers: out[0] gets
  /// the (first) column, out[1] the second. Throws input_error naming the file and the line.
  void line(std::string_view line, std::array<std::vector<T>, 2>& out);
  /// After the last line: throws input_error if the text held no numbers.
  void finish() const;

 private:
  std::vector<std::string> columns_;
  std::string name_;
  std::vector<std::optional<std::size_t>> selected_;
  bool all_indices_ = true;
  bool first_ = true;
  bool numbers_ = false;
  std::size_t line_number_ = 0;
};

}  // namespace detred::verify
