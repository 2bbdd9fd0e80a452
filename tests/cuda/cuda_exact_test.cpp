// SPDX-License-Identifier: BSD-3-Clause
// Exact mode on the GPU (lib/cuda/exact.cu): the sum, |x| sum and dot product of device arrays give the CPU's exact
// bits (which tests/exact proves equal to the MPFR oracle's correctly rounded value) for every value class, sizes
// around the kernel's boundaries, every alignment, permutations, through every entry point; and the accumulator
// the kernel leaves behind is zero, so later calls are not disturbed.
#include <algorithm>
#include <cfloat>
#include <cstdint>
#include <limits>
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

enum class op { sum, asum, dot };
const char* name(op o) { return o == op::sum ? "sum" : o == op::asum ? "asum" : "dot"; }

template <class T>
T on_cpu(op o, std::span<const T> x, std::span<const T> y) {
  const options exact{.mode = mode::exact};
  if (o == op::sum) return detred::sum(x, exact);
  if (o == op::asum) return detred::asum(x, exact);
  return detred::dot(x, y, exact);
}

template <class T>
T on_gpu(op o, std::span<const T> x, std::span<const T> y) {
  const options exact{.mode = mode::exact, .workspace = &test_workspace()};
  if (o == op::sum) return cuda::sum(x, exact);
  if (o == op::asum) return cuda::asum(x, exact);
  return cuda::dot(x, y, exact);
}

