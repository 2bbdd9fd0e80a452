// SPDX-License-Identifier: BSD-3-Clause
// detred-cuda-bench: detred's GPU sum (tree, compensated, exact) against cub::DeviceReduce::Sum, in one run on the
// same device buffer. Each variant runs once per round, interleaved; each run is timed with CUDA events; the table
// shows the median over the rounds after a warm-up. The detred results are also checked bit for bit against the CPU.
//
// Built with -DDETRED_BENCH_CCCL=<a CCCL >= 3.1 source tree> (not part of detred: fetch it yourself), the bench
// also times CUB's deterministic mode, cub::DeviceReduce::Reduce with determinism::gpu_to_gpu, and reports its
// value beside the correctly rounded one.
//
//   detred-cuda-bench [--sizes 2^16,2^20,...] [--types float,double] [--rounds 200] [--json FILE|-] [--sweep]
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include <cub/device/device_reduce.cuh>
#ifdef DETRED_BENCH_GPU_TO_GPU
#include <cuda/__execution/determinism.h>
#include <cuda/__execution/require.h>
#include <cuda/std/__execution/env.h>
#include <cuda/stream_ref>
#endif

#include "cuda/enqueue.hpp"
#include "cuda/launch_plan.hpp"
#include "detred/cuda.hpp"
#include "detred/detred.hpp"
#include "device_bench.cuh"
#include "run_record.hpp"

namespace {

using namespace detred::cuda_bench;

struct options {
  std::vector<int> log_sizes = {16, 20, 24, 27, 28};
  std::vector<std::string> types = {"float", "double"};
  int rounds = 200;
  int warmup = 20;
  std::string json;
  bool sweep = false;
};

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');) out.push_back(item);
  return out;
}

options parse(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "detred-cuda-bench: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--sizes") {
      o.log_sizes.clear();
      for (const std::string& s : split(value()))
        o.log_sizes.push_back(std::stoi(s.rfind("2^", 0) == 0 ? s.substr(2) : s));
    } else if (a == "--types") {
      o.types = split(value());
    } else if (a == "--rounds") {
      o.rounds = std::max(1, std::stoi(value()));
    } else if (a == "--json") {
      o.json = value();
    } else if (a == "--sweep") {
      o.sweep = true;
    } else {
      std::fprintf(stderr,
                   "usage: detred-cuda-bench [--sizes 2^16,2^20,2^24,2^27,2^28] [--types float,double] "
                   "[--rounds 200] [--json FILE|-] [--sweep]\n");
      std::exit(a == "--help" ? 0 : 2);
    }
  }
  return o;
}

struct result {
  std::string type;
  int log_n = 0;
  std::string variant;
  double median_us = 0;
  double gbps = 0;
  double vs_cub = 0;  // throughput ratio; for latency rows, time ratio
  std::string target;
  std::string verdict;
  bool bits_equal_cpu = true;
};

