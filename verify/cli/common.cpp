// SPDX-License-Identifier: BSD-3-Clause
#include "common.hpp"

#include <bit>
#include <charconv>
#include <cinttypes>
#include <cstdio>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "input_spec.hpp"

namespace detred::verify::cli {

void add_input_options(CLI::App& command, input_options& options) {
  command
      .add_option("--format", options.format, "Input format: auto (default), npy, raw, text, netcdf, hdf5, safetensors")
      ->check(CLI::IsMember({"auto", "npy", "raw", "text", "netcdf", "hdf5", "safetensors"}));
  command.add_option("--dtype", options.type,
                     std::string("Element type of raw input (") + dtype_names() +
                         "); text input is float32 or float64; for a typed format it must agree with the file");
  command.add_option("--column", options.column,
                     "Text input: the CSV column, a 0-based index or a header name; two (A,B) for --op dot");
  command.add_flag("--skip-missing", options.skip_missing,
                   "NetCDF/HDF5 variables: drop the elements equal to a fill or missing value (default: reduce them "
                   "as stored)");
}

read_options to_read_options(const input_options& options) {
  read_options r;
  r.format = parse_file_format(options.format).value_or(file_format::automatic);
  if (!options.type.empty()) {
    r.type = parse_dtype(options.type);
    if (!r.type) throw usage_error("--dtype " + options.type + ": expected " + dtype_names());
  }
  r.column = options.column;
  r.skip_missing = options.skip_missing;
  return r;
}

std::vector<std::string> expand_input_names(const std::vector<std::string>& names) { return expand_inputs(names); }

std::string describe_missing(const dataset& data) {
  if (data.missing_count() == 0) return "";
  std::string values;
  for (double m : data.missing_values()) values += (values.empty() ? "" : ", ") + shortest_decimal(m);
  const std::string count = std::to_string(data.missing_count());
  if (data.missing_skipped()) {
    return count + (data.missing_count() == 1 ? " fill/missing value" : " fill/missing values") + " (" + values +
           ") skipped";
  }
  return count + (data.missing_count() == 1 ? " element" : " elements") + " equal to a fill/missing value (" + values +
         ") reduced as stored (--skip-missing drops them)";
}

namespace {
template <class T>
std::string shortest(T x) {
  if (x != x) return "nan";
  char buffer[64];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, x);
  return ec == std::errc() ? std::string(buffer, end) : "?";
}
}  // namespace

std::string shortest_decimal(double x) { return shortest(x); }
std::string shortest_decimal(float x) { return shortest(x); }

std::string hex_bits(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "0x%016" PRIx64, std::bit_cast<std::uint64_t>(x));
  return buffer;
}

std::string hex_bits(float x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "0x%08" PRIx32, std::bit_cast<std::uint32_t>(x));
  return buffer;
}

result_bits bits_of(double x) { return {dtype::float64, std::bit_cast<std::uint64_t>(x), {}}; }
result_bits bits_of(float x) { return {dtype::float32, std::bit_cast<std::uint32_t>(x), {}}; }
result_bits bits_of(std::int32_t x) { return {dtype::int32, static_cast<std::uint32_t>(x), {}}; }
result_bits bits_of(std::int64_t x) { return {dtype::int64, static_cast<std::uint64_t>(x), {}}; }
result_bits bits_of(std::uint32_t x) { return {dtype::uint32, x, {}}; }
result_bits bits_of(std::uint64_t x) { return {dtype::uint64, x, {}}; }
double as_double(const result_bits& r) { return std::bit_cast<double>(r.bits); }
float as_float(const result_bits& r) { return std::bit_cast<float>(static_cast<std::uint32_t>(r.bits)); }

std::string result_bits::value() const {
  if (!refused.empty()) return "refused";
  switch (type) {
    case dtype::float32:
      return shortest_decimal(as_float(*this));
    case dtype::float64:
      return shortest_decimal(as_double(*this));
    case dtype::int32:
      return std::to_string(static_cast<std::int32_t>(static_cast<std::uint32_t>(bits)));
    case dtype::int64:
      return std::to_string(static_cast<std::int64_t>(bits));
    default:
      return std::to_string(bits);
  }
}

std::string result_bits::hex() const {
  if (!refused.empty()) return "-";
  char buffer[32];
  if (item_size(type) == 4) {
    std::snprintf(buffer, sizeof buffer, "0x%08" PRIx32, static_cast<std::uint32_t>(bits));
  } else {
    std::snprintf(buffer, sizeof buffer, "0x%016" PRIx64, bits);
  }
  return buffer;
}

std::string compute_path::label() const {
  if (where == detred::backend::cuda) return "cuda";
  std::string out = std::string("cpu/") + detred::to_string(isa);
  if (threads > 0) out += "/t" + std::to_string(threads);
  return out;
}

std::vector<compute_path> cpu_paths(const std::vector<int>& thread_counts) {
  std::vector<compute_path> out;
  for (detred::isa i : detred::supported_isas()) {
    for (int t : thread_counts) out.push_back({detred::backend::cpu, i, t});
  }
  return out;
}

std::optional<std::string> cuda_problem() {
  static const std::optional<std::string> problem = []() -> std::optional<std::string> {
    const double one[1] = {1.0};
    try {
      detred::sum(std::span<const double>(one), {.backend = detred::backend::cuda});
      return std::nullopt;
    } catch (const detred::error& e) {
      return std::string(e.what());
    }
  }();
  return problem;
}

detred::mode parse_mode(const std::string& name) { return parse_option<detred::mode>("--mode", name); }

}  // namespace detred::verify::cli