/// x and y copied to the device at element offsets ox and oy from an allocation's (256-byte aligned) start, the GPU's
/// exact result compared with the CPU's.
template <class T>
void expect_exact(op o, const std::vector<T>& x, const std::vector<T>& y, std::uint64_t ox, std::uint64_t oy,
                  const std::string& what) {
  const std::uint64_t n = x.size();
  device_array<T> dx(n + ox), dy(n + oy);
  ASSERT_TRUE(dx.ok() && dy.ok());
  DETRED_CUDA_OK(cudaMemcpy(dx.data() + ox, x.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  DETRED_CUDA_OK(cudaMemcpy(dy.data() + oy, y.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  const T expected = on_cpu<T>(o, x, y);
  const T got = on_gpu<T>(o, std::span<const T>(dx.data() + ox, n), std::span<const T>(dy.data() + oy, n));
  ASSERT_EQ(bits(got), bits(expected)) << name(o) << " " << what << " n=" << n << " offsets " << ox << "," << oy
                                       << " got " << got << " expected " << expected;
  gpu_comparisons() += 1;
  gpu_inputs() += 1;
}

/// Sizes around the kernel's boundaries: vectors of 2 doubles or 4 floats, 4 loads per thread, blocks of 256 threads
/// taking at least 16 elements each (4096 per block), the 1024-block cap.
std::vector<std::uint64_t> sizes() {
  return {0,   1,   2,   3,    4,    5,    7,    8,    9,    31,   32,    33,
          255, 256, 257, 1023, 1024, 1025, 4095, 4096, 4097, 8193, 65537, (std::uint64_t{1} << 22) + 4096 * 3 + 5};
}

template <class T>
class GpuExact : public Gpu {};
using ExactTypes = ::testing::Types<double, float>;
TYPED_TEST_SUITE(GpuExact, ExactTypes);

TYPED_TEST(GpuExact, EveryClassSizeAndAlignmentEqualsTheCpu) {
  using T = TypeParam;
  std::uint64_t seed = 700;
  for (values v : all_value_classes()) {
    for (std::uint64_t n : sizes()) {
      const std::vector<T> x = generate<T>(v, n, ++seed);
      const std::vector<T> y = generate<T>(v == values::overflowing ? values::uniform : v, n, ++seed);
      for (op o : {op::sum, op::asum, op::dot}) {
        const std::uint64_t offset = seed % 4;  // each size meets every misalignment across the classes
        expect_exact<T>(o, x, y, offset, offset, name(v));
        if (o == op::dot) expect_exact<T>(o, x, y, offset, offset + 1, std::string(name(v)) + " (x, y offsets differ)");
      }
    }
  }
}

TEST_F(Gpu, ExactSumHasNoIntermediateOverflow) {
  const double big = 0.75 * DBL_MAX;
  for (std::uint64_t n : {std::uint64_t{5}, std::uint64_t{70001}}) {
    std::vector<double> x(n);
    for (std::uint64_t i = 0; i < n; ++i) x[i] = i % 2 == 0 ? big : -big;
    expect_exact<double>(op::sum, x, x, 0, 0, "cancelling maxima");
    x.back() = 1e-300;
    expect_exact<double>(op::sum, x, x, 1, 1, "cancelling maxima and a tiny term");
  }
  const std::vector<double> five = {big, -big, big, -big, big};
  device_array<double> d(5);
  ASSERT_TRUE(d.ok());
  DETRED_CUDA_OK(cudaMemcpy(d.data(), five.data(), sizeof(double) * 5, cudaMemcpyHostToDevice));
  EXPECT_EQ(
      bits(cuda::sum(std::span<const double>(d.data(), 5), {.mode = mode::exact, .workspace = &test_workspace()})),
      bits(big));
}

TEST_F(Gpu, ExactDotOfProductsBeyondDoubleAndBelowIt) {
  const double tiny = std::numeric_limits<double>::denorm_min();
  rng r(3);
  std::vector<double> x(100003), y(100003);
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = r.unit<double>() - 0.5;
    y[i] = r.unit<double>() - 0.5;
  }
  // Overflowing products that cancel, products whose fma error term would be subnormal, products of subnormals,
  // and every class of zero product, spread over blocks and lanes.
  for (std::size_t i = 5; i < x.size(); i += 9973) {
    x[i] = 0x1.0000000000001p-520;
    y[i] = 0x1.0000000000001p-520;
    x[i + 1] = 1e300;
    y[i + 1] = 1e300;
    x[i + 2] = 1e300;
    y[i + 2] = -1e300;
    x[i + 3] = tiny;
    y[i + 3] = 0.75;
    x[i + 4] = -0.0;
    y[i + 4] = 3.0;
  }
  expect_exact<double>(op::dot, x, y, 0, 0, "difficult products in blocks");
  expect_exact<double>(op::dot, x, y, 1, 0, "difficult products, scalar loads");
  const std::vector<double> zeros(5000, 0.0), negative_zeros(5000, -0.0);
  expect_exact<double>(op::dot, zeros, negative_zeros, 0, 0, "only -0.0 products");
  expect_exact<double>(op::dot, zeros, zeros, 0, 0, "+0.0 products");
}

TYPED_TEST(GpuExact, PermutationsGiveTheSameBits) {
  using T = TypeParam;
  for (values v : {values::uniform, values::dynamic_range, values::ill_conditioned, values::subnormal}) {
    std::vector<T> x = generate<T>(v, 300001, 11);
    const std::vector<T> y = x;
    const T expected = on_cpu<T>(op::sum, x, y);
    device_array<T> d(x.size());
    ASSERT_TRUE(d.ok());
    rng r(5);
    for (int round = 0; round < 3; ++round) {
      if (round == 0) std::reverse(x.begin(), x.end());
      if (round == 1) std::sort(x.begin(), x.end());
      if (round == 2) {
        for (std::size_t i = x.size() - 1; i > 0; --i) std::swap(x[i], x[r.below(i + 1)]);
      }
      DETRED_CUDA_OK(cudaMemcpy(d.data(), x.data(), x.size() * sizeof(T), cudaMemcpyHostToDevice));
      const T got =
          cuda::sum(std::span<const T>(d.data(), x.size()), {.mode = mode::exact, .workspace = &test_workspace()});
      EXPECT_EQ(bits(got), bits(expected)) << name(v) << " permutation " << round;
      gpu_comparisons() += 1;
    }
  }
}

/// The asynchronous form on a stream of its own, back to back with the synchronous forms on one workspace, and the
/// host API's backend::cuda: every call sees a zeroed accumulator and returns the same bits.
TYPED_TEST(GpuExact, EveryEntryPointAndRepeatedCalls) {
  using T = TypeParam;
  const std::vector<T> x = generate<T>(values::ill_conditioned, 123457, 42);
  const T expected = on_cpu<T>(op::sum, x, x);
  device_array<T> d(x.size()), out(4);
  ASSERT_TRUE(d.ok() && out.ok());
  DETRED_CUDA_OK(cudaMemcpy(d.data(), x.data(), x.size() * sizeof(T), cudaMemcpyHostToDevice));
  cudaStream_t stream = nullptr;
  DETRED_CUDA_OK(cudaStreamCreate(&stream));
  cuda::workspace ws;
  const std::span<const T> dx(d.data(), x.size());
  const options exact{.mode = mode::exact, .stream = stream, .workspace = &ws};
  for (int k = 0; k < 4; ++k) cuda::sum_async(dx, out.data() + k, exact);
  T results[4];
  DETRED_CUDA_OK(cudaMemcpyAsync(results, out.data(), sizeof results, cudaMemcpyDeviceToHost, stream));
  DETRED_CUDA_OK(cudaStreamSynchronize(stream));
  for (const T r : results) EXPECT_EQ(bits(r), bits(expected)) << "sum_async";
  EXPECT_EQ(bits(cuda::sum(dx, exact)), bits(expected)) << "sum";
  EXPECT_EQ(bits(cuda::sum(std::span<const T>(x), exact)), bits(expected)) << "sum (host memory)";
  EXPECT_EQ(bits(detred::sum(std::span<const T>(x), {.mode = mode::exact, .backend = backend::cuda})), bits(expected))
      << "detred::sum with backend::cuda";
  EXPECT_EQ(
      bits(detred::dot(std::span<const T>(x), std::span<const T>(x), {.mode = mode::exact, .backend = backend::cuda})),
      bits(on_cpu<T>(op::dot, x, x)))
      << "detred::dot with backend::cuda";
  EXPECT_EQ(bits(detred::asum(std::span<const T>(x), {.mode = mode::exact, .backend = backend::cuda})),
            bits(on_cpu<T>(op::asum, x, x)))
      << "detred::asum with backend::cuda";
  // After an exact call, the tree-mode sum on the same workspace is unaffected, and an empty exact sum is -0.0.
  EXPECT_EQ(bits(cuda::sum(dx, {.mode = mode::tree, .stream = stream, .workspace = &ws})),
            bits(detred::sum(std::span<const T>(x))));
  EXPECT_EQ(bits(cuda::sum(std::span<const T>(), exact)), bits(T(-0.0)));
  DETRED_CUDA_OK(cudaStreamDestroy(stream));
  gpu_comparisons() += 9;
}

TEST_F(Gpu, ExactModeRefusals) {
  const options exact{.mode = mode::exact, .workspace = &test_workspace()};
  device_array<float16> h(4);
  ASSERT_TRUE(h.ok());
  try {
    cuda::sum(std::span<const float16>(h.data(), 4), exact);
    ADD_FAILURE() << "16-bit exact sum accepted";
  } catch (const error& e) {
    EXPECT_NE(std::string(e.what()).find("exact"), std::string::npos) << e.what();
  }
  device_array<double> d(4);
  ASSERT_TRUE(d.ok());
  EXPECT_THROW(cuda::nrm2(std::span<const double>(d.data(), 4), exact), error);
  EXPECT_THROW(cuda::dot(std::span<const double>(d.data(), 4), std::span<const double>(d.data(), 3), exact), error);
  EXPECT_THROW(cuda::sum_async(std::span<const double>(d.data(), 4), nullptr, exact), error);
}

}  // namespace
}  // namespace detred::testing