template <class T>
std::vector<result> run_size(const options& o, int log_n, cudaStream_t stream) {
  const std::uint64_t n = std::uint64_t{1} << log_n;
  const char* type = sizeof(T) == 8 ? "double" : "float";
  T* x = nullptr;
  T* out = nullptr;
  check(cudaMalloc(&x, n * sizeof(T)), "cudaMalloc input");
  check(cudaMalloc(&out, 8 * sizeof(T)), "cudaMalloc output");
  fill<T><<<1024, 256, 0, stream>>>(x, n, 0);
  check(cudaGetLastError(), "fill");

  std::size_t cub_bytes = 0;
  check(cub::DeviceReduce::Sum(nullptr, cub_bytes, x, out, static_cast<std::int64_t>(n), stream), "cub size");
  void* cub_temp = nullptr;
  check(cudaMalloc(&cub_temp, cub_bytes), "cudaMalloc cub temp");
  detred::cuda::workspace ws;

  auto cub_sum = [&] {
    check(cub::DeviceReduce::Sum(cub_temp, cub_bytes, x, out, static_cast<std::int64_t>(n), stream), "cub sum");
  };
  auto run = [&](detred::mode m, int slot) {
    return [&, m, slot] {
      detred::cuda::sum_async(std::span<const T>(x, n), out + slot, {.mode = m, .stream = stream, .workspace = &ws});
    };
  };
  struct variant {
    const char* name;
    std::function<void()> fn;
    detred::mode mode;
  };
  std::vector<variant> variants = {{"cub::DeviceReduce::Sum", cub_sum, detred::mode::tree},
                                   {"detred tree", run(detred::mode::tree, 1), detred::mode::tree},
                                   {"detred compensated", run(detred::mode::compensated, 2), detred::mode::compensated},
                                   {"detred exact", run(detred::mode::exact, 3), detred::mode::exact}};
#ifdef DETRED_BENCH_GPU_TO_GPU
  const auto gpu_to_gpu_env = cuda::std::execution::env{
      cuda::stream_ref{stream}, cuda::execution::require(cuda::execution::determinism::gpu_to_gpu)};
  variants.push_back({"cub gpu_to_gpu",
                      [&] {
                        check(cub::DeviceReduce::Reduce(x, out + 4, static_cast<std::int64_t>(n), cuda::std::plus<>{},
                                                        T{0}, gpu_to_gpu_env),
                              "cub gpu_to_gpu");
                      },
                      detred::mode::tree});
#endif

  event_timer t;
  std::vector<std::vector<double>> times(variants.size());
  for (int r = 0; r < o.warmup + o.rounds; ++r) {
    for (std::size_t v = 0; v < variants.size(); ++v) {
      const double us = t.us(variants[v].fn, stream);
      if (r >= o.warmup) times[v].push_back(us);
    }
  }

  // The GPU's bits against detred::sum on the CPU, for the same data.
  using bits_t = std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>;
  std::vector<T> host(n);
  T gpu[8] = {};
  check(cudaMemcpy(host.data(), x, n * sizeof(T), cudaMemcpyDeviceToHost), "copy input back");
  check(cudaMemcpy(gpu, out, sizeof gpu, cudaMemcpyDeviceToHost), "copy results back");

  const bool headline = (sizeof(T) == 4 && log_n == 28) || (sizeof(T) == 8 && log_n == 27);
  const double bytes = static_cast<double>(n * sizeof(T));
  const double cub_us = median(times[0]);
  std::vector<result> rows;
  for (std::size_t v = 0; v < variants.size(); ++v) {
    result r;
    r.type = type;
    r.log_n = log_n;
    r.variant = variants[v].name;
    r.median_us = median(times[v]);
    r.gbps = bytes / (r.median_us * 1e-6) / 1e9;
    r.vs_cub = cub_us / r.median_us;
    const bool ours = r.variant.rfind("detred", 0) == 0;
    if (ours) {
      const T cpu = detred::sum(std::span<const T>(host), {.mode = variants[v].mode});
      r.bits_equal_cpu = std::bit_cast<bits_t>(gpu[v]) == std::bit_cast<bits_t>(cpu);
    } else if (v > 0) {
      // CUB's deterministic sum is not correctly rounded: its distance from the exact sum, in units of the last place.
      const T exact = detred::sum(std::span<const T>(host), {.mode = detred::mode::exact});
      std::printf("  %s 2^%d: CUB gpu_to_gpu = %.9g, correctly rounded = %.9g, %s\n", type, log_n,
                  static_cast<double>(gpu[4]), static_cast<double>(exact),
                  std::bit_cast<bits_t>(gpu[4]) == std::bit_cast<bits_t>(exact) ? "equal" : "differ");
    }
    if (ours && headline) {
      const double goal = v == 1 ? 0.95 : 0.90;
      r.target = ">= " + std::to_string(goal).substr(0, 4) + "x CUB";
      r.verdict = r.vs_cub >= goal ? "PASS" : "MISS";
    } else if (ours && log_n == 16) {
      r.target = "<= 1.5x CUB time";
      r.verdict = r.median_us <= 1.5 * cub_us ? "PASS" : "MISS";
    }
    rows.push_back(r);
  }

  if (o.sweep && log_n == o.log_sizes.back()) {
    // Other launch plans for the same tree: same bits, maybe other speeds.
    const std::uint64_t m = detred::order::leaf_count<T>(n);
    void* partials = nullptr;
    check(cudaMalloc(&partials, (m + 16) * 16), "cudaMalloc sweep partials");
    for (std::uint32_t b : {4u, 8u, 16u, 32u}) {
      for (std::uint32_t lpw : {1u, 2u, 4u, 8u}) {
        for (detred::mode mode : {detred::mode::tree, detred::mode::compensated}) {
          const auto plan = detred::cuda::detail::forced_plan(m, lpw, b);
          auto fn = [&] { detred::cuda::detail::enqueue_sum(x, n, mode, plan, partials, out + 5, stream); };
          std::vector<double> ts;
          for (int r = 0; r < o.warmup + o.rounds / 2; ++r) {
            const double us = t.us(fn, stream);
            if (r >= o.warmup) ts.push_back(us);
          }
          std::printf("  sweep %s 2^%d %-11s warps/block %2u leaves/warp %u: %8.1f us %7.0f GB/s\n", type, log_n,
                      detred::to_string(mode), b, lpw, median(ts), bytes / (median(ts) * 1e-6) / 1e9);
        }
      }
    }
    check(cudaFree(partials), "cudaFree");
  }

  check(cudaFree(cub_temp), "cudaFree");
  check(cudaFree(out), "cudaFree");
  check(cudaFree(x), "cudaFree");
  return rows;
}

}  // namespace

