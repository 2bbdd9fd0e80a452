// SPDX-License-Identifier: BSD-3-Clause
// detred-multi-gpu-bench: the sum of one array split over the GPUs of this machine (detred::cuda::sum over device
// pieces) against the one-GPU sum of the whole array, same run, interleaved; also two pieces on two streams of one
// GPU. The ratio is the median of time(one GPU) / time(split). Target (the partial-states issue): 2^30 floats over
// two GPUs at >= 1.8x one GPU's throughput. Prints the bits of each variant: they must be equal.
#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "detred/cuda.hpp"

namespace {

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    std::fprintf(stderr, "detred-multi-gpu-bench: %s: %s\n", what, cudaGetErrorString(status));
    std::exit(1);
  }
}

template <class F>
double seconds(F&& f, int calls) {
  const auto start = std::chrono::steady_clock::now();
  for (int k = 0; k < calls; ++k) f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / calls;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int log_n = argc > 1 ? std::atoi(argv[1]) : 30;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 15;
  const std::uint64_t n = std::uint64_t{1} << log_n;
  int devices = 0;
  check(cudaGetDeviceCount(&devices), "cudaGetDeviceCount");

  // x on device 0; its second half also on device 1 (when there is one).
  std::vector<float> host(n);
  std::uint64_t state = 1;
  for (auto& e : host) {
    state = state * 6364136223846793005u + 1442695040888963407u;
    e = static_cast<float>(static_cast<std::int64_t>(state >> 40) - (std::int64_t{1} << 23)) * 0x1p-23f;
  }
  void* memory = nullptr;
  check(cudaSetDevice(0), "cudaSetDevice");
  check(cudaMalloc(&memory, n * sizeof(float)), "cudaMalloc");
  float* const x0 = static_cast<float*>(memory);
  check(cudaMemcpy(x0, host.data(), n * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
  float* x1 = nullptr;
  if (devices > 1) {
    check(cudaSetDevice(1), "cudaSetDevice");
    check(cudaMalloc(&memory, n / 2 * sizeof(float)), "cudaMalloc");
    x1 = static_cast<float*>(memory);
    check(cudaMemcpy(x1, host.data() + n / 2, n / 2 * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
    check(cudaSetDevice(0), "cudaSetDevice");
  }
  cudaStream_t streams[2];
  check(cudaStreamCreate(&streams[0]), "cudaStreamCreate");
  check(cudaStreamCreate(&streams[1]), "cudaStreamCreate");

  detred::cuda::workspace ws;
  float one = 0;
  const auto one_gpu = [&] { one = detred::cuda::sum(std::span<const float>(x0, n), {.workspace = &ws}); };
  struct variant {
    std::string name;
    std::vector<detred::cuda::device_piece<float>> pieces;
    double target;
  };
  std::vector<variant> variants;
  variants.push_back({"2 pieces, 2 streams of GPU 0",
                      {{std::span<const float>(x0, n / 2), 0, streams[0]},
                       {std::span<const float>(x0 + n / 2, n - n / 2), 0, streams[1]}},
                      0.0});
  if (devices > 1) {
    variants.push_back(
        {"2 pieces, GPUs 0 and 1",
         {{std::span<const float>(x0, n / 2), 0, nullptr}, {std::span<const float>(x1, n - n / 2), 1, nullptr}},
         1.8});
  }
  std::printf(
      "detred-multi-gpu-bench: 2^%d floats, %d GPU(s), %d rounds; ratio = time(one GPU, one call) / "
      "time(variant), medians\n",
      log_n, devices, rounds);
  std::printf("%-32s %10s %10s %7s %8s %s\n", "variant", "GB/s", "one GPU", "ratio", "target", "bits");
  for (const variant& v : variants) {
    float split = 0;
    const auto call = [&] { split = detred::cuda::sum(std::span<const detred::cuda::device_piece<float>>(v.pieces)); };
    one_gpu();
    call();
    std::vector<double> ratios, ours, base;
    for (int r = 0; r < rounds; ++r) {
      double a = 0, b = 0;
      if (r % 2 == 0) {
        a = seconds(call, 10);
        b = seconds(one_gpu, 10);
      } else {
        b = seconds(one_gpu, 10);
        a = seconds(call, 10);
      }
      ratios.push_back(b / a);
      ours.push_back(static_cast<double>(n * sizeof(float)) / a / 1e9);
      base.push_back(static_cast<double>(n * sizeof(float)) / b / 1e9);
    }
    const bool same = std::bit_cast<std::uint32_t>(split) == std::bit_cast<std::uint32_t>(one);
    std::printf("%-32s %10.1f %10.1f %7.3f %8s %s\n", v.name.c_str(), median(ours), median(base), median(ratios),
                v.target > 0 ? ">= 1.80" : "", same ? "same bits" : "DIFFERENT BITS");
  }
  return 0;
}
