// SPDX-License-Identifier: BSD-3-Clause
// Sizes past 2^31 elements: 64-bit indexing all the way through. The GPU result is compared with the CPU's
// detred::sum on all cores (which the CPU suite proves equal to the reference) and, once per type, with
// reference::sum itself. Exact mode is compared with the CPU's exact mode (tests/exact checks that against MPFR).
#include <cstdint>
#include <iostream>
#include <span>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "cuda/gpu_paths.hpp"
#include "detred/cuda.hpp"
#include "detred/detred.hpp"
#include "test_data.hpp"

namespace detred::testing {
namespace {

template <class T>
class LargeGpu : public Gpu {};
using LargeTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(LargeGpu, LargeTypes);

TYPED_TEST(LargeGpu, AroundTwoToThe31Elements) {
  using T = TypeParam;
  constexpr std::uint64_t L = order::leaf_size<T>;
  const std::uint64_t two31 = std::uint64_t{1} << 31;
  const std::uint64_t total = two31 + 3 * L + 2;
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  DETRED_CUDA_OK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (free_bytes < total * sizeof(T) + (std::uint64_t{1} << 30)) {
    GTEST_SKIP() << "needs " << total * sizeof(T) / (1 << 20) << " MiB of device memory, " << free_bytes / (1 << 20)
                 << " MiB free";
  }
  const std::vector<T> x = generate<T>(values::uniform, total, 6000);
  device_array<T> d(total);
  ASSERT_TRUE(d.ok());
  DETRED_CUDA_OK(cudaMemcpy(d.data(), x.data(), total * sizeof(T), cudaMemcpyHostToDevice));

  struct slice {
    std::uint64_t offset;
    std::uint64_t n;
  };
  const slice slices[] = {{0, two31 - 1},     {0, two31},         {0, two31 + 1},
                          {0, two31 + L + 3}, {1, two31 + 2 * L}, {0, total}};
  for (const slice& s : slices) {
    const std::span<const T> host(x.data() + s.offset, s.n);
    for (mode m : {mode::tree, mode::compensated, mode::exact}) {
      const T cpu = detred::sum(host, {.mode = m});
      const T gpu =
          cuda::sum(std::span<const T>(d.data() + s.offset, s.n), {.mode = m, .workspace = &test_workspace()});
      EXPECT_EQ(bits(gpu), bits(cpu)) << "n=" << s.n << " offset=" << s.offset << " mode=" << to_string(m);
      gpu_comparisons() += 1;
      gpu_inputs() += 1;
    }
  }
  const std::span<const T> past(x.data(), two31 + 1);
  const T expected = reference::sum(past, {.mode = mode::tree});
  const T gpu = cuda::sum(std::span<const T>(d.data(), two31 + 1), {.workspace = &test_workspace()});
  EXPECT_EQ(bits(gpu), bits(expected)) << "n = 2^31 + 1 against reference::sum";
  gpu_comparisons() += 1;
  std::cout << "[ large    ] n up to " << total << " (" << total * sizeof(T) / (1 << 20) << " MiB) checked\n";
}

// Integer sums past 2^31 elements, and past 2^32 for 32-bit ones, with known exact results: every byte 0x01 makes
// each int32 16843009 (0x01010101), every byte 0xff makes each int64 -1. The pointer is one element past the
// allocation's start (a misaligned head) and the count leaves a tail.
TEST_F(Gpu, IntegerSumsPastTwoToThe32Elements) {
  const std::uint64_t n32 = (std::uint64_t{1} << 32) + 7;
  const std::uint64_t n64 = (std::uint64_t{1} << 31) + 5;
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  DETRED_CUDA_OK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (free_bytes < (n32 + 1) * 4 + (std::uint64_t{1} << 30)) {
    GTEST_SKIP() << "needs " << (n32 + 1) * 4 / (1 << 20) << " MiB of device memory";
  }
  cuda::workspace ws;
  const options on_ws{.workspace = &ws};
  {
    device_array<std::int32_t> d(n32 + 1);
    ASSERT_TRUE(d.ok());
    DETRED_CUDA_OK(cudaMemset(d.data(), 0x01, (n32 + 1) * 4));
    EXPECT_EQ(cuda::sum(std::span<const std::int32_t>(d.data() + 1, n32), on_ws),
              static_cast<std::int64_t>(n32) * 16843009);
  }
  {
    device_array<std::int64_t> d(n64 + 1);
    ASSERT_TRUE(d.ok());
    DETRED_CUDA_OK(cudaMemset(d.data(), 0xff, (n64 + 1) * 8));
    EXPECT_EQ(cuda::sum(std::span<const std::int64_t>(d.data() + 1, n64), on_ws), -static_cast<std::int64_t>(n64));
    EXPECT_THROW(
        cuda::sum(std::span<const std::uint64_t>(reinterpret_cast<const std::uint64_t*>(d.data()) + 1, n64), on_ws),
        error);  // (2^64 - 1) * n64 does not fit uint64
  }
}

}  // namespace
}  // namespace detred::testing
