// SPDX-License-Identifier: BSD-3-Clause
// What the GPU benchmarks share: error checks, device data generated on the device, CUDA-event timing, and one
// detred call timed against its baseline on the same device buffers.
#pragma once

#include <errno.h>  // program_invocation_short_name: the benchmark's name in its error messages

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <type_traits>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime.h>

namespace detred::cuda_bench {

inline void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    std::fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, what, cudaGetErrorString(status));
    std::exit(2);
  }
}
inline void check(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "%s: %s: cuBLAS status %d\n", program_invocation_short_name, what, static_cast<int>(status));
    std::exit(2);
  }
}

/// SplitMix64's finalizer: a well-mixed 64-bit hash of z, for data generated on the device from its index.
__host__ __device__ inline std::uint64_t mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// Values in [-1, 1) (integers in [-1000, 1000]) from a hash of the index and a seed: the same data every run,
/// never zeros for floating point, and generated on the device so that large inputs cost no host copy.
template <class T>
__global__ void fill(T* x, std::uint64_t n, std::uint64_t seed) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    const std::uint64_t z = mix(i + seed * 0x632be59bd9b4e019ULL + 0x9e3779b97f4a7c15ULL);
    if constexpr (std::is_integral_v<T>) {
      x[i] = static_cast<T>(static_cast<std::int64_t>(z % 2001) - 1000);
    } else {
      x[i] = static_cast<T>(static_cast<double>(z >> 11) * 0x1.0p-52 - 1.0);
    }
  }
}

/// n elements of fill(seed) in new device memory; waits until they are written.
template <class T>
T* device_data(std::uint64_t n, std::uint64_t seed, cudaStream_t stream) {
  T* p = nullptr;
  check(cudaMalloc(&p, n * sizeof(T)), "cudaMalloc");
  fill<T><<<1024, 256, 0, stream>>>(p, n, seed);
  check(cudaStreamSynchronize(stream), "fill");
  return p;
}

template <class T>
std::vector<T> host_copy(const T* d, std::uint64_t n) {
  std::vector<T> h(n);
  check(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost), "copy back");
  return h;
}

/// Times what a function enqueues on a stream, with a pair of CUDA events around it.
struct event_timer {
  cudaEvent_t start{};
  cudaEvent_t stop{};
  event_timer() {
    check(cudaEventCreate(&start), "cudaEventCreate");
    check(cudaEventCreate(&stop), "cudaEventCreate");
  }
  ~event_timer() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  event_timer(const event_timer&) = delete;
  event_timer& operator=(const event_timer&) = delete;

  /// Microseconds between the events recorded before and after fn() on `stream`.
  template <class F>
  double us(F&& fn, cudaStream_t stream) {
    check(cudaEventRecord(start, stream), "cudaEventRecord");
    fn();
    check(cudaEventRecord(stop, stream), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    return ms * 1000.0;
  }
};

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 == 1 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

/// Medians over rounds of each side's microseconds and of the per-round ratio time(baseline) / time(ours).
struct paired_times {
  double ours_us;
  double baseline_us;
  double ratio;
};

/// Times ours and the baseline alternately, `rounds` rounds after `warmup` untimed ones; each round runs both,
/// and which one goes first alternates, so neither always runs on the other's warm L2.
template <class Ours, class Baseline>
paired_times time_paired(const Ours& ours, const Baseline& baseline, int rounds, cudaStream_t s, int warmup = 10) {
  event_timer e;
  std::vector<double> t_ours, t_base, ratio;
  for (int r = 0; r < rounds + warmup; ++r) {
    const double a = (r % 2 == 0) ? e.us(ours, s) : 0;
    const double b = e.us(baseline, s);
    const double c = (r % 2 == 1) ? e.us(ours, s) : a;
    if (r >= warmup) {
      t_ours.push_back(c);
      t_base.push_back(b);
      ratio.push_back(b / c);
    }
  }
  return {median(t_ours), median(t_base), median(ratio)};
}

/// Temporary storage for a CUB call, sized by a first call with no storage.
struct cub_storage {
  void* p = nullptr;
  std::size_t bytes = 0;
  template <class F>
  explicit cub_storage(F size_query) {
    size_query(static_cast<void*>(nullptr), bytes);
    check(cudaMalloc(&p, bytes == 0 ? 1 : bytes), "cub temp");
  }
  ~cub_storage() { cudaFree(p); }
  cub_storage(const cub_storage&) = delete;
  cub_storage& operator=(const cub_storage&) = delete;
};

}  // namespace detred::cuda_bench
