// SPDX-License-Identifier: BSD-3-Clause
// detred-mpi-bench (run it under mpiexec): detred_mpi's calls against what a code without reproducibility does, on
// the same data in the same run, interleaved round after round; a row's ratio is the median over rounds of
// time(detred) / time(baseline), each time the slowest rank's. Targets (the partial-states issue):
//   global sum, 8 ranks of 2^20 doubles:  detred::mpi::sum <= 1.3 x (local fast-math sum + MPI_Allreduce of 1 double)
//   element-wise, 4 ranks, 2^20 doubles:  detred::mpi::allreduce_sum <= 1.5 x MPI_Allreduce(MPI_SUM)
// Rows are printed for the rank count mpiexec started; docs/benchmarks.md has the commands.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <mpi.h>
#include <CLI/CLI.hpp>

#include "baselines.hpp"
#include "detred/mpi.hpp"
#include "portable_random.hpp"
#include "run_record.hpp"

namespace {

volatile double sink = 0;

/// Seconds per call of f, the slowest rank's, over `calls` calls started together.
template <class F>
double slowest_seconds(F&& f, int calls) {
  MPI_Barrier(MPI_COMM_WORLD);
  const auto start = std::chrono::steady_clock::now();
  for (int k = 0; k < calls; ++k) f();
  double mine = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / calls;
  double slowest = 0;
  MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

struct row_result {
  double ours_us, base_us, ratio;
};

template <class Ours, class Base>
row_result compare(Ours&& ours, Base&& base, int rounds, int calls) {
  ours();
  base();
  std::vector<double> ratios, t_ours, t_base;
  for (int r = 0; r < rounds; ++r) {
    double a = 0, b = 0;
    if (r % 2 == 0) {
      a = slowest_seconds(ours, calls);
      b = slowest_seconds(base, calls);
    } else {
      b = slowest_seconds(base, calls);
      a = slowest_seconds(ours, calls);
    }
    ratios.push_back(a / b);
    t_ours.push_back(a);
    t_base.push_back(b);
  }
  const auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  return {median(t_ours) * 1e6, median(t_base) * 1e6, median(ratios)};
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int ranks = 0, me = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  CLI::App app{"detred-mpi-bench: detred_mpi against a local fast-math sum + MPI_Allreduce, and MPI_Allreduce"};
  int log_n = 20, rounds = 15, calls = 20, threads = 1;
  app.add_option("--log-n", log_n, "2^K doubles per rank")->check(CLI::Range(0, 30));
  app.add_option("--rounds", rounds, "interleaved rounds")->check(CLI::Range(1, 1000));
  std::string json;
  app.add_option("--json", json, "also write the results as JSON to this file (rank 0; docs/benchmarks.md)");
  app.add_option("--calls", calls, "calls per timed batch")->check(CLI::Range(1, 100000));
  app.add_option("--threads", threads, "OpenMP threads per rank (detred and the baseline sum)")
      ->check(CLI::Range(1, 1024));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = me == 0 ? app.exit(e) : 0;
    MPI_Finalize();
    return code;
  }
  const std::uint64_t n = std::uint64_t{1} << log_n;
  std::vector<double> x(n);
  detred::generators::rng g(static_cast<std::uint64_t>(me) + 1);
  for (auto& e : x) e = g.unit<double>() * 2 - 1;
  const std::span<const double> xs(x);
  std::vector<double> out(n), base_out(n);
  const detred::options opt{.threads = threads};

  const row_result global = compare([&] { sink = detred::mpi::sum(xs, MPI_COMM_WORLD, opt); },
                                    [&] {
                                      double local = threads > 1 ? detred::bench::fastmath_omp_sum(x.data(), n, threads)
                                                                 : detred::bench::fastmath_serial_sum(x.data(), n);
                                      double total = 0;
                                      MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
                                      sink = total;
                                    },
                                    rounds, calls);
  const row_result elementwise = compare(
      [&] { detred::mpi::allreduce_sum(xs, std::span<double>(out), MPI_COMM_WORLD, opt); },
      [&] { MPI_Allreduce(x.data(), base_out.data(), static_cast<int>(n), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); },
      rounds, calls);
  if (me == 0) {
    std::printf("%s", fmt::format("detred-mpi-bench: {} ranks, 2^{} doubles per rank, {} thread(s) per rank, {} rounds "
                                  "of {} calls; times: the slowest rank's, medians\n",
                                  ranks, log_n, threads, rounds, calls)
                          .c_str());
    std::printf(
        "%s",
        fmt::format("{:<44} {:>10} {:>10} {:>7} {:>8}\n", "row", "detred us", "base us", "ratio", "target").c_str());
    std::printf("%s",
                fmt::format("{:<44} {:>10.1f} {:>10.1f} {:>7.3f} {:>8}\n", "global sum vs fast-math sum + Allreduce(1)",
                            global.ours_us, global.base_us, global.ratio, ranks == 8 ? "<= 1.30" : "")
                    .c_str());
    std::printf("%s",
                fmt::format("{:<44} {:>10.1f} {:>10.1f} {:>7.3f} {:>8}\n", "element-wise sum vs MPI_Allreduce(SUM)",
                            elementwise.ours_us, elementwise.base_us, elementwise.ratio, ranks == 4 ? "<= 1.50" : "")
                    .c_str());
  }
  int status = 0;
  if (me == 0 && !json.empty()) {
    detred::bench::run_record record("detred-mpi-bench", argc, argv);
    record.set("ranks", std::int64_t{ranks});
    record.set("n_per_rank", fmt::format("2^{}", log_n));
    record.set("threads_per_rank", std::int64_t{threads});
    record.add({{"row", "global sum vs fast-math sum + Allreduce(1)"},
                {"detred_us", global.ours_us},
                {"baseline_us", global.base_us},
                {"ratio", global.ratio},
                {"target", ranks == 8 ? "<= 1.30" : ""}});
    record.add({{"row", "element-wise sum vs MPI_Allreduce(SUM)"},
                {"detred_us", elementwise.ours_us},
                {"baseline_us", elementwise.base_us},
                {"ratio", elementwise.ratio},
                {"target", ranks == 4 ? "<= 1.50" : ""}});
    status = record.write(json) ? 0 : 2;
  }
  MPI_Finalize();
  return status;
}
