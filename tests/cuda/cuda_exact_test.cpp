// SPDX-License-Identifier: BSD-3-Clause
// Exact mode on the GPU (lib/cuda/exact.cu): the sum, |x| sum, dot product, sum of squares, norm and mean of device
// arrays (of 16-bit floats too, widened on the device) give the CPU's exact
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
#include "op_paths.hpp"
#include "test_data.hpp"

namespace detred::testing {
namespace {

/// The exact operations of one array (or two, dot): the values', magnitudes' and products' exact sums, and the
/// squares' finished three ways (rounded, its square root, its quotient by n).
enum class op { sum, asum, dot, sumsq, nrm2, mean };
constexpr op every_op[] = {op::sum, op::asum, op::dot, op::sumsq, op::nrm2, op::mean};
const char* name(op o) {
  constexpr const char* names[] = {"sum", "asum", "dot", "sumsq", "nrm2", "mean"};
  return names[static_cast<int>(o)];
}

/// Calls f.template operator()<O>() with the catalogue's operation O of o.
template <class F>
auto with_operation(op o, F&& f) {
  switch (o) {
    case op::sum:
      return f.template operator()<operation::sum>();
    case op::asum:
      return f.template operator()<operation::asum>();
    case op::dot:
      return f.template operator()<operation::dot>();
    case op::sumsq:
      return f.template operator()<operation::sumsq>();
    case op::nrm2:
      return f.template operator()<operation::nrm2>();
    case op::mean:
      break;
  }
  return f.template operator()<operation::mean>();
}

/// o of x (and y) in exact mode: on the host API (host arrays; backend::cuda stages them on the GPU) ...
template <class T>
T on_cpu(op o, std::span<const T> x, std::span<const T> y, backend b = backend::cpu) {
  const options exact{.mode = mode::exact, .backend = b};
  return with_operation(o, [&]<operation O>() -> T {
    if constexpr (O == operation::dot)
      return detred::reduce<O, T>(x, y, exact);
    else
      return detred::reduce<O, T>(x, exact);
  });
}

/// ... or on detred::cuda's (device arrays).
template <class T>
T on_gpu(op o, std::span<const T> x, std::span<const T> y) {
  const options exact{.mode = mode::exact, .workspace = &test_workspace()};
  return with_operation(o, [&]<operation O>() -> T {
    if constexpr (O == operation::dot)
      return cuda::reduce<O, T>(x, y, exact);
    else
      return cuda::reduce<O, T>(x, exact);
  });
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
      for (op o : every_op) {
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
  for (const op o : every_op) {
    EXPECT_EQ(bits(on_cpu<T>(o, x, x, backend::cuda)), bits(on_cpu<T>(o, x, x)))
        << "detred::" << name(o) << " with backend::cuda";
  }
  // After an exact call, the tree-mode sum on the same workspace is unaffected, and an empty exact sum is -0.0.
  EXPECT_EQ(bits(cuda::sum(dx, {.mode = mode::tree, .stream = stream, .workspace = &ws})),
            bits(detred::sum(std::span<const T>(x))));
  EXPECT_EQ(bits(cuda::sum(std::span<const T>(), exact)), bits(T(-0.0)));
  DETRED_CUDA_OK(cudaStreamDestroy(stream));
  gpu_comparisons() += 9;
}

/// 16-bit floats in exact mode: widened exactly to float on the device, then the float kernel. Random bit patterns
/// (every class: zeros, subnormals, and with Inf and NaN or without), sizes around the kernel's boundaries and odd
/// offsets give the CPU's exact bits for the sum, dot, sum of squares and mean, on device arrays and through
/// backend::cuda.
template <class H>
class GpuExactHalves : public Gpu {};
using HalfTypes = ::testing::Types<float16, bfloat16>;
TYPED_TEST_SUITE(GpuExactHalves, HalfTypes);

TYPED_TEST(GpuExactHalves, EveryPatternSizeAndOffsetEqualsTheCpu) {
  using H = TypeParam;
  const options on_cpu{.mode = mode::exact};
  const options staged{.mode = mode::exact, .backend = backend::cuda};
  const options on_device{.mode = mode::exact, .workspace = &test_workspace()};
  std::uint64_t seed = 900;
  for (const bool finite : {true, false}) {
    for (const std::uint64_t n : sizes()) {
      const std::vector<H> x = random_halves<H>(n, ++seed, finite);
      const std::vector<H> y = random_halves<H>(n, ++seed, finite);
      const std::uint64_t offset = seed % 3;
      device_array<H> dx(n + offset), dy(n + offset + 1);
      ASSERT_TRUE(dx.ok() && dy.ok());
      DETRED_CUDA_OK(cudaMemcpy(dx.data() + offset, x.data(), n * sizeof(H), cudaMemcpyHostToDevice));
      DETRED_CUDA_OK(cudaMemcpy(dy.data() + offset + 1, y.data(), n * sizeof(H), cudaMemcpyHostToDevice));
      const std::span<const H> hx(x), hy(y);
      const std::span<const H> gx(dx.data() + offset, n), gy(dy.data() + offset + 1, n);
      const auto expect_same = [&](float cpu, float gpu, float host_staged, const char* what) {
        EXPECT_EQ(bits(gpu), bits(cpu)) << what << " n=" << n << (finite ? "" : " (with Inf, NaN)");
        EXPECT_EQ(bits(host_staged), bits(cpu)) << what << " (backend::cuda) n=" << n;
        gpu_comparisons() += 2;
      };
      expect_same(detred::reduce<operation::dot, H>(hx, hy, on_cpu), cuda::reduce<operation::dot, H>(gx, gy, on_device),
                  detred::reduce<operation::dot, H>(hx, hy, staged), "dot");
      expect_same(detred::reduce<operation::sum, H>(hx, on_cpu), cuda::reduce<operation::sum, H>(gx, on_device),
                  detred::reduce<operation::sum, H>(hx, staged), "sum");
      expect_same(detred::reduce<operation::sumsq, H>(hx, on_cpu), cuda::reduce<operation::sumsq, H>(gx, on_device),
                  detred::reduce<operation::sumsq, H>(hx, staged), "sumsq");
      expect_same(detred::reduce<operation::mean, H>(hx, on_cpu), cuda::reduce<operation::mean, H>(gx, on_device),
                  detred::reduce<operation::mean, H>(hx, staged), "mean");
      gpu_inputs() += 1;
    }
  }
}

TEST_F(Gpu, ExactModeRefusals) {
  const options exact{.mode = mode::exact, .workspace = &test_workspace()};
  // stats has tree mode only, on every backend.
  device_array<double> one(4);
  ASSERT_TRUE(one.ok());
  try {
    (void)cuda::stats(std::span<const double>(one.data(), 4), exact);
    ADD_FAILURE() << "exact stats accepted";
  } catch (const error& e) {
    EXPECT_NE(std::string(e.what()).find("tree mode only"), std::string::npos) << e.what();
  }
  device_array<double> d(4);
  ASSERT_TRUE(d.ok());
  EXPECT_THROW(cuda::dot(std::span<const double>(d.data(), 4), std::span<const double>(d.data(), 3), exact), error);
  EXPECT_THROW(cuda::sum_async(std::span<const double>(d.data(), 4), nullptr, exact), error);
}

}  // namespace
}  // namespace detred::testing
