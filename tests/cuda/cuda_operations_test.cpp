// SPDX-License-Identifier: BSD-3-Clause
// Every operator on the GPU: each launch plan, aligned and misaligned operands, every class of inputs, against the
// reference engine's bits (the CPU's bits, which the CPU suites tie to the same reference); and the public CUDA
// entry points and the host API with backend::cuda against the host API.
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "core/operators.hpp"
#include "cuda/enqueue.hpp"
#include "cuda/launch_plan.hpp"
#include "gpu_paths.hpp"
#include "op_paths.hpp"

namespace detred::testing {
namespace {

/// Input variants per element type: the value classes for floats, random patterns (finite, any) for 16-bit floats,
/// full range / narrow range / extremes for integers.
template <class Input>
int variant_count() {
  if constexpr (std::is_floating_point_v<Input>) {
    return static_cast<int>(all_value_classes().size());
  } else if constexpr (std::is_integral_v<Input>) {
    return 3;
  } else {
    return 2;
  }
}

template <class Input>
std::vector<Input> make_input(int variant, std::uint64_t n, std::uint64_t seed) {
  if constexpr (std::is_floating_point_v<Input>) {
    return generate<Input>(all_value_classes()[static_cast<std::size_t>(variant)], n, seed);
  } else if constexpr (std::is_integral_v<Input>) {
    return random_integers<Input>(n, seed, variant);
  } else {
    return random_halves<Input>(n, seed, variant == 0);
  }
}

/// Op over host operands x[0..n) against the GPU over a copy of them `offset` elements past an aligned allocation,
/// with the default plan and every forced plan.
template <class Op>
void expect_gpu_matches(const std::vector<std::vector<typename Op::input>>& host, std::uint64_t n, std::uint64_t offset,
                        const std::string& what) {
  using I = typename Op::input;
  using R = typename Op::result;
  order::operands<Op> x{};
  std::vector<std::unique_ptr<device_array<I>>> buffers;
  order::operands<Op> d{};
  for (unsigned a = 0; a < Op::arity; ++a) {
    x.data[a] = host[a].data();
    buffers.push_back(std::make_unique<device_array<I>>(n + offset));
    ASSERT_TRUE(buffers.back()->ok());
    DETRED_CUDA_OK(cudaMemcpy(buffers.back()->data() + offset, host[a].data(), n * sizeof(I), cudaMemcpyHostToDevice));
    d.data[a] = buffers.back()->data() + offset;
  }
  const R expected = reference::reduce<Op>(x, n);
  const std::uint64_t leaves = order::leaf_count<typename Op::value>(n);
  std::vector<cuda::detail::launch_plan> plans = {cuda::detail::default_plan(leaves)};
  for (const auto& [r, b] : forced_plans()) plans.push_back(cuda::detail::forced_plan(leaves, r, b));
  device_array<R> out(1);
  for (const cuda::detail::launch_plan& plan : plans) {
    device_array<unsigned char> partials(cuda::detail::partial_bytes<Op>(plan) + 64);
    ASSERT_TRUE(partials.ok() && out.ok());
    cuda::detail::enqueue_reduction<Op>(d, n, plan, partials.data(), out.data(), nullptr);
    R got{};
    DETRED_CUDA_OK(cudaMemcpy(&got, out.data(), sizeof(R), cudaMemcpyDeviceToHost));
    EXPECT_TRUE(same_bits(got, expected))
        << what << " n=" << n << " offset=" << offset << " leaves/warp=" << plan.leaves_per_warp
        << " warps/block=" << plan.warps_per_block << " blocks=" << plan.blocks;
    gpu_comparisons() += 1;
  }
  gpu_inputs() += 1;
}

template <class Op>
void expect_operator_on_gpu(const std::string& op_name) {
  using I = typename Op::input;
  for (int variant = 0; variant < variant_count<I>(); ++variant) {
    for (std::uint64_t n : op_sizes<typename Op::value>(variant == 0)) {
      std::vector<std::vector<I>> host;
      for (unsigned a = 0; a < Op::arity; ++a) host.push_back(make_input<I>(variant, n, 1000 * a + n + 7));
      // Integer sums read 16-byte vectors after a head of up to three 32-bit elements: every misalignment.
      const std::uint64_t offsets = std::is_integral_v<I> ? 4 : 2;
      for (std::uint64_t offset = 0; offset < offsets; ++offset) {
        expect_gpu_matches<Op>(host, n, offset, op_name + " variant " + std::to_string(variant));
        if (::testing::Test::HasFailure()) return;  // one input's failure is enough to read
      }
    }
  }
}

template <class List>
struct every_operator;
template <class... Ops>
struct every_operator<op_list<Ops...>> {
  static void run() {
    int index = 0;
    ((expect_operator_on_gpu<Ops>("operator #" + std::to_string(index++))), ...);
  }
};

TEST_F(Gpu, EveryOperatorMatchesTheReferenceOnEveryPlan) { every_operator<all_operators>::run(); }

template <class T>
void expect_subnormal_products_on_gpu() {
  // Products that round into the subnormals, and their fma error terms: the GPU's fma (__fma_rn, no flush to zero)
  // must give the CPU's bits, in both modes.
  for (std::uint64_t n : op_sizes<T>(false)) {
    std::vector<T> x = generate<T>(values::uniform, n, 70 + n);
    std::vector<T> y = generate<T>(values::uniform, n, 71 + n);
    const T tiny = std::numeric_limits<T>::min();
    for (std::uint64_t i = 0; i < n; ++i) {
      x[i] *= T(0.75) * tiny * T(1 << 10);
      y[i] *= T(1) / T(1 << 12);
    }
    const std::string what = std::string(sizeof(T) == 8 ? "double" : "float") + " subnormal products";
    expect_gpu_matches<order::dot_op<T, order::plain_sums>>({x, y}, n, 0, what + " tree");
    expect_gpu_matches<order::dot_op<T, order::compensated_sums>>({x, y}, n, 0, what + " compensated");
  }
}

TEST_F(Gpu, DotOfProductsNearTheSubnormalRange) {
  expect_subnormal_products_on_gpu<double>();
  expect_subnormal_products_on_gpu<float>();
}

/// The public integer sum of n random elements (every kind of random_integers) at every misalignment, on the
/// device against the CPU. Sizes around one block of the integer kernels, several, and the most blocks.
template <class I>
void expect_integer_sums_on_gpu() {
  const options on_ws{.workspace = &test_workspace()};
  for (std::uint64_t n : {0, 1, 3, 4, 5, 4099, 16384, 16387, 262147, 1 << 22}) {
    for (int kind = 0; kind < 3; ++kind) {
      const std::vector<I> x = random_integers<I>(n, n + 31 * kind, kind);
      device_array<I> d(n + 3);
      ASSERT_TRUE(d.ok());
      for (std::uint64_t offset = 0; offset < 4; ++offset) {
        if (n > 0) DETRED_CUDA_OK(cudaMemcpy(d.data() + offset, x.data(), n * sizeof(I), cudaMemcpyHostToDevice));
        const std::span<const I> gx(d.data() + offset, n);
        const std::span<const I> hx(x);
        bool host_fits = true;
        decltype(sum(hx)) expected{};
        try {
          expected = sum(hx);
        } catch (const error&) {
          host_fits = false;
        }
        if (host_fits) {
          EXPECT_EQ(cuda::sum(gx, on_ws), expected) << "n=" << n << " kind=" << kind << " offset=" << offset;
        } else {
          EXPECT_THROW(cuda::sum(gx, on_ws), error) << "n=" << n << " kind=" << kind << " offset=" << offset;
        }
      }
    }
  }
}

TEST_F(Gpu, IntegerSumsEqualTheCpuAtEveryMisalignment) {
  expect_integer_sums_on_gpu<std::int32_t>();
  expect_integer_sums_on_gpu<std::uint32_t>();
  expect_integer_sums_on_gpu<std::int64_t>();
  expect_integer_sums_on_gpu<std::uint64_t>();
}

TEST_F(Gpu, PublicEntryPointsEqualTheHostApi) {
  const std::vector<double> x = generate<double>(values::dynamic_range, 300007, 3);
  const std::vector<double> y = generate<double>(values::uniform, 300007, 4);
  device_array<double> dx(x.size());
  device_array<double> dy(y.size());
  DETRED_CUDA_OK(cudaMemcpy(dx.data(), x.data(), x.size() * sizeof(double), cudaMemcpyHostToDevice));
  DETRED_CUDA_OK(cudaMemcpy(dy.data(), y.data(), y.size() * sizeof(double), cudaMemcpyHostToDevice));
  const std::span<const double> hx(x), hy(y), gx(dx.data(), x.size()), gy(dy.data(), y.size());
  const options on_ws{.workspace = &test_workspace()};
  for (mode m : {mode::tree, mode::compensated}) {
    const options gpu{.mode = m, .workspace = &test_workspace()};
    EXPECT_EQ(bits(cuda::dot(gx, gy, gpu)), bits(dot(hx, hy, {.mode = m})));
    EXPECT_EQ(bits(cuda::asum(gx, gpu)), bits(asum(hx, {.mode = m})));
    EXPECT_EQ(bits(cuda::nrm2(gx, gpu)), bits(nrm2(hx, {.mode = m})));
    EXPECT_EQ(bits(dot(hx, hy, {.mode = m, .backend = backend::cuda})), bits(dot(hx, hy, {.mode = m})));
    EXPECT_EQ(bits(nrm2(hx, {.mode = m, .backend = backend::cuda})), bits(nrm2(hx, {.mode = m})));
  }
  EXPECT_EQ(bits(cuda::min(gx, on_ws)), bits(detred::min(hx)));
  EXPECT_EQ(bits(cuda::max(gx, on_ws)), bits(detred::max(hx)));
  EXPECT_EQ(cuda::argmin(gx, on_ws), argmin(hx));
  EXPECT_EQ(cuda::argmax(gx, on_ws), argmax(hx));
  EXPECT_TRUE(same_bits(cuda::stats(gx, on_ws), stats(hx)));
  EXPECT_TRUE(same_bits(stats(hx, {.backend = backend::cuda}), stats(hx)));
  EXPECT_EQ(argmin(hx, {.backend = backend::cuda}), argmin(hx));
  EXPECT_THROW(cuda::dot(gx, gy.first(5), on_ws), error);
  EXPECT_THROW(cuda::min(gx.first(0), on_ws), error);

  device_array<statistics<double>> s(1);
  cuda::stats_async(gx, s.data(), on_ws);
  statistics<double> async{};
  DETRED_CUDA_OK(cudaMemcpy(&async, s.data(), sizeof async, cudaMemcpyDeviceToHost));
  EXPECT_TRUE(same_bits(async, stats(hx)));

  const std::vector<std::int64_t> big = {std::numeric_limits<std::int64_t>::max(), 1};
  EXPECT_THROW(sum(std::span<const std::int64_t>(big), {.backend = backend::cuda}), error);
  const std::vector<std::int32_t> ints = random_integers<std::int32_t>(100003, 5, 0);
  EXPECT_EQ(sum(std::span<const std::int32_t>(ints), {.backend = backend::cuda}),
            sum(std::span<const std::int32_t>(ints)));
  const std::vector<float16> halves = random_halves<float16>(100003, 6, true);
  EXPECT_EQ(bits(sum(std::span<const float16>(halves), {.backend = backend::cuda})),
            bits(sum(std::span<const float16>(halves))));
}

}  // namespace
}  // namespace detred::testing
