// SPDX-License-Identifier: BSD-3-Clause
// What the subcommands share: input options, number formatting, results as bits, the list of compute paths.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "dataset.hpp"
#include "detred/detred.hpp"

namespace detred::verify::cli {

/// Bad usage found after parsing (e.g. an unknown --dtype): exit status 2, like CLI11's own errors.
class usage_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// --format, --dtype, --column, --skip-missing: how to read the input files.
struct input_options {
  std::string format = "auto";
  std::string type;
  std::string column;
  bool skip_missing = false;
};
void add_input_options(CLI::App& command, input_options& options);
read_options to_read_options(const input_options& options);
/// The inputs named on the command line with directories and patterns expanded (input_spec.hpp).
std::vector<std::string> expand_input_names(const std::vector<std::string>& names);
/// "" when the input has no fill or missing values in its data; otherwise what happened to them, e.g.
/// "3 elements equal to a fill/missing value (9.96921e+36) reduced as stored (--skip-missing drops them)".
std::string describe_missing(const dataset& data);

/// Shortest decimal that reads back to the same value ("nan", "inf", "-inf" for the specials).
std::string shortest_decimal(double x);
std::string shortest_decimal(float x);
/// "0x" + the IEEE bit pattern in hex (16 digits for double, 8 for float).
std::string hex_bits(double x);
std::string hex_bits(float x);

/// The bit pattern of a result (float32, float64, int32, int64, uint32 or uint64; an index is a uint64), and its
/// text forms. A result the library refused (an integer sum that does not fit its type) has no bits: `refused`
/// holds the library's message.
struct result_bits {
  dtype type = dtype::float64;
  std::uint64_t bits = 0;
  std::string refused;
  std::string value() const;  ///< shortest decimal for floats, the decimal integer otherwise, "refused" if refused
  std::string hex() const;    ///< "0x" + 8 or 16 hex digits (by the type's size); "-" if refused
  bool operator==(const result_bits&) const = default;
};
result_bits bits_of(double x);
result_bits bits_of(float x);
result_bits bits_of(std::int32_t x);
result_bits bits_of(std::int64_t x);
result_bits bits_of(std::uint32_t x);
result_bits bits_of(std::uint64_t x);
/// The value of a float32 or float64 result.
double as_double(const result_bits& r);
float as_float(const result_bits& r);

/// One way to compute a reduction: a backend, and for the CPU an instruction set and a thread count.
struct compute_path {
  detred::backend where = detred::backend::cpu;
  detred::isa isa = detred::isa::automatic;
  int threads = 0;  ///< 0: the library default
  std::string label() const;
};

/// The result of one compute path.
struct path_result {
  std::string label;
  result_bits bits;
};

/// The CPU at each thread count with each instruction set this build and CPU support.
std::vector<compute_path> cpu_paths(const std::vector<int>& thread_counts);
/// Why the GPU cannot be used, or nullopt if it can (probed once, with a one-element sum).
std::optional<std::string> cuda_problem();

/// The option enum value (detred::mode, isa or backend) named `name` by detred::parse; throws usage_error naming
/// the flag and the accepted names.
template <class E>
E parse_option(const std::string& flag, const std::string& name) {
  if (const std::optional<E> value = detred::parse<E>(name)) return *value;
  throw usage_error(flag + " " + name + ": expected " + detred::names<E>());
}

/// A CLI11 check that accepts the names detred::parse<E> accepts.
template <class E>
CLI::Validator option_names() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        return detred::parse<E>(text) ? std::string() : "expected " + detred::names<E>() + ", got " + text;
      },
      detred::names<E>());
}

detred::mode parse_mode(const std::string& name);

}  // namespace detred::verify::cli
