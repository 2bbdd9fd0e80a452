// SPDX-License-Identifier: BSD-3-Clause
// The CUDA API's contract: errors become detred::error with the CUDA text, a workspace stops allocating once it
// exists, streams are respected, and a build without a device says so instead of failing silently.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "cuda/gpu_paths.hpp"
#include "cuda/launch_plan.hpp"
#include "cuda/workspace_state.hpp"
#include "detred/cuda.hpp"
#include "detred/detred.hpp"
#include "test_data.hpp"

namespace detred::testing {
namespace {

// Runs where there is no device (CI): the public API must throw detred::error carrying CUDA's own reason.
TEST(CudaWithoutDevice, BackendCudaThrowsWithTheCudaReason) {
  if (missing_device_reason().empty()) GTEST_SKIP() << "a CUDA device is present; this checks the message without one";
  EXPECT_FALSE(cuda::available());
  const std::vector<double> x = {1.0, 2.0};
  try {
    detred::sum(std::span<const double>(x), {.backend = backend::cuda});
    ADD_FAILURE() << "expected detred::error";
  } catch (const detred::error& e) {
    EXPECT_NE(std::string(e.what()).find("CUDA"), std::string::npos) << e.what();
    std::cout << "[ message  ] " << e.what() << "\n";
  }
  EXPECT_THROW(cuda::workspace{}, detred::error);
}

// Host arithmetic, no device needed: an operator that asks for longer runs per warp (stats asks for 4 leaves) gets
// them where the blocks stay at least min_blocks, and the plan still covers every leaf.
TEST(CudaPlans, LongerRunsPerWarpOnlyWhereEnoughBlocksRemain) {
  using cuda::detail::default_plan;
  for (const std::uint64_t leaves : {std::uint64_t{33}, std::uint64_t{300}, std::uint64_t{4096}, std::uint64_t{8192},
                                     std::uint64_t{65536}, std::uint64_t{1} << 20, std::uint64_t{1} << 25}) {
    const cuda::detail::launch_plan plain = default_plan(leaves);
    for (const std::uint32_t wanted : {1u, 3u, 4u, 32u, 64u}) {
      const cuda::detail::launch_plan p = default_plan(leaves, wanted);
      const std::uint64_t per_block = std::uint64_t{p.leaves_per_warp} * p.warps_per_block;
      EXPECT_GE(p.blocks * per_block, leaves) << leaves << " leaves, " << wanted << " wanted";
      EXPECT_LT((p.blocks - 1) * per_block, leaves) << leaves << " leaves, " << wanted << " wanted";
      EXPECT_LE(p.leaves_per_warp, cuda::detail::max_leaves_per_warp);
      EXPECT_GE(p.leaves_per_warp, plain.leaves_per_warp);
      EXPECT_EQ(p.warps_per_block, plain.warps_per_block);
      if (p.leaves_per_warp > plain.leaves_per_warp) {
        EXPECT_GE(p.blocks, cuda::detail::min_blocks) << leaves << " leaves, " << wanted << " wanted";
        EXPECT_LT(p.leaves_per_warp, 2 * wanted);
      }
    }
  }
  EXPECT_EQ(default_plan(65536).leaves_per_warp, 1u);  // 2^27 doubles: 8192 blocks of 8 warps
  EXPECT_EQ(default_plan(65536, 4).leaves_per_warp, 4u);
  EXPECT_EQ(default_plan(65536, 4).blocks, 2048u);
  EXPECT_EQ(default_plan(300, 4).leaves_per_warp, 1u);  // 300 blocks of one warp: none to spare
}

using Api = Gpu;

// backend::automatic takes host memory on the CPU, backend::cuda on the GPU. The bits cannot tell them apart (that is
// the point), so the backend's count of enqueued sums does.
TEST_F(Api, AutomaticStaysOnTheCpuAndCudaRunsOnTheGpu) {
  EXPECT_TRUE(cuda::available());
  const std::vector<float> x = generate<float>(values::uniform, 100000, 11);
  const std::uint64_t before = cuda::detail::enqueued_sums();
  const float automatic = detred::sum(std::span<const float>(x));
  EXPECT_EQ(cuda::detail::enqueued_sums(), before) << "backend::automatic ran on the GPU";
  const float gpu = detred::sum(std::span<const float>(x), {.backend = backend::cuda});
  EXPECT_EQ(cuda::detail::enqueued_sums(), before + 1) << "backend::cuda did not run on the GPU";
  EXPECT_EQ(bits(automatic), bits(gpu));
}

TEST_F(Api, InvalidArgumentsThrowDetredError) {
  device_array<double> d(16);
  ASSERT_TRUE(d.ok());
  const std::span<const double> x(d.data(), 16);
  EXPECT_THROW(cuda::sum(x, {.mode = static_cast<mode>(7), .workspace = &test_workspace()}), detred::error);
  EXPECT_THROW(cuda::sum_async(x, nullptr, {.workspace = &test_workspace()}), detred::error);
  EXPECT_THROW(
      cuda::sum(std::span<const double>(static_cast<const double*>(nullptr), 5), {.workspace = &test_workspace()}),
      detred::error);
  EXPECT_THROW(cuda::detail::forced_plan(10, 3, 8), detred::error);
}

// After the first call of the largest size, further calls of any size up to it allocate nothing: the workspace's
// size is unchanged, and so is its allocation count. (The device's free memory is no witness: other tests and
// processes allocate at the same time.)
TEST_F(Api, NoAllocationPerCallOnceTheWorkspaceExists) {
  const std::uint64_t big = std::uint64_t{1} << 24;
  const std::vector<double> x = generate<double>(values::uniform, big, 12);
  device_array<double> d(big);
  device_array<double> out(1);
  ASSERT_TRUE(d.ok());
  DETRED_CUDA_OK(cudaMemcpy(d.data(), x.data(), big * sizeof(double), cudaMemcpyHostToDevice));
  cuda::workspace ws;
  const std::size_t initial = ws.device_bytes();
  EXPECT_LE(initial, std::size_t{256} << 10) << "the workspace starts at about 128 KiB";
  for (mode m : {mode::tree, mode::compensated})
    cuda::sum(std::span<const double>(d.data(), big), {.mode = m, .workspace = &ws});
  const std::uint64_t allocations_before = cuda::detail::workspace_access::of(ws).allocations;
  for (std::uint64_t n : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{5000}, std::uint64_t{1} << 20, big}) {
    for (mode m : {mode::tree, mode::compensated}) {
      cuda::sum(std::span<const double>(d.data(), n), {.mode = m, .workspace = &ws});
      cuda::sum_async(std::span<const double>(d.data(), n), out.data(),
                      {.mode = m, .stream = nullptr, .workspace = &ws});
    }
  }
  DETRED_CUDA_OK(cudaDeviceSynchronize());
  EXPECT_EQ(ws.device_bytes(), initial);
  EXPECT_EQ(cuda::detail::workspace_access::of(ws).allocations, allocations_before);
  std::cout << "[ workspace] " << ws.device_bytes() << " bytes of device memory after sums up to n = 2^24\n";
}

// Two workspaces on two streams with overlapping work: each result is the reference's.
TEST_F(Api, ConcurrentStreamsWithTheirOwnWorkspaces) {
  const std::uint64_t n = (std::uint64_t{1} << 22) + 3;
  const std::vector<float> a = generate<float>(values::uniform, n, 13);
  const std::vector<float> b = generate<float>(values::ill_conditioned, n, 14);
  const float expect_a = reference::sum(std::span<const float>(a), {.mode = mode::compensated});
  const float expect_b = reference::sum(std::span<const float>(b), {.mode = mode::tree});
  device_array<float> da(n);
  device_array<float> db(n);
  device_array<float> out(2);
  DETRED_CUDA_OK(cudaMemcpy(da.data(), a.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  DETRED_CUDA_OK(cudaMemcpy(db.data(), b.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  cudaStream_t s1 = nullptr;
  cudaStream_t s2 = nullptr;
  DETRED_CUDA_OK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  DETRED_CUDA_OK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  cuda::workspace w1;
  cuda::workspace w2;
  for (int round = 0; round < 20; ++round) {
    cuda::sum_async(std::span<const float>(da.data(), n), out.data(),
                    {.mode = mode::compensated, .stream = s1, .workspace = &w1});
    cuda::sum_async(std::span<const float>(db.data(), n), out.data() + 1,
                    {.mode = mode::tree, .stream = s2, .workspace = &w2});
  }
  float got[2] = {};
  DETRED_CUDA_OK(cudaStreamSynchronize(s1));
  DETRED_CUDA_OK(cudaStreamSynchronize(s2));
  DETRED_CUDA_OK(cudaMemcpy(got, out.data(), sizeof got, cudaMemcpyDeviceToHost));
  EXPECT_EQ(bits(got[0]), bits(expect_a));
  EXPECT_EQ(bits(got[1]), bits(expect_b));
  gpu_comparisons() += 2;
  DETRED_CUDA_OK(cudaStreamDestroy(s1));
  DETRED_CUDA_OK(cudaStreamDestroy(s2));
}

// detred::sum with backend::cuda takes device memory too, without copying it.
TEST_F(Api, HostConvenienceAcceptsDeviceMemory) {
  const std::vector<double> x = generate<double>(values::dynamic_range, 123457, 15);
  device_array<double> d(x.size());
  DETRED_CUDA_OK(cudaMemcpy(d.data(), x.data(), x.size() * sizeof(double), cudaMemcpyHostToDevice));
  for (mode m : {mode::tree, mode::compensated}) {
    const double expected = reference::sum(std::span<const double>(x), {.mode = m});
    EXPECT_EQ(bits(detred::sum(std::span<const double>(d.data(), x.size()), {.mode = m, .backend = backend::cuda})),
              bits(expected));
    cuda::workspace ws;
    EXPECT_EQ(bits(cuda::sum(std::span<const double>(x), {.mode = m, .workspace = &ws})), bits(expected));
    gpu_comparisons() += 2;
  }
}

TEST_F(Api, CudaErrorsCarryTheCudaText) {
  // A staging buffer far larger than any GPU: cudaMalloc refuses it (a non-sticky error) before anything is read.
  cuda::workspace ws;
  const std::vector<float> x(8, 1.0f);
  try {
    cuda::sum(std::span<const float>(x.data(), std::uint64_t{1} << 46), {.workspace = &ws});
    ADD_FAILURE() << "expected detred::error";
  } catch (const detred::error& e) {
    EXPECT_NE(std::string(e.what()).find("cudaMalloc"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cudaErrorMemoryAllocation"), std::string::npos) << e.what();
    std::cout << "[ message  ] " << e.what() << "\n";
  }
  // The workspace is still usable.
  EXPECT_EQ(bits(cuda::sum(std::span<const float>(x), {.workspace = &ws})), bits(8.0f));
}

}  // namespace
}  // namespace detred::testing
