// SPDX-License-Identifier: BSD-3-Clause
// detred-batch-bench: the batched reductions (detred/batched.hpp: segments, matrix axes, by key) against the obvious
// non-deterministic loops over the same batches (batch_baselines.hpp), interleaved on the same buffers round after
// round; the ratio is the median of the per-round ratios. Targets are those of the batched-reductions issue;
// docs/benchmarks.md explains the table.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <functional>
#include <iostream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "aligned_buffer.hpp"
#include "batch_baselines.hpp"
#include "batch_shapes.hpp"
#include "detred/batched.hpp"
#include "detred/cpu.hpp"
#include "detred/sum.hpp"
#include "paired_measure.hpp"
#include "portable_random.hpp"
#include "run_record.hpp"

namespace {

using namespace detred::bench;
using namespace detred::bench::batch;

// Every result lands here, so no call can be optimized away.
volatile float sink = 0;

struct settings {
  detred::mode mode =
      detred::mode::tree;  ///< of every detred call, and of the single-array calls the bits are checked by
  int threads = 2;
  int rounds = 11;
  int shrink = 0;  ///< every data size divided by 2^shrink, for quick runs
  std::vector<std::string> only;
  run_record* record = nullptr;  ///< the rows as data, when --json asks for them
};

bool wanted(const settings& s, const std::string& group) {
  return s.only.empty() || std::find(s.only.begin(), s.only.end(), group) != s.only.end();
}

/// The targets are set for tree mode; the other modes' rows are measured only.
double target_of(const settings& s, double tree_target) { return s.mode == detred::mode::tree ? tree_target : 0.0; }

/// One row: a batched detred call and its baseline, both reading the same `bytes` of float values per call.
struct comparison {
  std::string op;
  std::string shape;
  std::uint64_t bytes;
  std::function<void()> ours;
  std::string baseline_name;
  std::function<void()> baseline;
  double target;     ///< minimum ratio; 0 = measured only
  std::string bits;  ///< "same bits" or the first batch member that differed
};

bool all_bits_same = true;

void run(const settings& s, const timing_policy& p, const comparison& c) {
  const paired_result r = measure_paired(c.ours, c.baseline, c.bytes, s.rounds, p);
  std::cout << fmt::format("{:<22} {:<14} {:>2} {:>8.2f} {:<30} {:>8.2f} {:>6.3f} {:>8} {:<10} {}\n", c.op, c.shape,
                           s.threads, r.ours_gbs, c.baseline_name, r.baseline_gbs, r.ratio, target_text(c.target),
                           verdict_text(r.ratio, c.target), c.bits);
  std::cout.flush();
  if (s.record != nullptr) {
    s.record->add({{"op", c.op},
                   {"shape", c.shape},
                   {"threads", std::int64_t{s.threads}},
                   {"gb_per_s", r.ours_gbs},
                   {"baseline", c.baseline_name},
                   {"baseline_gb_per_s", r.baseline_gbs},
                   {"ratio", r.ratio},
                   {"target", target_text(c.target)},
                   {"verdict", verdict_text(r.ratio, c.target)},
                   {"bits", c.bits}});
  }
  all_bits_same = all_bits_same && c.bits == "same bits";
}

/// "same bits" if every sampled result (of a call with the row's thread count) has the bits of single(k), detred::sum
/// of batch member k alone: the guarantee of detred/batched.hpp.
std::string bits_vs_single(std::span<const float> results, const std::function<float(std::uint64_t)>& single) {
  for (std::uint64_t k : sample(results.size())) {
    if (std::bit_cast<std::uint32_t>(results[k]) != std::bit_cast<std::uint32_t>(single(k))) {
      return fmt::format("DIFFERENT (member {})", k);
    }
  }
  return "same bits";
}

aligned_buffer<float> uniform_floats(std::uint64_t n, std::uint64_t seed) {
  aligned_buffer<float> b(n);
  fill_uniform(b, seed);
  return b;
}

/// One row of segments: detred::sum of the segments of `offsets` over uniform floats against the fast-math loop, each
/// sampled result checked against the single-array call of its segment.
void segment_row(const settings& s, const timing_policy& p, const std::string& shape,
                 const std::vector<std::uint64_t>& offsets, double target) {
  const std::uint64_t count = offsets.size() - 1;
  const aligned_buffer<float> xb = uniform_floats(offsets.back(), 1);
  const std::span<const float> x = xb.span();
  std::vector<float> ours(count), base(count);
  const int t = s.threads;
  const auto call = [&] {
    detred::sum(x, detred::segments{offsets}, ours, {.mode = s.mode, .threads = t});
    sink = ours[0];
  };
  call();
  run(s, p,
      {"segmented sum", shape, x.size_bytes(), call, "fast-math OpenMP per segment",
       [&] {
         fastmath_omp_segment_sums(x.data(), offsets.data(), count, base.data(), t);
         sink = base[0];
       },
       target, bits_vs_single(ours, [&](std::uint64_t k) {
         return detred::sum(x.subspan(offsets[k], offsets[k + 1] - offsets[k]), {.mode = s.mode});
       })});
}

/// Each segment shape of batch_shapes.hpp.
void segmented(const settings& s, const timing_policy& p) {
  for (const auto [log_count, log_length] : segment_shapes(s.shrink)) {
    const std::uint64_t count = std::uint64_t{1} << log_count, length = std::uint64_t{1} << log_length;
    std::vector<std::uint64_t> offsets(count + 1);
    for (std::uint64_t k = 0; k <= count; ++k) offsets[k] = k * length;
    segment_row(s, p, pow2(log_count) + " x " + pow2(log_length), offsets, target_of(s, 0.85));
  }
}

/// Segments of random lengths 0..127 (batch_shapes.hpp): most end inside a register, so this row times the partial
/// rows. Measured, no target.
void ragged(const settings& s, const timing_policy& p) {
  const std::vector<std::uint64_t> offsets = ragged_offsets(s.shrink);
  segment_row(s, p, pow2(std::countr_zero(offsets.size() - 1)) + " x 0..127", offsets, 0.0);
}

/// Column sums (axis 0) and row sums (axis 1) of one row-major matrix (batch_shapes.hpp).
void matrix(const settings& s, const timing_policy& p) {
  const bool columns = wanted(s, "columns"), rows = wanted(s, "rows");
  if (!columns && !rows) return;
  const auto [log_r, log_c] = matrix_shape_for(s.shrink);
  const std::uint64_t r = std::uint64_t{1} << log_r, c = std::uint64_t{1} << log_c;
  const aligned_buffer<float> ab = uniform_floats(r * c, 2);
  const float* a = ab.span().data();
  const detred::matrix_view<float> view{.data = a, .rows = r, .cols = c, .leading_dimension = c};
  const std::string shape = pow2(log_r) + " x " + pow2(log_c);
  const int t = s.threads;
  if (columns) {
    std::vector<float> ours(c), base(c);
    const auto call = [&] {
      detred::sum(view, 0, ours, {.mode = s.mode, .threads = t});
      sink = ours[0];
    };
    call();
    const auto column = [&](std::uint64_t j) {
      std::vector<float> v(r);
      for (std::uint64_t i = 0; i < r; ++i) v[i] = a[i * c + j];
      return detred::sum(std::span<const float>(v), {.mode = s.mode});
    };
    run(s, p,
        {"column sums (axis 0)", shape, ab.span().size_bytes(), call, "fast-math OpenMP column chunks",
         [&] {
           fastmath_omp_column_sums(a, r, c, c, base.data(), t);
           sink = base[0];
         },
         target_of(s, 0.85), bits_vs_single(ours, column)});
  }
  if (rows) {
    std::vector<float> ours(r), base(r);
    const auto call = [&] {
      detred::sum(view, 1, ours, {.mode = s.mode, .threads = t});
      sink = ours[0];
    };
    call();
    run(s, p,
        {"row sums (axis 1)", shape, ab.span().size_bytes(), call, "fast-math OpenMP per row",
         [&] {
           fastmath_omp_row_sums(a, r, c, c, base.data(), t);
           sink = base[0];
         },
         target_of(s, 0.85), bits_vs_single(ours, [&](std::uint64_t i) {
           return detred::sum(std::span<const float>(a + i * c, c), {.mode = s.mode});
         })});
  }
}

/// Keys below `bins`: floor(u * bins) (uniform) or floor(u^4 * bins) (skewed: bin 0 gets 1/16 of the values), u
/// uniform in [0, 1) from the portable generator, so every machine gets the same keys.
aligned_buffer<std::uint32_t> make_keys(std::uint64_t n, std::uint64_t bins, bool skewed) {
  aligned_buffer<std::uint32_t> keys(n);
  detred::generators::rng g(3);
  for (std::uint64_t i = 0; i < n; ++i) {
    const double u = g.unit<double>();
    keys.data()[i] = static_cast<std::uint32_t>((skewed ? (u * u) * (u * u) : u) * static_cast<double>(bins));
  }
  return keys;
}

/// sum_by_key (batch_shapes.hpp: 2^26 floats into 2^16 bins) against the plain scatter loop, measured only.
void by_key(const settings& s, const timing_policy& p) {
  const auto [log_n, log_bins] = key_shape_for(s.shrink);
  const std::uint64_t n = std::uint64_t{1} << log_n, bins = std::uint64_t{1} << log_bins;
  const aligned_buffer<float> vb = uniform_floats(n, 4);
  const std::span<const float> v = vb.span();
  for (const bool skewed : {false, true}) {
    const aligned_buffer<std::uint32_t> kb = make_keys(n, bins, skewed);
    const std::span<const std::uint32_t> keys = kb.span();
    std::vector<float> ours(bins), base(bins);
    const int t = s.threads;
    const auto call = [&] {
      detred::sum_by_key(v, keys, ours, {.mode = s.mode, .threads = t});
      sink = ours[0];
    };
    call();
    // The sampled bins' values in index order, gathered in one pass over the keys.
    std::map<std::uint64_t, std::vector<float>> groups;
    for (std::uint64_t b : sample(bins)) groups[b];
    for (std::uint64_t i = 0; i < n; ++i) {
      if (const auto g = groups.find(keys[i]); g != groups.end()) g->second.push_back(v[i]);
    }
    run(s, p,
        {skewed ? "sum_by_key skewed" : "sum_by_key uniform", pow2(log_n) + " -> " + pow2(log_bins), v.size_bytes(),
         call, "OpenMP scatter out[k] += v",
         [&] {
           omp_scatter_add(v.data(), keys.data(), n, base.data(), bins, t);
           sink = base[0];
         },
         0.0, bits_vs_single(ours, [&](std::uint64_t b) {
           return detred::sum(std::span<const float>(groups.at(b)), {.mode = s.mode});
         })});
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"detred-batch-bench: the batched reductions against their natural baselines, same run, interleaved"};
  settings s;
  std::string mode_name = "tree";
  app.add_option("--mode", mode_name, "mode of every detred call: tree, compensated or exact (targets: tree only)");
  app.add_option("--threads", s.threads, "threads of every row")->check(CLI::Range(1, 1024));
  app.add_option("--rounds", s.rounds, "interleaved rounds per row")->check(CLI::Range(1, 1000));
  app.add_option("--shrink", s.shrink, "divide every data size by 2^K, for a quick run (0: the issue's sizes)")
      ->check(CLI::Range(0, 12));
  app.add_option("--only", s.only, "rows to run, comma-separated: segmented ragged columns rows by_key")
      ->delimiter(',');
  std::string json;
  app.add_option("--json", json, "also write the results as JSON to this file (docs/benchmarks.md)");
  CLI11_PARSE(app, argc, argv);
  run_record run("detred-batch-bench", argc, argv);
  if (!json.empty()) s.record = &run;
  if (const auto m = detred::parse<detred::mode>(mode_name)) {
    s.mode = *m;
  } else {
    std::cerr << "--mode must be " << detred::names<detred::mode>() << "; got '" << mode_name << "'\n";
    return 2;
  }
  const timing_policy p{};

  std::cout << fmt::format("detred-batch-bench: mode {}, {} threads, {} rounds, sizes / 2^{}, isa {}\n",
                           detred::to_string(s.mode), s.threads, s.rounds, s.shrink,
                           detred::to_string(detred::resolved_isa(detred::isa::automatic)));
  std::cout << "GB/s: bytes of float values read per call (offsets, keys and results not counted); ratio: median of "
               "time(baseline) / time(detred)\n";
  std::cout << fmt::format("{:<22} {:<14} {:>2} {:>8} {:<30} {:>8} {:>6} {:>8} {:<10} {}\n", "op", "shape", "t", "GB/s",
                           "baseline", "GB/s", "ratio", "target", "verdict", "bits (sample vs single sum)");
  if (wanted(s, "segmented")) segmented(s, p);
  if (wanted(s, "ragged")) ragged(s, p);
  matrix(s, p);
  if (wanted(s, "by_key")) by_key(s, p);
  if (!json.empty()) {
    run.set("mode", detred::to_string(s.mode));
    run.set("threads", std::int64_t{s.threads});
    run.set("rounds", std::int64_t{s.rounds});
    run.set("shrink", std::int64_t{s.shrink});
    run.set("isa", detred::to_string(detred::resolved_isa(detred::isa::automatic)));
    if (!run.write(json)) return 2;
  }
  // A missed target is a measurement, not a failure of the tool; differing bits are a failure.
  return all_bits_same ? 0 : 1;
}
