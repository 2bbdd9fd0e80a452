// SPDX-License-Identifier: BSD-3-Clause
#include "bench_options.hpp"

#include <cstdlib>
#include <iostream>
#include <stdexcept>

#include <CLI/CLI.hpp>

#include "detred/cpu.hpp"

namespace detred::bench {

std::uint64_t parse_size(const std::string& text) {
  std::size_t used = 0;
  if (text.rfind("2^", 0) == 0) {
    const unsigned long k = std::stoul(text.substr(2), &used);
    if (used != text.size() - 2 || k > 40) throw std::invalid_argument("bad size " + text);
    return std::uint64_t{1} << k;
  }
  const unsigned long long n = std::stoull(text, &used);
  if (used != text.size() || n == 0) throw std::invalid_argument("bad size " + text);
  return n;
}

std::string format_size(std::uint64_t n) {
  if (n != 0 && (n & (n - 1)) == 0) return "2^" + std::to_string(__builtin_ctzll(n));
  return std::to_string(n);
}

namespace {

detred::isa parse_isa(const std::string& name) {
  if (const auto i = detred::parse<detred::isa>(name)) return *i;
  throw std::invalid_argument("unknown instruction set " + name + " (expected " + detred::names<detred::isa>() + ")");
}

}  // namespace

bench_options parse_bench_options(int argc, char** argv) {
  CLI::App app{
      "detred-bench: detred::sum (tree, compensated, exact) against a strict serial loop, fast-math serial and OpenMP "
      "loops, and the bandwidth ceiling, interleaved on the same buffers; medians of several rounds."};
  std::vector<std::string> sizes;
  std::vector<int> threads;
  std::vector<std::string> types;
  int rounds = 0;
  double min_ms = 0;
  std::vector<std::string> isa_names;
  std::string json;
  bool quick = false;
  app.add_option("--sizes", sizes, "element counts, as 2^k or decimal (default 2^10,2^12,2^16,2^20,2^24,2^27)")
      ->delimiter(',');
  app.add_option("--threads", threads, "thread counts (default 1,2)")->delimiter(',')->check(CLI::PositiveNumber);
  app.add_option("--types", types, "element types (default double,float)")
      ->delimiter(',')
      ->check(CLI::IsMember({"double", "float"}));
  app.add_option("--rounds", rounds, "rounds; each runs every variant once, medians are reported (default 9)")
      ->check(CLI::PositiveNumber);
  app.add_option("--min-time-ms", min_ms, "length of one timed batch (default 30)")->check(CLI::PositiveNumber);
  app.add_option("--isa", isa_names,
                 "detred's instruction sets: " + detred::names<detred::isa>() +
                     "; several are measured side by side (default automatic)")
      ->delimiter(',');
  app.add_option("--json", json,
                 "also write the results as JSON to this file ('-' for stdout, the table then "
                 "goes to stderr)");
  app.add_flag("--quick", quick, "a smoke run: sizes 2^10,2^16,2^20, 3 rounds, 5 ms batches (explicit options win)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    std::exit(app.exit(e));
  }

  bench_options o;
  try {
    if (sizes.empty()) {
      sizes = quick ? std::vector<std::string>{"2^10", "2^16", "2^20"}
                    : std::vector<std::string>{"2^10", "2^12", "2^16", "2^20", "2^24", "2^27"};
    }
    for (const std::string& s : sizes) o.sizes.push_back(parse_size(s));
    if (isa_names.empty()) isa_names = {"automatic"};
    for (const std::string& name : isa_names) {
      const detred::isa i = parse_isa(name);
      if (!detred::isa_supported(i)) throw std::invalid_argument("this CPU or build cannot run " + name);
      o.isas.push_back(i);
    }
  } catch (const std::exception& e) {
    std::cerr << "detred-bench: " << e.what() << "\n";
    std::exit(2);
  }
  o.threads = threads.empty() ? std::vector<int>{1, 2} : threads;
  o.types = types.empty() ? std::vector<std::string>{"double", "float"} : types;
  o.rounds = rounds > 0 ? rounds : (quick ? 3 : 9);
  o.timing.min_seconds = (min_ms > 0 ? min_ms : (quick ? 5.0 : 30.0)) / 1000;
  o.timing.warmup_seconds = quick ? 0.002 : 0.010;
  if (!json.empty()) o.json_path = json;
  return o;
}

}  // namespace detred::bench
