// SPDX-License-Identifier: BSD-3-Clause
// detred-stream-bench: a partial state fed consecutive chunks (partial_state::append) against the one-call sum of
// the same array, interleaved round after round; the ratio is the median of time(one call) / time(stream). The same
// chunks handed over in batches (append of a list of chunks), and the cost of building states of uneven pieces and
// merging them. Target (the partial-states issue): streaming in chunks
// of 4 KiB to 1 MiB at >= 0.90x the one-call throughput, 2 threads, 2^27 doubles. docs/benchmarks.md explains it.
#include <algorithm>
#include <cstdint>
#include <iostream>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "aligned_buffer.hpp"
#include "detred/cpu.hpp"
#include "detred/partial.hpp"
#include "detred/sum.hpp"
#include "paired_measure.hpp"
#include "portable_random.hpp"
#include "run_record.hpp"

namespace {

using namespace detred::bench;

volatile double sink = 0;

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"detred-stream-bench: partial_state::append in chunks against one detred::sum call, same run"};
  int threads = 2, rounds = 7, log_n = 27;
  std::vector<std::uint64_t> chunk_kib = {4, 64, 1024};
  std::uint64_t batch_kib = 4096;
  app.add_option("--threads", threads, "threads of both sides")->check(CLI::Range(1, 1024));
  app.add_option("--rounds", rounds, "interleaved rounds per row")->check(CLI::Range(1, 1000));
  app.add_option("--log-n", log_n, "2^K doubles")->check(CLI::Range(10, 32));
  app.add_option("--chunk-kib", chunk_kib, "chunk sizes in KiB")->delimiter(',');
  std::string json;
  app.add_option("--json", json, "also write the results as JSON to this file (docs/benchmarks.md)");
  app.add_option("--batch-kib", batch_kib, "KiB of chunks per batch in the batched rows")
      ->check(CLI::Range(1, 1 << 30));
  CLI11_PARSE(app, argc, argv);
  run_record record("detred-stream-bench", argc, argv);

  const std::uint64_t n = std::uint64_t{1} << log_n;
  aligned_buffer<double> buffer(n);
  detred::generators::rng g(1);
  for (std::uint64_t i = 0; i < n; ++i) buffer.data()[i] = g.unit<double>() * 2 - 1;
  const std::span<const double> x = buffer.span();
  const detred::options opt{.threads = threads};
  const double expected = detred::sum(x, opt);
  const timing_policy p{.warmup_seconds = 0.05, .min_seconds = 0.2};

  std::cout << fmt::format("detred-stream-bench: 2^{} doubles, {} threads, {} rounds, isa {}\n", log_n, threads, rounds,
                           detred::to_string(detred::resolved_isa(detred::isa::automatic)));
  std::cout << "ratio: median of time(one detred::sum call) / time(variant), interleaved\n";
  std::cout << fmt::format("{:<40} {:>10} {:>10} {:>7} {:>8} {:<10} {}\n", "variant", "GB/s", "one-call", "ratio",
                           "target", "verdict", "bits");
  bool all_same = true;
  const auto one_call = [&] { sink = detred::sum(x, opt); };
  // compared: the variant computes the one-call sum, so its bits must be the same; the reference rows below (a sum
  // of chunk sums) compute something else and only time the calls.
  const auto row = [&](const std::string& name, auto&& variant, double target, bool compared = true) {
    double got = 0;
    const auto call = [&] {
      got = variant();
      sink = got;
    };
    call();
    const bool same = std::bit_cast<std::uint64_t>(got) == std::bit_cast<std::uint64_t>(expected);
    if (compared) all_same = all_same && same;
    const paired_result r = measure_paired(call, one_call, x.size_bytes(), rounds, p);
    std::cout << fmt::format("{:<40} {:>10.1f} {:>10.1f} {:>7.3f} {:>8} {:<10} {}\n", name, r.ours_gbs, r.baseline_gbs,
                             r.ratio, target_text(target), verdict_text(r.ratio, target),
                             !compared ? "(another sum)" : (same ? "same bits" : "DIFFERENT BITS"))
              << std::flush;
    record.add({{"variant", name},
                {"gb_per_s", r.ours_gbs},
                {"one_call_gb_per_s", r.baseline_gbs},
                {"ratio", r.ratio},
                {"target", target_text(target)},
                {"verdict", verdict_text(r.ratio, target)},
                {"bits", !compared ? "(another sum)" : (same ? "same bits" : "DIFFERENT BITS")}});
  };

  for (const std::uint64_t kib : chunk_kib) {
    const std::uint64_t chunk = kib * 1024 / sizeof(double);
    row(
        fmt::format("stream, chunks of {} KiB", kib),
        [&] {
          detred::partial_state s = detred::partial_state::empty<double>(detred::operation::sum, opt);
          for (std::uint64_t at = 0; at < n; at += chunk) s.append(x.subspan(at, std::min(chunk, n - at)));
          return s.result<double>();
        },
        0.90);
  }
  // The same chunks handed over in batches (append of a list of chunks): the state's threads share each batch.
  for (const std::uint64_t kib : chunk_kib) {
    const std::uint64_t chunk = kib * 1024 / sizeof(double);
    const std::uint64_t per_batch = std::max<std::uint64_t>(1, batch_kib / kib);
    row(
        fmt::format("stream, {} chunks of {} KiB a batch", per_batch, kib),
        [&] {
          detred::partial_state s = detred::partial_state::empty<double>(detred::operation::sum, opt);
          std::vector<std::span<const double>> batch;
          for (std::uint64_t at = 0; at < n;) {
            batch.clear();
            for (std::uint64_t k = 0; k < per_batch && at < n; ++k, at += chunk)
              batch.push_back(x.subspan(at, std::min(chunk, n - at)));
            s.append(std::span<const std::span<const double>>(batch));
          }
          return s.result<double>();
        },
        0.90);
  }
  // Chunks of 4 KiB that do not follow each other in memory (blocks of a second buffer in a shuffled order, read in
  // array order), in batches: the gathering of each chunk into its leaf is paid, shared by the threads.
  {
    const std::uint64_t chunk = 4096 / sizeof(double);
    const std::uint64_t blocks = n / chunk;
    std::vector<std::uint64_t> place(blocks);
    for (std::uint64_t b = 0; b < blocks; ++b) place[b] = b;
    for (std::uint64_t b = blocks; b > 1; --b) std::swap(place[b - 1], place[g.below(b)]);
    aligned_buffer<double> scattered(blocks * chunk);
    for (std::uint64_t b = 0; b < blocks; ++b)
      std::copy_n(x.data() + b * chunk, chunk, scattered.data() + place[b] * chunk);
    const std::uint64_t per_batch = std::max<std::uint64_t>(1, batch_kib / 4);
    row(
        fmt::format("scattered, {} chunks of 4 KiB a batch", per_batch),
        [&] {
          detred::partial_state s = detred::partial_state::empty<double>(detred::operation::sum, opt);
          std::vector<std::span<const double>> batch;
          for (std::uint64_t b = 0; b < blocks;) {
            batch.clear();
            for (std::uint64_t k = 0; k < per_batch && b < blocks; ++k, ++b)
              batch.emplace_back(scattered.data() + place[b] * chunk, chunk);
            s.append(std::span<const std::span<const double>>(batch));
          }
          if (blocks * chunk < n) s.append(x.subspan(blocks * chunk));
          return s.result<double>();
        },
        0.0);
    // The same blocks read in the same order by the state's threads with no state and no gathering (an OpenMP loop
    // over the blocks, each summed by one thread): what this access pattern allows on the machine at hand.
    row(
        "scattered 4 KiB blocks, sum of each, no state",
        [&] {
          double total = 0;
#pragma omp parallel for reduction(+ : total) num_threads(threads) schedule(static)
          for (std::uint64_t b = 0; b < blocks; ++b) {
            total += detred::sum(std::span<const double>(scattered.data() + place[b] * chunk, chunk),
                                 detred::options{.threads = 1});
          }
          return total;
        },
        0.0, false);
  }
  // What limits the rows above on a given machine, measured beside them. A chunk too small to split between threads
  // is read by one core: the one-call sum on one thread is that ceiling (same bits: the thread count never changes
  // them). A one-call sum of each chunk, with no state at all, pays the cost of splitting every chunk between the
  // threads (an OpenMP fork and join per call) that the stream pays for chunks above the parallel threshold.
  row(
      "one call, 1 thread (one core's ceiling)", [&] { return detred::sum(x, detred::options{.threads = 1}); }, 0.0);
  for (const std::uint64_t kib : chunk_kib) {
    const std::uint64_t chunk = kib * 1024 / sizeof(double);
    row(
        fmt::format("sum of each {} KiB chunk, no state", kib),
        [&] {
          double total = 0;
          for (std::uint64_t at = 0; at < n; at += chunk)
            total += detred::sum(x.subspan(at, std::min(chunk, n - at)), opt);
          return total;
        },
        0.0, false);
  }
  // Eight uneven pieces (cut inside leaves), their states merged: what an MPI rank or a GPU does per piece.
  row(
      "8 uneven pieces, states merged",
      [&] {
        std::vector<std::uint64_t> cuts = {0};
        for (std::uint64_t k = 1; k < 8; ++k) cuts.push_back(n / 8 * k + 1000 * k + 7);
        cuts.push_back(n);
        detred::partial_state all = detred::partial_state::empty<double>(detred::operation::sum, opt);
        for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
          all.merge(detred::partial_state::of(detred::operation::sum, x.subspan(cuts[k], cuts[k + 1] - cuts[k]),
                                              cuts[k], opt));
        }
        return all.result<double>();
      },
      0.0);
  if (!json.empty()) {
    record.set("threads", std::int64_t{threads});
    record.set("rounds", std::int64_t{rounds});
    record.set("n", fmt::format("2^{}", log_n));
    record.set("isa", detred::to_string(detred::resolved_isa(detred::isa::automatic)));
    if (!record.write(json)) return 2;
  }
  return all_same ? 0 : 1;
}
