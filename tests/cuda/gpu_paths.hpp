// SPDX-License-Identifier: BSD-3-Clause
// Every way the CUDA backend can compute a sum, and the check that each returns the CPU reference's bits.
#pragma once

#include <atomic>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "cuda/enqueue.hpp"
#include "cuda/launch_plan.hpp"
#include "detred/cuda.hpp"
#include "detred/detred.hpp"
#include "test_data.hpp"

namespace detred::testing {

/// Fails the test with the CUDA error text unless status is cudaSuccess.
#define DETRED_CUDA_OK(call)                                                                       \
  do {                                                                                             \
    const cudaError_t detred_status_ = (call);                                                     \
    ASSERT_EQ(detred_status_, cudaSuccess) << #call << ": " << cudaGetErrorString(detred_status_); \
  } while (0)

/// Why GPU tests cannot run here, or empty if a device is usable.
inline std::string missing_device_reason() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) return std::string("no usable CUDA device: ") + cudaGetErrorString(status);
  if (count == 0) return "no CUDA device";
  return "";
}

/// Fixture for tests that need a GPU: skips, with the reason, when there is none.
class Gpu : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string reason = missing_device_reason();
    if (!reason.empty()) GTEST_SKIP() << reason;
  }
};

template <class T>
class TypedGpu : public Gpu {};

/// Number of GPU results compared bit for bit with the reference; printed at the end of the binary.
inline std::atomic<std::uint64_t>& gpu_comparisons() {
  static std::atomic<std::uint64_t> count{0};
  return count;
}
/// Number of distinct inputs those comparisons covered (an input is one (values, n, offset, mode)).
inline std::atomic<std::uint64_t>& gpu_inputs() {
  static std::atomic<std::uint64_t> count{0};
  return count;
}

/// Device memory for a test; freed on scope exit.
template <class T>
class device_array {
 public:
  explicit device_array(std::uint64_t n) : n_(n) {
    void* p = nullptr;
    if (cudaMalloc(&p, (n == 0 ? 1 : n) * sizeof(T)) == cudaSuccess) data_ = static_cast<T*>(p);
  }
  ~device_array() { static_cast<void>(cudaFree(data_)); }
  device_array(const device_array&) = delete;
  device_array& operator=(const device_array&) = delete;
  T* data() const { return data_; }
  bool ok() const { return data_ != nullptr; }

 private:
  T* data_ = nullptr;
  std::uint64_t n_;
};

/// Host to device, n = host.size() elements.
template <class T>
void upload(const std::vector<T>& host, T* device) {
  if (!host.empty()) {
    ASSERT_EQ(cudaMemcpy(device, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  }
}

/// Device to host, after the device has finished its work.
template <class T>
std::vector<T> download(const T* device, std::uint64_t n) {
  std::vector<T> host(n);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  if (n > 0) {
    EXPECT_EQ(cudaMemcpy(host.data(), device, n * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
  }
  return host;
}

/// Plans that spread the same tree differently: one leaf per block, wide and narrow blocks, the longest warp runs.
inline const std::vector<std::pair<std::uint32_t, std::uint32_t>>& forced_plans() {
  static const std::vector<std::pair<std::uint32_t, std::uint32_t>> plans = {{1, 1}, {2, 4}, {1, 32}, {32, 32}, {4, 8}};
  return plans;
}

/// The workspace the tests share (one device, one thread).
inline cuda::workspace& test_workspace() {
  static cuda::workspace ws;
  return ws;
}

/// Runs device data d[0..n) (a copy of host x) through the public synchronous and asynchronous entry points and
/// through every forced plan, and requires the bits of `expected` from each.
template <class T>
void expect_device_paths_match(std::span<const T> x, const T* d, T expected, mode m, const std::string& what) {
  const std::uint64_t n = x.size();
  const std::span<const T> dx(d, n);
  auto report = [&](const char* path) {
    return what + " path=" + path + " mode=" + to_string(m) + " n=" + std::to_string(n);
  };

  const T sync = cuda::sum(dx, {.mode = m, .workspace = &test_workspace()});
  EXPECT_EQ(bits(sync), bits(expected)) << report("sum") << " got " << sync << " expected " << expected;

  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  device_array<T> out(1);
  cuda::sum_async(dx, out.data(), {.mode = m, .stream = stream, .workspace = &test_workspace()});
  T async_value{};
  ASSERT_EQ(cudaMemcpyAsync(&async_value, out.data(), sizeof(T), cudaMemcpyDeviceToHost, stream), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  EXPECT_EQ(bits(async_value), bits(expected)) << report("sum_async on a stream");

  const std::uint64_t m_leaves = order::leaf_count<T>(n);
  for (const auto& [r, b] : forced_plans()) {
    const cuda::detail::launch_plan plan = cuda::detail::forced_plan(m_leaves, r, b);
    device_array<unsigned char> partials(cuda::detail::partial_values(plan) * 16 + 16);  // nodes of at most 16 bytes
    ASSERT_TRUE(partials.ok());
    cuda::detail::enqueue_sum(d, n, m, plan, partials.data(), out.data(), stream);
    T planned{};
    ASSERT_EQ(cudaMemcpyAsync(&planned, out.data(), sizeof(T), cudaMemcpyDeviceToHost, stream), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    EXPECT_EQ(bits(planned), bits(expected)) << report("forced plan") << " leaves/warp=" << r << " warps/block=" << b;
  }
  ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);
  gpu_comparisons() += 2 + forced_plans().size();
}

/// Uploads x at `offset` elements past a 256-byte aligned allocation, checks every device path and the host
/// convenience (detred::sum with backend::cuda) against reference::sum. Returns the reference result.
template <class T>
T expect_gpu_matches_reference(std::span<const T> x, mode m, const std::string& what, std::uint64_t offset = 0) {
  const T expected = reference::sum(x, {.mode = m});
  device_array<T> buffer(x.size() + offset);
  EXPECT_TRUE(buffer.ok()) << "cudaMalloc of " << x.size() + offset << " elements";
  if (!buffer.ok()) return expected;
  EXPECT_EQ(cudaMemcpy(buffer.data() + offset, x.data(), x.size_bytes(), cudaMemcpyHostToDevice), cudaSuccess);
  const std::string label = what + " offset=" + std::to_string(offset);
  expect_device_paths_match<T>(x, buffer.data() + offset, expected, m, label);

  const T host = detred::sum(x, {.mode = m, .backend = backend::cuda});
  EXPECT_EQ(bits(host), bits(expected)) << label << " path=detred::sum(backend::cuda) mode=" << to_string(m)
                                        << " n=" << x.size();
  gpu_comparisons() += 1;
  gpu_inputs() += 1;
  return expected;
}

}  // namespace detred::testing
