// SPDX-License-Identifier: BSD-3-Clause
// detred-ops-bench: each operation other than the sum against its natural non-deterministic baseline (the obvious
// fast-math OpenMP loop, ops_baselines.hpp), interleaved on the same buffers round after round; the ratio is the
// median of the per-round ratios. Targets are those of the operations issue; docs/benchmarks.md explains the table.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "aligned_buffer.hpp"
#include "baselines.hpp"
#include "detred/detred.hpp"
#include "ops_baselines.hpp"
#include "paired_measure.hpp"
#include "run_record.hpp"

namespace {

using namespace detred::bench;

// Every result lands here, so no call can be optimized away.
volatile double sink = 0;

/// One timed side of a comparison: a call, and the bytes it reads per call.
struct contender {
  std::string name;
  std::function<void()> call;
};

struct comparison {
  std::string op;
  std::string type;
  std::uint64_t n;
  std::uint64_t bytes;  ///< bytes read per call (both sides read the same data)
  int threads;
  contender ours;
  contender baseline;
  double target;          ///< minimum ratio; 0 = measured only
  std::string bits_note;  ///< "same bits" or what differed between thread counts
};

paired_result measure(const comparison& c, int rounds, const timing_policy& p) {
  return measure_paired(c.ours.call, c.baseline.call, c.bytes, rounds, p);
}

/// "same bits" if the call gives the one-thread result's bits with `threads` threads, else what differed.
template <class R>
std::string bits_across_threads(const std::function<R(int)>& f, int threads) {
  const R one = f(1);
  const R many = f(threads);
  return std::memcmp(&one, &many, sizeof(R)) == 0 ? "same bits" : "BITS DIFFER";
}

template <class T>
aligned_buffer<T> uniform_buffer(std::uint64_t n, std::uint64_t seed) {
  aligned_buffer<T> b(n);
  fill_uniform(b, seed);
  return b;
}

struct settings {
  int log2_double = 27;
  int threads = 2;
  int rounds = 11;
  std::vector<std::string> only;
};

bool wanted(const settings& s, const std::string& op) {
  if (s.only.empty()) return true;
  for (const std::string& o : s.only) {
    if (o == op) return true;
  }
  return false;
}

/// The rows as data, when --json asks for them.
run_record* record = nullptr;

void report(const comparison& c, const paired_result& r) {
  const std::string verdict = verdict_text(r.ratio, c.target);
  const std::string target = target_text(c.target);
  if (record != nullptr) {
    record->add({{"op", c.op},
                 {"type", c.type},
                 {"n", fmt::format("2^{}", static_cast<int>(std::log2(static_cast<double>(c.n))))},
                 {"threads", std::int64_t{c.threads}},
                 {"gb_per_s", r.ours_gbs},
                 {"baseline", c.baseline.name},
                 {"baseline_gb_per_s", r.baseline_gbs},
                 {"ratio", r.ratio},
                 {"target", target},
                 {"verdict", verdict},
                 {"bits", c.bits_note}});
  }
  std::cout << fmt::format("{:<22} {:<7} 2^{:<3} {:>2} {:>8.2f} {:<26} {:>8.2f} {:>6.3f} {:>8} {:<10} {}\n", c.op,
                           c.type, static_cast<int>(std::log2(static_cast<double>(c.n))), c.threads, r.ours_gbs,
                           c.baseline.name, r.baseline_gbs, r.ratio, target, verdict, c.bits_note);
  std::cout.flush();
}

template <class T>
void float_comparisons(const settings& s, const timing_policy& p) {
  const std::uint64_t n = (std::uint64_t{1} << s.log2_double) * 8 / sizeof(T);
  const char* type = sizeof(T) == 8 ? "double" : "float";
  const int t = s.threads;
  const aligned_buffer<T> xb = uniform_buffer<T>(n, 1);
  const std::span<const T> x = xb.span();
  const std::uint64_t bytes = n * sizeof(T);
  const bool is_double = sizeof(T) == 8;

  const auto run = [&](comparison c) { report(c, measure(c, s.rounds, p)); };
  if (wanted(s, "stats")) {
    run({"stats",
         type,
         n,
         bytes,
         t,
         {"detred::stats", [&] { sink = detred::stats(x, {.threads = t}).variance; }},
         {"fast-math OpenMP sum", [&] { sink = fastmath_omp_sum(x.data(), n, t); }},
         is_double ? 0.85 : 0.0,
         bits_across_threads<detred::statistics<T>>([&](int th) { return detred::stats(x, {.threads = th}); }, t)});
  }
  for (detred::mode m : {detred::mode::tree, detred::mode::compensated, detred::mode::exact}) {
    const std::string mode = detred::to_string(m);
    const bool tree = m == detred::mode::tree;
    const bool exact = m == detred::mode::exact;  // dot and asum only (docs/exact.md)
    if (wanted(s, "dot")) {
      const aligned_buffer<T> yb = uniform_buffer<T>(n, 2);
      const std::span<const T> y = yb.span();
      run({"dot " + mode,
           type,
           n,
           2 * bytes,
           t,
           {"detred::dot", [&] { sink = detred::dot(x, y, {.mode = m, .threads = t}); }},
           {"fast-math OpenMP dot", [&] { sink = fastmath_omp_dot(x.data(), y.data(), n, t); }},
           tree && is_double ? 0.90 : 0.0,
           bits_across_threads<T>([&](int th) { return detred::dot(x, y, {.mode = m, .threads = th}); }, t)});
    }
    if (wanted(s, "asum")) {
      run({"asum " + mode,
           type,
           n,
           bytes,
           t,
           {"detred::asum", [&] { sink = detred::asum(x, {.mode = m, .threads = t}); }},
           {"fast-math OpenMP asum", [&] { sink = fastmath_omp_asum(x.data(), n, t); }},
           0.0,
           bits_across_threads<T>([&](int th) { return detred::asum(x, {.mode = m, .threads = th}); }, t)});
    }
    if (wanted(s, "nrm2") && !exact) {
      run({"nrm2 " + mode,
           type,
           n,
           bytes,
           t,
           {"detred::nrm2", [&] { sink = detred::nrm2(x, {.mode = m, .threads = t}); }},
           {"fast-math OpenMP sqrt(x.x)", [&] { sink = fastmath_omp_nrm2(x.data(), n, t); }},
           0.0,
           bits_across_threads<T>([&](int th) { return detred::nrm2(x, {.mode = m, .threads = th}); }, t)});
    }
  }
  if (wanted(s, "min")) {
    run({"min",
         type,
         n,
         bytes,
         t,
         {"detred::min", [&] { sink = detred::min(x, {.threads = t}); }},
         {"fast-math OpenMP min", [&] { sink = fastmath_omp_min(x.data(), n, t); }},
         is_double ? 0.90 : 0.0,
         bits_across_threads<T>([&](int th) { return detred::min(x, {.threads = th}); }, t)});
  }
  if (wanted(s, "max")) {
    run({"max",
         type,
         n,
         bytes,
         t,
         {"detred::max", [&] { sink = detred::max(x, {.threads = t}); }},
         {"fast-math OpenMP max", [&] { sink = fastmath_omp_max(x.data(), n, t); }},
         is_double ? 0.90 : 0.0,
         bits_across_threads<T>([&](int th) { return detred::max(x, {.threads = th}); }, t)});
  }
  if (wanted(s, "argmin")) {
    run({"argmin",
         type,
         n,
         bytes,
         t,
         {"detred::argmin", [&] { sink = static_cast<double>(detred::argmin(x, {.threads = t})); }},
         {"fast-math OpenMP min", [&] { sink = fastmath_omp_min(x.data(), n, t); }},
         0.0,
         bits_across_threads<std::uint64_t>([&](int th) { return detred::argmin(x, {.threads = th}); }, t)});
  }
}

/// Integer sums against the floating-point sum of the same bytes: the target is the float sum's bytes per second.
template <class I, class F>
void integer_comparison(const settings& s, const timing_policy& p, const char* type) {
  static_assert(sizeof(I) == sizeof(F));
  const std::uint64_t n = (std::uint64_t{1} << s.log2_double) * 8 / sizeof(I);
  const int t = s.threads;
  aligned_buffer<I> ib(n);
  for (std::uint64_t i = 0; i < n; ++i) ib.data()[i] = static_cast<I>((i * 2654435761u) % 2001) - 1000;
  const aligned_buffer<F> fb = uniform_buffer<F>(n, 3);
  const std::span<const I> xi = ib.span();
  const std::span<const F> xf = fb.span();
  const comparison c{
      "integer sum",
      type,
      n,
      n * sizeof(I),
      t,
      {"detred::sum", [&] { sink = static_cast<double>(detred::sum(xi, {.threads = t})); }},
      {std::string("detred::sum ") + (sizeof(F) == 8 ? "double" : "float"),
       [&] { sink = detred::sum(xf, {.threads = t}); }},
      0.95,
      bits_across_threads<decltype(detred::sum(xi))>([&](int th) { return detred::sum(xi, {.threads = th}); }, t)};
  report(c, measure(c, s.rounds, p));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"detred-ops-bench: each operation against its natural baseline, same run, interleaved"};
  settings s;
  app.add_option("--log2-doubles", s.log2_double, "data size as log2 of a double count (floats: twice as many)")
      ->check(CLI::Range(10, 31));
  app.add_option("--threads", s.threads, "threads of every row")->check(CLI::Range(1, 1024));
  app.add_option("--rounds", s.rounds, "interleaved rounds per row")->check(CLI::Range(1, 1000));
  app.add_option("--only", s.only, "ops to run, comma-separated: stats dot asum nrm2 min max argmin integer half")
      ->delimiter(',');
  std::string json;
  app.add_option("--json", json, "also write the results as JSON to this file (docs/benchmarks.md)");
  CLI11_PARSE(app, argc, argv);
  const timing_policy p{};
  run_record run("detred-ops-bench", argc, argv);
  if (!json.empty()) record = &run;