int main(int argc, char** argv) {
  const options o = parse(argc, argv);
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  cudaStream_t stream = nullptr;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  const bool json_to_stdout = o.json == "-";
  FILE* table = json_to_stdout ? stderr : stdout;
  std::fprintf(table, "detred-cuda-bench on %s (%d SMs), CUDA events, median of %d rounds after %d warm-up\n",
               prop.name, prop.multiProcessorCount, o.rounds, o.warmup);
  std::fprintf(table, "%-6s %-5s %-24s %11s %9s %8s %-18s %-7s %s\n", "type", "n", "variant", "median us", "GB/s",
               "vs CUB", "target", "verdict", "bits == CPU");
  std::vector<result> rows;
  bool bits_ok = true;
  for (const std::string& type : o.types) {
    for (int log_n : o.log_sizes) {
      const std::vector<result> r =
          type == "double" ? run_size<double>(o, log_n, stream) : run_size<float>(o, log_n, stream);
      for (const result& x : r) {
        std::fprintf(table, "%-6s 2^%-3d %-24s %11.2f %9.1f %7.3fx %-18s %-7s %s\n", x.type.c_str(), x.log_n,
                     x.variant.c_str(), x.median_us, x.gbps, x.vs_cub, x.target.c_str(), x.verdict.c_str(),
                     x.variant[0] == 'c' ? "-" : (x.bits_equal_cpu ? "yes" : "NO"));
        bits_ok = bits_ok && x.bits_equal_cpu;
      }
      std::fflush(table);
      rows.insert(rows.end(), r.begin(), r.end());
    }
  }
  if (!o.json.empty()) {
    detred::bench::run_record record("detred-cuda-bench", argc, argv);
    record.set("device", std::string(prop.name));
    record.set("rounds", std::int64_t{o.rounds});
    for (const result& r : rows) {
      record.add({{"type", r.type},
                  {"n", "2^" + std::to_string(r.log_n)},
                  {"variant", r.variant},
                  {"median_us", r.median_us},
                  {"gb_per_s", r.gbps},
                  {"vs_cub", r.vs_cub},
                  {"target", r.target},
                  {"verdict", r.verdict},
                  {"bits_equal_cpu", r.bits_equal_cpu}});
    }
    if (!record.write(o.json)) return 2;
  }
  cudaStreamDestroy(stream);
  return bits_ok ? 0 : 1;
}
