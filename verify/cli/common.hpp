// What the subcommands share: input options, number formatting, the list of compute paths, running a sum on one.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "dataset.hpp"
#include "detred/detred.hpp"
#include "oracle.hpp"

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

/// The bit pattern of a result of either type, and its text forms.
struct result_bits {
  dtype type = dtype::float64;
  std::uint64_t bits = 0;
  std::string value() const;  ///< shortest decimal
  std::string hex() const;    ///< hex_bits
  bool operator==(const result_bits&) const = default;
};

/// One way to compute a sum: a backend, and for the CPU an instruction set and a thread count.
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

result_bits run_sum(const dataset& data, detred::mode m, const compute_path& path);

/// The exact sums of a dataset; progress(done) is called with elements done.
exact_sums run_oracle(const dataset& data, const progress_callback& progress = {});
/// Compares a result with the exact sum and the documented bound of mode m.
assessment assess_result(const exact_sums& exact, const result_bits& result, detred::mode m);
/// The exact sum rounded to nearest in the dataset's type.
result_bits correctly_rounded_result(const exact_sums& exact, dtype type);

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
