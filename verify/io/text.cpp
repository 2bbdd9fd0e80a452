// SPDX-License-Identifier: BSD-3-Clause
// See text.hpp for the accepted syntax.
#include "text.hpp"

#include <array>
#include <charconv>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "input_error.hpp"

namespace detred::verify {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::string printable(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 40)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  if (s.size() > 40) out += "...";
  return out;
}

std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> fields;
  while (true) {
    const std::size_t comma = line.find(',');
    std::string_view field = trim(line.substr(0, comma));
    if (field.size() >= 2 && field.front() == '"' && field.back() == '"') field = field.substr(1, field.size() - 2);
    fields.push_back(field);
    if (comma == std::string_view::npos) return fields;
    line.remove_prefix(comma + 1);
  }
}

enum class parse_status { ok, not_a_number, out_of_range };

template <class T>
parse_status parse_number(std::string_view s, T& out) {
  if (s.size() > 1 && s.front() == '+' && s[1] != '-' && s[1] != '+') s.remove_prefix(1);
  if (s.empty()) return parse_status::not_a_number;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out, std::chars_format::general);
  if (ec == std::errc::result_out_of_range) return parse_status::out_of_range;
  if (ec != std::errc() || end != s.data() + s.size()) return parse_status::not_a_number;
  return parse_status::ok;
}

std::optional<std::size_t> as_index(const std::string& column) {
  if (column.empty() || column.size() > 9) return std::nullopt;
  std::size_t v = 0;
  for (char c : column) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<std::size_t>(c - '0');
  }
  return v;
}

}  // namespace

// Each column is an index, or a name resolved from the header line.
template <class T>
text_parser<T>::text_parser(std::vector<std::string> columns, std::string name)
    : columns_(std::move(columns)), name_(std::move(name)) {
  for (const std::string& c : columns_) {
    selected_.push_back(as_index(c));
    all_indices_ = all_indices_ && selected_.back().has_value();
  }
}

template <class T>
void text_parser<T>::line(std::string_view raw, std::array<std::vector<T>, 2>& out) {
  const char* type = sizeof(T) == 4 ? "float32" : "float64";
  const std::string_view line = trim(raw);
  ++line_number_;
  if (line.empty() || line.front() == '#') return;
  const std::string where = "line " + std::to_string(line_number_) + ": ";

  std::vector<std::string_view> fields;
  if (columns_.empty()) {
    if (line.find(',') != std::string_view::npos) {
      throw input_error(name_, where + "expected one number per line, found a ',' (use --column for CSV)");
    }
    fields.push_back(line);
  } else {
    const std::vector<std::string_view> all = split_fields(line);
    if (first_ && !all_indices_) {
      for (std::size_t c = 0; c < columns_.size(); ++c) {
        for (std::size_t k = 0; k < all.size() && !selected_[c]; ++k) {
          if (all[k] == columns_[c]) selected_[c] = k;
        }
        if (!selected_[c]) {
          throw input_error(name_, where + "no column named '" + printable(columns_[c]) + "' in the header line");
        }
      }
      first_ = false;
      return;
    }
    for (const std::optional<std::size_t>& k : selected_) {
      if (*k >= all.size()) {
        throw input_error(name_, where + "has " + std::to_string(all.size()) + " fields, column " + std::to_string(*k) +
                                     " (0-based) was requested");
      }
      fields.push_back(all[*k]);
    }
    T probe{};
    if (first_ && parse_number(fields[0], probe) == parse_status::not_a_number) {
      first_ = false;  // a header line above numeric data
      return;
    }
  }
  first_ = false;

  for (std::size_t c = 0; c < fields.size(); ++c) {
    T value{};
    switch (parse_number(fields[c], value)) {
      case parse_status::ok:
        break;
      case parse_status::not_a_number:
        throw input_error(name_, where + "cannot parse '" + printable(fields[c]) + "' as a number");
      case parse_status::out_of_range:
        throw input_error(name_, where + "'" + printable(fields[c]) + "' is out of the range of " + type +
                                     " (it overflows, or underflows to zero)");
    }
    if (value != value) {
      throw input_error(name_, where + "NaN is not accepted in text input (binary inputs may hold NaN)");
    }
    out[c].push_back(value);
  }
  numbers_ = true;
}

template <class T>
void text_parser<T>::finish() const {
  if (!numbers_) throw input_error(name_, "no numbers found in the text");
}

template class text_parser<float>;
template class text_parser<double>;

namespace {

// The selected columns of every data line (one column, the whole line, when `columns` is empty).
template <class T>
std::array<std::vector<T>, 2> parse(std::string_view text, const std::vector<std::string>& columns,
                                    const std::string& name) {
  text_parser<T> parser(columns, name);
  std::array<std::vector<T>, 2> out;
  while (!text.empty()) {
    const std::size_t newline = text.find('\n');
    parser.line(text.substr(0, newline), out);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
  }
  parser.finish();
  return out;
}

std::vector<std::string> column_list(const std::string& column) {
  return column.empty() ? std::vector<std::string>{} : std::vector<std::string>{column};
}

}  // namespace

std::vector<double> parse_text_f64(std::string_view text, const std::string& column, const std::string& name) {
  return parse<double>(text, column_list(column), name)[0];
}

std::vector<float> parse_text_f32(std::string_view text, const std::string& column, const std::string& name) {
  return parse<float>(text, column_list(column), name)[0];
}

std::array<std::vector<double>, 2> parse_text_pair_f64(std::string_view text, const std::string& first,
                                                       const std::string& second, const std::string& name) {
  return parse<double>(text, {first, second}, name);
}

std::array<std::vector<float>, 2> parse_text_pair_f32(std::string_view text, const std::string& first,
                                                      const std::string& second, const std::string& name) {
  return parse<float>(text, {first, second}, name);
}

}  // namespace detred::verify
