#include "common.hpp"

#include <bit>
#include <charconv>
#include <cinttypes>
#include <cstdio>
#include <span>
#include <string>
#include <variant>
#include <vector>

namespace detred::verify::cli {

void add_input_options(CLI::App& command, input_options& options) {
  command.add_option("--format", options.format, "Input format: auto (default), npy, raw, text")
      ->check(CLI::IsMember({"auto", "npy", "raw", "text"}));
  command.add_option("--dtype", options.type, "Element type of raw and text input: float32 or float64");
  command.add_option("--column", options.column, "Text input: the CSV column, a 0-based index or a header name");
}

read_options to_read_options(const input_options& options) {
  read_options r;
  r.format = parse_file_format(options.format).value_or(file_format::automatic);
  if (!options.type.empty()) {
    r.type = parse_dtype(options.type);
    if (!r.type) throw usage_error("--dtype " + options.type + ": expected float32 or float64");
  }
  r.column = options.column;
  return r;
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

namespace {
result_bits of(double x) { return {dtype::float64, std::bit_cast<std::uint64_t>(x)}; }
result_bits of(float x) { return {dtype::float32, std::bit_cast<std::uint32_t>(x)}; }
double as_double(const result_bits& r) { return std::bit_cast<double>(r.bits); }
float as_float(const result_bits& r) { return std::bit_cast<float>(static_cast<std::uint32_t>(r.bits)); }
}  // namespace

std::string result_bits::value() const {
  return type == dtype::float32 ? shortest_decimal(as_float(*this)) : shortest_decimal(as_double(*this));
}

std::string result_bits::hex() const {
  return type == dtype::float32 ? hex_bits(as_float(*this)) : hex_bits(as_double(*this));
}

std::string compute_path::label() const {
  if (where == detred::backend::cuda) return "cuda";
  std::string out = std::string("cpu/") + detred::to_string(isa);
  if (threads > 0) out += "/t" + std::to_string(threads);
  return out;
}

std::vector<compute_path> cpu_paths(const std::vector<int>& thread_counts) {
  std::vector<compute_path> out;
  for (detred::isa i : {detred::isa::baseline, detred::isa::avx2, detred::isa::avx512, detred::isa::neon}) {
    if (!detred::isa_supported(i)) continue;
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

result_bits run_sum(const dataset& data, detred::mode m, const compute_path& path) {
  const detred::options opt{.mode = m, .threads = path.threads, .isa = path.isa, .backend = path.where};
  return std::visit([&](auto values) { return of(detred::sum(values, opt)); }, data.values());
}

exact_sums run_oracle(const dataset& data, const progress_callback& progress) {
  return std::visit([&](auto values) { return exact_sum(values, progress); }, data.values());
}

assessment assess_result(const exact_sums& exact, const result_bits& result, detred::mode m) {
  return result.type == dtype::float32 ? assess(exact, as_float(result), m) : assess(exact, as_double(result), m);
}

result_bits correctly_rounded_result(const exact_sums& exact, dtype type) {
  return type == dtype::float32 ? of(correctly_rounded<float>(exact)) : of(correctly_rounded<double>(exact));
}

detred::mode parse_mode(const std::string& name) {
  if (name == "tree") return detred::mode::tree;
  if (name == "compensated") return detred::mode::compensated;
  throw usage_error("--mode " + name + ": expected tree or compensated");
}

}  // namespace detred::verify::cli
