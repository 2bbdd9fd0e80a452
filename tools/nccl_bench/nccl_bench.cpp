// SPDX-License-Identifier: BSD-3-Clause
// detred-nccl-bench: detred::nccl::allreduce_sum against ncclAllReduce (sum, same type, same buffers, same run) on
// every visible GPU (a rank each, one process). For each message size and type: the time per call (the slowest
// rank's, from CUDA events around a loop of calls started together), the bus bandwidth as nccl-tests reports it
// (bytes x 2 (R - 1) / R / time) and the ratios detred / NCCL. Prints a Markdown table; with a file argument also
// writes it as CSV there.
//
//   detred-nccl-bench [results.csv]
#include <algorithm>
#include <barrier>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "detred/nccl.hpp"
#include "ranks.hpp"

namespace {

using detred_nccl_tools::cuda_ok;
using detred_nccl_tools::nccl_ok;
using detred_nccl_tools::rank;

struct type_case {
  const char* name;
  ncclDataType_t nccl;
  std::size_t size;
};

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

  std::FILE* csv = argc > 1 ? std::fopen(argv[1], "w") : nullptr;
  if (csv != nullptr)
    std::fprintf(csv, "ranks,type,bytes,nccl_us,detred_us,nccl_busbw_GBs,detred_busbw_GBs,bw_ratio,latency_ratio\n");
  std::printf("detred::nccl::allreduce_sum vs ncclAllReduce, %d ranks (bus bandwidth = bytes x %.3f / time)\n\n", count,
              bus_factor);
  std::printf("| type | bytes | NCCL us | detred us | NCCL busbw GB/s | detred busbw GB/s | bw ratio | time ratio |\n");
  std::printf("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
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
        const std::string name = t.name;
        if (name == "float32") {
          detred::nccl::allreduce_sum(std::span<const float>(static_cast<const float*>(x[k.index]), n),
                                      std::span<float>(static_cast<float*>(out[k.index]), n), k.comm, *k.ws,
                                      detred::mode::tree, k.stream);
        } else if (name == "bfloat16") {
          detred::nccl::allreduce_sum(
              std::span<const detred::bfloat16>(static_cast<const detred::bfloat16*>(x[k.index]), n),
              std::span<detred::bfloat16>(static_cast<detred::bfloat16*>(out[k.index]), n), k.comm, *k.ws,
              detred::mode::tree, k.stream);
        } else {
          detred::nccl::allreduce_sum(std::span<const double>(static_cast<const double*>(x[k.index]), n),
                                      std::span<double>(static_cast<double*>(out[k.index]), n), k.comm, *k.ws,
                                      detred::mode::tree, k.stream);
        }
      });
      all.run([&](rank& k) {
        cudaFree(x[k.index]);
        cudaFree(out[k.index]);
      });
      const double nccl_bw = static_cast<double>(bytes) * bus_factor / (nccl_ms * 1e-3) / 1e9;
      const double detred_bw = static_cast<double>(bytes) * bus_factor / (detred_ms * 1e-3) / 1e9;
      std::printf("| %s | %zu | %.1f | %.1f | %.1f | %.1f | %.2f | %.2f |\n", t.name, bytes, nccl_ms * 1e3,
                  detred_ms * 1e3, nccl_bw, detred_bw, detred_bw / nccl_bw, detred_ms / nccl_ms);
      std::fflush(stdout);
      if (csv != nullptr) {
        std::fprintf(csv, "%d,%s,%zu,%.3f,%.3f,%.3f,%.3f,%.4f,%.4f\n", count, t.name, bytes, nccl_ms * 1e3,
                     detred_ms * 1e3, nccl_bw, detred_bw, detred_bw / nccl_bw, detred_ms / nccl_ms);
      }
    }
  }
  if (csv != nullptr) std::fclose(csv);
  return 0;
}
