// SPDX-License-Identifier: BSD-3-Clause
// detred-scan-bench: detred::cumsum against the scans a user would write (scan_baselines.hpp, fast-math), in the
// rows of issue 36's targets: 2^27 elements on 2 threads against an OpenMP two-pass scan, 2^16 on one thread against
// the serial loop. Variants are interleaved round by round and each row reports medians, in GB/s of bytes moved
// (one read of x and one write of y per element, for every variant). docs/benchmarks.md ("Scans") has the figures.
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include "aligned_buffer.hpp"
#include "detred/detred.hpp"
#include "measure.hpp"
#include "run_record.hpp"
#include "scan_baselines.hpp"

namespace detred::bench {
namespace {

struct row {
  std::uint64_t log2_n;
  int threads;
};

template <class T>
void run_row(const row& r, int rounds, double target, run_record& record) {
  const std::uint64_t n = std::uint64_t{1} << r.log2_n;
  aligned_buffer<T> x(n);
  aligned_buffer<T> y(n);
  fill_uniform(x);
  const timing_policy policy{};
  std::vector<double> tree, compensated, baseline;
  for (int k = 0; k < rounds; ++k) {
    tree.push_back(seconds_per_call(
        [&] { cumsum(x.span(), std::span<T>(y.data(), n), {.mode = mode::tree, .threads = r.threads}); }, policy));
    compensated.push_back(seconds_per_call(
        [&] { cumsum(x.span(), std::span<T>(y.data(), n), {.mode = mode::compensated, .threads = r.threads}); },
        policy));
    baseline.push_back(seconds_per_call(
        [&] {
          if (r.threads == 1) {
            fastmath_serial_scan(x.data(), y.data(), n);
          } else {
            fastmath_omp_scan(x.data(), y.data(), n, r.threads);
          }
        },
        policy));
  }
  const double bytes = static_cast<double>(n) * 2 * sizeof(T);
  const auto gbs = [&](const std::vector<double>& s) { return bytes / median(s) / 1e9; };
  const double ratio = median(baseline) / median(tree);
  fmt::print("{:<7} 2^{:<3} {:>7} {:>10.2f} {:>12.2f} {:>12.2f} {:>8.2f}x {:>8.2f}x  {}\n",
             sizeof(T) == 8 ? "double" : "float", r.log2_n, r.threads, gbs(tree), gbs(compensated), gbs(baseline),
             ratio, median(baseline) / median(compensated), ratio >= target ? "meets" : "below");
  record.add({{"type", sizeof(T) == 8 ? "double" : "float"},
              {"n", fmt::format("2^{}", r.log2_n)},
              {"threads", std::int64_t{r.threads}},
              {"tree_gb_per_s", gbs(tree)},
              {"compensated_gb_per_s", gbs(compensated)},
              {"fastmath_gb_per_s", gbs(baseline)},
              {"tree_ratio", ratio},
              {"compensated_ratio", median(baseline) / median(compensated)},
              {"target", fmt::format(">= {:.2f}", target)},
              {"verdict", ratio >= target ? "PASS" : "MISS"}});
}

}  // namespace
}  // namespace detred::bench

int main(int argc, char** argv) {
  CLI::App app{"detred-scan-bench: detred::cumsum against fast-math scans"};
  int rounds = 7;
  std::uint64_t large = 27;
  app.add_option("--rounds", rounds, "interleaved rounds; each row reports medians")->check(CLI::PositiveNumber);
  app.add_option("--large", large, "log2 of the large size (issue 36: 27)")->check(CLI::Range(10, 30));
  std::string json;
  app.add_option("--json", json, "also write the results as JSON to this file (docs/benchmarks.md)");
  CLI11_PARSE(app, argc, argv);
  using namespace detred::bench;
  run_record record("detred-scan-bench", argc, argv);
  fmt::print("isa {}; GB/s of bytes moved (read x, write y), medians of {} interleaved rounds; target: tree >= 0.80x\n",
             detred::to_string(detred::resolved_isa(detred::isa::automatic)), rounds);
  fmt::print("{:<7} {:<5} {:>7} {:>10} {:>12} {:>12} {:>9} {:>9}  {}\n", "type", "n", "threads", "tree", "compensated",
             "fast-math", "tree/fm", "comp/fm", "target");
  run_row<double>({large, 2}, rounds, 0.80, record);
  run_row<double>({16, 1}, rounds, 0.80, record);
  run_row<float>({large, 2}, rounds, 0.80, record);
  run_row<float>({16, 1}, rounds, 0.80, record);
  if (!json.empty()) {
    record.set("rounds", std::int64_t{rounds});
    record.set("isa", detred::to_string(detred::resolved_isa(detred::isa::automatic)));
    if (!record.write(json)) return 2;
  }
  return 0;
}
