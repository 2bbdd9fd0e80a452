// SPDX-License-Identifier: BSD-3-Clause
// detred-nccl-bench: detred::nccl::allreduce_sum (each call checking its arguments across the ranks) and a
// detred::nccl::plan (checked once) against ncclAllReduce (sum, same type, same buffers, same run) on every visible
// GPU (a rank each, one process). For each message size and type: the time per call (the slowest rank's, from CUDA
// events around a loop of calls started together), the bus bandwidth as nccl-tests reports it
// (bytes x 2 (R - 1) / R / time) and the ratios detred / NCCL. Prints a Markdown table; with a file argument also
// writes it as CSV there.
//
//   detred-nccl-bench [results.json]
#include <algorithm>
#include <barrier>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "detred/nccl.hpp"
#include "ranks.hpp"
#include "run_record.hpp"

namespace {

using detred_nccl_tools::cuda_ok;
using detred_nccl_tools::nccl_ok;
using detred_nccl_tools::rank;

struct type_case {
  const char* name;
  ncclDataType_t nccl;
  std::size_t size;
};

template <class T>
void call(rank& k, const std::vector<void*>& x, const std::vector<void*>& out, std::size_t n) {
  detred::nccl::allreduce_sum(std::span<const T>(static_cast<const T*>(x[k.index]), n),
                              std::span<T>(static_cast<T*>(out[k.index]), n), k.comm, *k.ws, detred::mode::tree,
                              k.stream);
}

template <class T>
std::function<void()> planned_call(rank& k, const std::vector<void*>& x, const std::vector<void*>& out, std::size_t n) {
  auto p = std::make_shared<detred::nccl::plan<T>>(detred::nccl::collective::allreduce, n, k.comm, *k.ws,
                                                   detred::mode::tree, k.stream);
  return [p, &k, xs = static_cast<const T*>(x[k.index]), o = static_cast<T*>(out[k.index])] { (*p)(xs, o, k.stream); };
}

/// Milliseconds per call of `call`, the slowest rank's: every rank starts its timed loop at a barrier.
template <class Call>
double time_per_call(detred_nccl_tools::ranks& all, int iterations, const Call& call) {
  std::vector<double> ms(all.count());
  std::barrier sync(all.count());
  all.run([&](rank& k) {
    for (int i = 0; i < 3; ++i) call(k);  // warm-up: workspaces grown, NCCL connections made
    cudaEvent_t start, stop;
    cuda_ok(cudaEventCreate(&start), "cudaEventCreate");
    cuda_ok(cudaEventCreate(&stop), "cudaEventCreate");
    cuda_ok(cudaStreamSynchronize(k.stream), "cudaStreamSynchronize");
    sync.arrive_and_wait();
    cuda_ok(cudaEventRecord(start, k.stream), "cudaEventRecord");
    for (int i = 0; i < iterations; ++i) call(k);
    cuda_ok(cudaEventRecord(stop, k.stream), "cudaEventRecord");
    cuda_ok(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float elapsed = 0;
    cuda_ok(cudaEventElapsedTime(&elapsed, start, stop), "cudaEventElapsedTime");
    ms[k.index] = static_cast<double>(elapsed) / iterations;
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  });
  return *std::max_element(ms.begin(), ms.end());
}

}  // namespace

int main(int argc, char** argv) {
  detred_nccl_tools::ranks all;
  const int count = all.count();
  const std::vector<std::size_t> sizes = {256u << 10, 1u << 20, 4u << 20, 16u << 20, 64u << 20, 256u << 20, 1u << 30};
  const type_case types[] = {{"float32", ncclFloat32, 4}, {"bfloat16", ncclBfloat16, 2}, {"float64", ncclFloat64, 8}};
  const double bus_factor = count > 1 ? 2.0 * (count - 1) / count : 1.0;

  // The rows as data (docs/benchmarks.md, "Results as data") when a file is named.
  const std::string json = argc > 1 ? argv[1] : "";
  detred::bench::run_record record("detred-nccl-bench", argc, argv);
  record.set("ranks", std::int64_t{count});
  std::printf("detred::nccl::allreduce_sum vs ncclAllReduce, %d ranks (bus bandwidth = bytes x %.3f / time)\n\n", count,
              bus_factor);
  std::printf(
      "| type | bytes | NCCL us | detred us | plan us | NCCL busbw GB/s | detred busbw | plan busbw | bw ratio detred "
      "| bw ratio plan | time ratio detred | time ratio plan |\n");
  std::printf("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
  for (const type_case& t : types) {
    for (std::size_t bytes : sizes) {
      const std::size_t n = bytes / t.size;
      std::vector<void*> x(count), out(count);
      all.run([&](rank& k) {
        cuda_ok(cudaMalloc(&x[k.index], bytes), "cudaMalloc");
        cuda_ok(cudaMalloc(&out[k.index], bytes), "cudaMalloc");
        cuda_ok(cudaMemset(x[k.index], 0x3c, bytes), "cudaMemset");  // finite values in every type
      });
      const int iterations = static_cast<int>(std::clamp<std::size_t>((std::size_t{1} << 31) / bytes, 5, 200));
      const double nccl_ms = time_per_call(all, iterations, [&](rank& k) {
        nccl_ok(ncclAllReduce(x[k.index], out[k.index], n, t.nccl, ncclSum, k.comm, k.stream), "ncclAllReduce");
      });
      const double detred_ms = time_per_call(all, iterations, [&](rank& k) {
        if (t.nccl == ncclFloat32) {
          call<float>(k, x, out, n);
        } else if (t.nccl == ncclBfloat16) {
          call<detred::bfloat16>(k, x, out, n);
        } else {
          call<double>(k, x, out, n);
        }
      });
      // Plans agreed once per rank (collective), then called with no argument check.
      std::vector<std::function<void()>> planned(count);
      all.run([&](rank& k) {
        if (t.nccl == ncclFloat32) {
          planned[k.index] = planned_call<float>(k, x, out, n);
        } else if (t.nccl == ncclBfloat16) {
          planned[k.index] = planned_call<detred::bfloat16>(k, x, out, n);
        } else {
          planned[k.index] = planned_call<double>(k, x, out, n);
        }
      });
      const double plan_ms = time_per_call(all, iterations, [&](rank& k) { planned[k.index](); });
      all.run([&](rank& k) {
        cudaFree(x[k.index]);
        cudaFree(out[k.index]);
      });
      const auto busbw = [&](double ms) { return static_cast<double>(bytes) * bus_factor / (ms * 1e-3) / 1e9; };
      std::printf("| %s | %zu | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.2f | %.2f | %.2f | %.2f |\n", t.name, bytes,
                  nccl_ms * 1e3, detred_ms * 1e3, plan_ms * 1e3, busbw(nccl_ms), busbw(detred_ms), busbw(plan_ms),
                  busbw(detred_ms) / busbw(nccl_ms), busbw(plan_ms) / busbw(nccl_ms), detred_ms / nccl_ms,
                  plan_ms / nccl_ms);
      std::fflush(stdout);
      record.add({{"type", std::string(t.name)},
                  {"bytes", static_cast<std::int64_t>(bytes)},
                  {"nccl_us", nccl_ms * 1e3},
                  {"detred_us", detred_ms * 1e3},
                  {"plan_us", plan_ms * 1e3},
                  {"nccl_busbw_gb_per_s", busbw(nccl_ms)},
                  {"detred_busbw_gb_per_s", busbw(detred_ms)},
                  {"plan_busbw_gb_per_s", busbw(plan_ms)},
                  {"bw_ratio_detred", busbw(detred_ms) / busbw(nccl_ms)},
                  {"bw_ratio_plan", busbw(plan_ms) / busbw(nccl_ms)},
                  {"time_ratio_detred", detred_ms / nccl_ms},
                  {"time_ratio_plan", plan_ms / nccl_ms}});
    }
  }
  if (!json.empty() && !record.write(json)) return 2;
  return 0;
}