  std::cout << fmt::format("detred-ops-bench: {} threads, {} rounds, isa {}\n", s.threads, s.rounds,
                           detred::to_string(detred::resolved_isa(detred::isa::automatic)));
  std::cout << fmt::format("{:<22} {:<7} {:<5} {:>2} {:>8} {:<26} {:>8} {:>6} {:>8} {:<10} {}\n", "op", "type", "n",
                           "t", "GB/s", "baseline", "GB/s", "ratio", "target", "verdict", "bits (t vs 1 thread)");
  float_comparisons<double>(s, p);
  float_comparisons<float>(s, p);
  if (wanted(s, "integer")) {
    integer_comparison<std::int64_t, double>(s, p, "int64");
    integer_comparison<std::int32_t, float>(s, p, "int32");
  }
  if (wanted(s, "half")) {
    const std::uint64_t n = (std::uint64_t{1} << s.log2_double) * 4;
    aligned_buffer<detred::float16> hb(n);
    for (std::uint64_t i = 0; i < n; ++i) hb.data()[i] = static_cast<detred::float16>(0x3c00 + (i % 1024));
    const aligned_buffer<float> fb = uniform_buffer<float>(n, 4);
    const std::span<const detred::float16> h = hb.span();
    const std::span<const float> f = fb.span();
    const int t = s.threads;
    comparison c{"float16 sum (elements)",
                 "half",
                 n,
                 n * 2,
                 t,
                 {"detred::sum", [&] { sink = detred::sum(h, {.threads = t}); }},
                 {"detred::sum float", [&] { sink = detred::sum(f, {.threads = t}); }},
                 0.0,
                 bits_across_threads<float>([&](int th) { return detred::sum(h, {.threads = th}); }, t)};
    report(c, measure(c, s.rounds, p));
  }
  if (!json.empty()) {
    run.set("threads", std::int64_t{s.threads});
    run.set("rounds", std::int64_t{s.rounds});
    run.set("isa", detred::to_string(detred::resolved_isa(detred::isa::automatic)));
    if (!run.write(json)) return 2;
  }
  return 0;
}
