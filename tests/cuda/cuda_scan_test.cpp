// SPDX-License-Identifier: BSD-3-Clause
// The GPU scans (detred/cuda_scan.hpp): every output of every call, bit for bit, against the CPU's (detred::cumsum,
// itself tested against the scalar reference in tests/scan_test.cpp): sizes around every boundary of the scan order
// and its one-pass leaf tree, every element type, both modes, inclusive and exclusive, sync and async on a stream,
// in place, misaligned pointers, special values; segments (empty, many short, few long, at the short/long border)
// and matrix axes of both layouts; integer overflow refused; exact mode refused; host arrays through the host calls
// with backend::cuda (staged on the GPU).
#include <cstdint>
#include <cstring>
#include <limits>
#include <set>
#include <span>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "cuda/scan_enqueue.hpp"
#include "detred/cuda.hpp"
#include "detred/detred.hpp"
#include "detred/order/scan.hpp"
#include "gpu_paths.hpp"

namespace detred::testing {
namespace {

using FloatTypes = ::testing::Types<float, double>;
template <class T>
class GpuScan : public TypedGpu<T> {};
TYPED_TEST_SUITE(GpuScan, FloatTypes);

class GpuScanRules : public Gpu {};

/// Sizes around every boundary of the scan order (a lane's 32 positions, W lanes, a leaf) and of the GPU's leaf
/// tree (the perfect subtrees the leaves fold and publish: 2^k leaves +- 1, the fold's spans of 128 and 256 leaves
/// among them), one of 1025 leaves, and the first sizes that look ahead (2D leaves, D = scan_look_ahead).
template <class T>
std::vector<std::uint64_t> gpu_scan_sizes() {
  constexpr std::uint64_t W = order::lanes<T>;
  constexpr std::uint64_t L = order::leaf_size<T>;
  constexpr std::uint64_t R = order::scan_lane_length<T>;
  std::set<std::uint64_t> s = {0,     1,     2,     3, R - 1, R,         R + 1, 2 * R + 5, W - 1,        W,
                               W + 1, L - R, L - 1, L, L + 1, 2 * L - 1, 2 * L, 2 * L + 1, 3 * L + W + 1};
  for (std::uint64_t leaves : {3, 4, 7, 8, 9, 16, 33, 64, 127, 128, 129, 255, 256, 257, 512, 513, 1025}) {
    s.insert({leaves * L - 1, leaves * L, leaves * L + 1});
  }
  constexpr std::uint64_t D = cuda::detail::scan_look_ahead;  // arrays of 2D leaves and more look ahead
  s.insert({(2 * D - 1) * L, (2 * D - 1) * L + 1, 2 * D * L + 1, 2048 * L + 1});
  return {s.begin(), s.end()};
}

template <class Y>
void expect_same_bits(const std::vector<Y>& got, const std::vector<Y>& expected, const std::string& what) {
  ASSERT_EQ(got.size(), expected.size()) << what;
  for (std::uint64_t i = 0; i < got.size(); ++i) {
    if (bits(got[i]) != bits(expected[i])) {
      ADD_FAILURE() << what << ": output " << i << " of " << got.size() << " is " << got[i] << ", expected "
                    << expected[i];
      return;  // one message per comparison
    }
  }
  gpu_comparisons() += 1;
}

/// The CPU's outputs, the standard the GPU must meet.
template <class In, class Y>
std::vector<Y> cpu_scan(const std::vector<In>& x, mode m, bool exclusive) {
  std::vector<Y> y(x.size());
  if (exclusive) {
    exclusive_cumsum(std::span<const In>(x), std::span<Y>(y), {.mode = m});
  } else {
    cumsum(std::span<const In>(x), std::span<Y>(y), {.mode = m});
  }
  return y;
}

/// The options of the GPU calls on `stream`: the workspace the tests share.
options on_stream(mode m, cudaStream_t stream) { return {.mode = m, .stream = stream, .workspace = &test_workspace()}; }

/// The GPU call: synchronous, or enqueued on `stream`.
template <class In, class Y>
void gpu_scan(std::span<const In> x, std::span<Y> y, mode m, bool exclusive, bool async, cudaStream_t stream) {
  const options opt = on_stream(m, stream);
  if (async) {
    if (exclusive) {
      cuda::exclusive_cumsum_async(x, y, opt);
    } else {
      cuda::cumsum_async(x, y, opt);
    }
  } else {
    if (exclusive) {
      cuda::exclusive_cumsum(x, y, opt);
    } else {
      cuda::cumsum(x, y, opt);
    }
  }
}

/// x uploaded at `offset` elements past an aligned allocation, scanned by the synchronous call, by the async call
/// on a stream of its own, and in place (when In is Y); every output against the CPU's.
template <class In, class Y>
void expect_gpu_scans(const std::vector<In>& x, mode m, const std::string& what, std::uint64_t offset) {
  const std::uint64_t n = x.size();
  device_array<In> in(n + offset);
  device_array<Y> out(n + offset);
  ASSERT_TRUE(in.ok() && out.ok());
  const std::span<const In> dx(in.data() + offset, n);
  const std::span<Y> dy(out.data() + offset, n);
  for (bool exclusive : {false, true}) {
    const std::vector<Y> expected = cpu_scan<In, Y>(x, m, exclusive);
    const std::string label = what + " n=" + std::to_string(n) + " offset=" + std::to_string(offset) +
                              " mode=" + to_string(m) + (exclusive ? " exclusive" : " inclusive");
    upload(x, in.data() + offset);
    gpu_scan<In, Y>(dx, dy, m, exclusive, false, nullptr);
    expect_same_bits(download(dy.data(), n), expected, label + " sync");

    cudaStream_t stream = nullptr;
    ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
    ASSERT_EQ(cudaMemsetAsync(out.data(), 0x5a, (n + offset) * sizeof(Y), stream), cudaSuccess);
    gpu_scan<In, Y>(dx, dy, m, exclusive, true, stream);
    std::vector<Y> async(n);
    if (n > 0) {
      ASSERT_EQ(cudaMemcpyAsync(async.data(), dy.data(), n * sizeof(Y), cudaMemcpyDeviceToHost, stream), cudaSuccess);
    }
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    EXPECT_NO_THROW(cuda::synchronize(on_stream(m, stream))) << label << ": the async call recorded an error";
    ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);
    expect_same_bits(async, expected, label + " async on a stream");

    if constexpr (std::is_same_v<In, Y>) {
      const std::span<Y> inplace(in.data() + offset, n);
      gpu_scan<In, Y>(std::span<const In>(inplace), inplace, m, exclusive, false, nullptr);
      expect_same_bits(download(inplace.data(), n), expected, label + " in place");
    }
  }
  gpu_inputs() += 1;
}

TYPED_TEST(GpuScan, EveryBoundaryEveryModeMatchesTheCpu) {
  using T = TypeParam;
  for (std::uint64_t n : gpu_scan_sizes<T>()) {
    for (values v : all_value_classes()) {
      // Beyond two leaves, the classes that exercise arithmetic; the special values are covered at the small ones.
      if (n > 2 * order::leaf_size<T> + 1 && v != values::dynamic_range && v != values::with_nan) continue;
      const std::vector<T> x = generate<T>(v, n, 3600 + n);
      for (mode m : {mode::tree, mode::compensated}) expect_gpu_scans<T, T>(x, m, name(v), 0);
    }
  }
}

TYPED_TEST(GpuScan, MisalignedPointersMatchTheCpu) {
  using T = TypeParam;
  constexpr std::uint64_t L = order::leaf_size<T>;
  for (std::uint64_t offset : {1, 3, 5}) {
    for (std::uint64_t n : {std::uint64_t{100}, L + 7, 9 * L + 1}) {
      const std::vector<T> x = generate<T>(values::dynamic_range, n, 77 + offset);
      for (mode m : {mode::tree, mode::compensated}) expect_gpu_scans<T, T>(x, m, "misaligned", offset);
    }
  }
}

TYPED_TEST(GpuScan, LargeArrayMatchesTheCpu) {
  using T = TypeParam;
  const std::uint64_t n = (std::uint64_t{1} << 23) + 12345;
  const std::vector<T> x = generate<T>(values::dynamic_range, n, 99);
  for (mode m : {mode::tree, mode::compensated}) expect_gpu_scans<T, T>(x, m, "large", 0);
}

/// Two scans at once, each on its own stream with its own workspace (the one-pass kernels of both are resident
/// together, each waiting only for its own earlier leaves): both give the CPU's bits.
TYPED_TEST(GpuScan, ConcurrentStreamsEachMatchTheCpu) {
  using T = TypeParam;
  const std::uint64_t n = (std::uint64_t{1} << 21) + 77;
  const std::vector<T> x0 = generate<T>(values::dynamic_range, n, 501);
  const std::vector<T> x1 = generate<T>(values::ill_conditioned, n, 502);
  device_array<T> d0(n), d1(n), y0(n), y1(n);
  upload(x0, d0.data());
  upload(x1, d1.data());
  cuda::workspace ws0;
  cuda::workspace ws1;
  cudaStream_t s0 = nullptr;
  cudaStream_t s1 = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s0, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking), cudaSuccess);
  for (int round = 0; round < 3; ++round) {
    cuda::cumsum_async(std::span<const T>(d0.data(), n), std::span<T>(y0.data(), n),
                       {.mode = mode::tree, .stream = s0, .workspace = &ws0});
    cuda::exclusive_cumsum_async(std::span<const T>(d1.data(), n), std::span<T>(y1.data(), n),
                                 {.mode = mode::compensated, .stream = s1, .workspace = &ws1});
  }
  ASSERT_EQ(cudaStreamSynchronize(s0), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s1), cudaSuccess);
  ASSERT_EQ(cudaStreamDestroy(s0), cudaSuccess);
  ASSERT_EQ(cudaStreamDestroy(s1), cudaSuccess);
  expect_same_bits(download(y0.data(), n), cpu_scan<T, T>(x0, mode::tree, false), "stream 0");
  expect_same_bits(download(y1.data(), n), cpu_scan<T, T>(x1, mode::compensated, true), "stream 1");
}

template <class H>
void sixteen_bit_case() {
  // Random bit patterns: every class of value, NaN and Inf included.
  for (std::uint64_t n : {std::uint64_t{1}, std::uint64_t{1000}, 3 * order::leaf_size<float> + 41}) {
    std::vector<H> h(n);
    rng random(16 + n);
    for (std::uint64_t i = 0; i < n; ++i) {
      const auto b = static_cast<std::uint16_t>(random.next() >> 48);
      h[i] = H{static_cast<std::uint16_t>(i % 16 == 0 ? b : (b & 0xbfffu))};
    }
    for (mode m : {mode::tree, mode::compensated}) {
      expect_gpu_scans<H, float>(h, m, "16-bit", 0);
      expect_gpu_scans<H, float>(h, m, "16-bit", 1);
    }
  }
}
TEST_F(GpuScanRules, Float16AndBfloat16MatchTheCpu) {
  sixteen_bit_case<float16>();
  sixteen_bit_case<bfloat16>();
}

template <class I, class R>
void integer_case(std::uint64_t n, std::uint64_t seed) {
  std::vector<I> x(n);
  rng random(seed);
  // 32-bit values of every size (their int64 and uint64 sums cannot overflow); 64-bit ones of 44 bits, signed ones of
  // either sign, so that 70001 of them stay inside the result type.
  for (auto& v : x) {
    const std::uint64_t r = random.next();
    if constexpr (sizeof(I) == 8) {
      v = static_cast<I>(std::is_signed_v<I> ? static_cast<std::int64_t>(r >> 20) - (std::int64_t{1} << 43)
                                             : static_cast<std::int64_t>(r >> 20));
    } else {
      v = static_cast<I>(r);
    }
  }
  expect_gpu_scans<I, R>(x, mode::tree, "integer", 0);
}
TEST_F(GpuScanRules, IntegersAreExactAndMatchTheCpu) {
  for (std::uint64_t n : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{33}, std::uint64_t{2047},
                          std::uint64_t{2049}, std::uint64_t{70001}}) {
    integer_case<std::int32_t, std::int64_t>(n, 1 + n);
    integer_case<std::uint32_t, std::uint64_t>(n, 2 + n);
    integer_case<std::int64_t, std::int64_t>(n, 3 + n);
    integer_case<std::uint64_t, std::uint64_t>(n, 4 + n);
  }
}

/// The message from "output" on: the GPU's names detred::cuda::, the CPU's detred::.
std::string from_output(const std::string& message) { return message.substr(message.find("output")); }

TEST_F(GpuScanRules, IntegerOverflowIsRefusedAsOnTheCpu) {
  const options on_ws{.workspace = &test_workspace()};
  // int64: a large positive run that passes the maximum at element 5000 + 3000 (of a multi-leaf array), then comes
  // back; the CPU and the GPU must name the same first output and exact value.
  const std::uint64_t n = 9000;
  std::vector<std::int64_t> x(n, 1);
  x[5000] = std::numeric_limits<std::int64_t>::max() - 6000;
  x[8500] = std::numeric_limits<std::int64_t>::min();
  for (bool exclusive : {false, true}) {
    std::string cpu_message;
    try {
      cpu_scan<std::int64_t, std::int64_t>(x, mode::tree, exclusive);
    } catch (const overflow_error& e) {
      cpu_message = e.what();
    }
    ASSERT_FALSE(cpu_message.empty());
    device_array<std::int64_t> d(n);
    device_array<std::int64_t> y(n);
    upload(x, d.data());
    const std::span<const std::int64_t> dx(d.data(), n);
    try {
      if (exclusive) {
        cuda::exclusive_cumsum(dx, std::span<std::int64_t>(y.data(), n), on_ws);
      } else {
        cuda::cumsum(dx, std::span<std::int64_t>(y.data(), n), on_ws);
      }
      ADD_FAILURE() << "no overflow_error";
    } catch (const overflow_error& e) {
      EXPECT_EQ(from_output(e.what()), from_output(cpu_message));
      EXPECT_NE(std::string(e.what()).find("detred::cuda::"), std::string::npos) << e.what();
    }
    // The async call records it in the workspace; the next synchronize throws it, and only that one.
    if (exclusive) {
      cuda::exclusive_cumsum_async(dx, std::span<std::int64_t>(y.data(), n), on_ws);
    } else {
      cuda::cumsum_async(dx, std::span<std::int64_t>(y.data(), n), on_ws);
    }
    try {
      cuda::synchronize(on_ws);
      ADD_FAILURE() << "no overflow_error from synchronize";
    } catch (const overflow_error& e) {
      EXPECT_EQ(from_output(e.what()), from_output(cpu_message));
    }
    EXPECT_NO_THROW(cuda::synchronize(on_ws));
    // Segments: the same array as one segment, after an empty one.
    device_array<std::uint64_t> offsets(3);
    upload(std::vector<std::uint64_t>{0, 0, n}, offsets.data());
    EXPECT_THROW(cuda::cumsum(dx, segments{std::span<const std::uint64_t>(offsets.data(), 3)},
                              std::span<std::int64_t>(y.data(), n), on_ws),
                 overflow_error);
  }
  // uint32 -> uint64 cannot overflow at this size; the workspace serves the next call normally.
  integer_case<std::uint32_t, std::uint64_t>(5000, 8);
}

TEST_F(GpuScanRules, ExactModeAndBadArgumentsAreRefused) {
  const options on_ws{.workspace = &test_workspace()};
  const options exact{.mode = mode::exact, .workspace = &test_workspace()};
  device_array<double> d(16);
  const std::span<const double> dx(d.data(), 16);
  EXPECT_THROW(cuda::cumsum(dx, std::span<double>(d.data(), 16), exact), error);
  EXPECT_THROW(cuda::exclusive_cumsum_async(dx, std::span<double>(d.data(), 16), exact), error);
  EXPECT_THROW(cuda::cumsum(dx, std::span<double>(d.data(), 15), on_ws), error);              // length
  EXPECT_THROW(cuda::cumsum(dx, std::span<double>(d.data() + 1, 16), on_ws), error);          // overlap
  EXPECT_THROW(cuda::cumsum(dx, segments{}, std::span<double>(d.data(), 16), on_ws), error);  // no offsets
  // The refusal of exact mode reads as the CPU's, apart from the call's name.
  std::string cpu;
  std::string gpu;
  std::vector<double> h(4);
  try {
    cumsum(std::span<const double>(h), std::span<double>(h), {.mode = mode::exact});
  } catch (const error& e) {
    cpu = e.what();
  }
  try {
    cuda::cumsum(dx, std::span<double>(d.data(), 16), exact);
  } catch (const error& e) {
    gpu = e.what();
  }
  ASSERT_NE(gpu.find("mode exact"), std::string::npos) << gpu;
  ASSERT_NE(cpu.find("mode exact"), std::string::npos) << cpu;
  // The same reason from the catalogue's one refusal; the GPU's message names its backend.
  EXPECT_EQ(gpu.substr(gpu.find(" (")), cpu.substr(cpu.find(" (")));
  EXPECT_NE(gpu.find("mode exact is not available on backend cuda"), std::string::npos) << gpu;
  EXPECT_NE(gpu.find("detred::cuda::cumsum"), std::string::npos) << gpu;
}

/// Segments uploaded with x; y prefilled with a sentinel both here and on the CPU, so that outputs outside every
/// segment must stay as they are.
template <class In, class Y>
void expect_segments(const std::vector<In>& x, const std::vector<std::uint64_t>& offsets, mode m,
                     const std::string& what) {
  const options on_ws{.workspace = &test_workspace()};
  const options gpu{.mode = m, .workspace = &test_workspace()};
  const std::uint64_t n = x.size();
  device_array<In> d(n);
  device_array<Y> y(n);
  device_array<std::uint64_t> off(offsets.size());
  upload(x, d.data());
  upload(offsets, off.data());
  const segments host_segments{std::span<const std::uint64_t>(offsets)};
  const segments device_segments{std::span<const std::uint64_t>(off.data(), offsets.size())};
  for (bool exclusive : {false, true}) {
    std::vector<Y> expected(n, Y(7));
    std::vector<Y> sentinel(n, Y(7));
    if (exclusive) {
      exclusive_cumsum(std::span<const In>(x), host_segments, std::span<Y>(expected), {.mode = m});
    } else {
      cumsum(std::span<const In>(x), host_segments, std::span<Y>(expected), {.mode = m});
    }
    upload(sentinel, y.data());
    const std::span<const In> dx(d.data(), n);
    const std::span<Y> dy(y.data(), n);
    if constexpr (std::is_integral_v<In>) {
      if (exclusive) {
        cuda::exclusive_cumsum(dx, device_segments, dy, on_ws);
      } else {
        cuda::cumsum(dx, device_segments, dy, on_ws);
      }
    } else {
      if (exclusive) {
        cuda::exclusive_cumsum_async(dx, device_segments, dy, gpu);
      } else {
        cuda::cumsum_async(dx, device_segments, dy, gpu);
      }
    }
    expect_same_bits(download(y.data(), n), expected,
                     what + " segments mode=" + to_string(m) + (exclusive ? " exclusive" : " inclusive"));
  }
}

TYPED_TEST(GpuScan, SegmentsEqualTheCpu) {
  using T = TypeParam;
  constexpr std::uint64_t L = order::leaf_size<T>;
  // Few long ones, at the short/long border (1024 = 32 lanes), empty ones, and one starting past 0.
  const std::vector<std::uint64_t> few = {3,
                                          3,
                                          4,
                                          4 + L,
                                          5 + 3 * L,
                                          5 + 3 * L,
                                          6 + 3 * L + 100,
                                          1030 + 3 * L + 100,
                                          2055 + 3 * L + 100,
                                          2055 + 20 * L,
                                          2055 + 20 * L + 1024,
                                          2055 + 37 * L};
  const std::vector<T> x = generate<T>(values::dynamic_range, few.back() + 7, 55);
  // Many short ones: random lengths 0..1100 (some long), and every length 0..70.
  std::vector<std::uint64_t> many = {0};
  rng random(12);
  for (int k = 0; k < 3000; ++k) many.push_back(many.back() + random.next() % 1101);
  for (std::uint64_t len = 0; len <= 70; ++len) many.push_back(many.back() + len);
  const std::vector<T> xm = generate<T>(values::with_nan, many.back(), 56);
  for (mode m : {mode::tree, mode::compensated}) {
    expect_segments<T, T>(x, few, m, "few long");
    expect_segments<T, T>(xm, many, m, "many short");
  }
  // Integers through the same kernels.
  std::vector<std::int32_t> xi(many.back());
  for (auto& v : xi) v = static_cast<std::int32_t>(random.next());
  expect_segments<std::int32_t, std::int64_t>(xi, many, mode::tree, "int32");
}

TEST_F(GpuScanRules, SixteenBitSegmentsEqualTheCpu) {
  std::vector<std::uint64_t> offsets = {0, 1, 1, 700, 5000, 5001, 20000};
  std::vector<bfloat16> h(offsets.back());
  rng random(3);
  for (auto& v : h) v = bfloat16{static_cast<std::uint16_t>((random.next() >> 48) & 0xbfffu)};
  for (mode m : {mode::tree, mode::compensated}) expect_segments<bfloat16, float>(h, offsets, m, "bfloat16");
}

TYPED_TEST(GpuScan, MatrixAxesEqualTheCpu) {
  using T = TypeParam;
  struct shape {
    std::uint64_t rows, cols, extra;
  };
  for (const shape s : {shape{1, 1, 0}, shape{3, 5000, 0}, shape{5000, 3, 2}, shape{70, 33, 1}, shape{1025, 40, 0}}) {
    for (layout l : {layout::row_major, layout::column_major}) {
      const std::uint64_t inner = l == layout::row_major ? s.cols : s.rows;
      const std::uint64_t outer = l == layout::row_major ? s.rows : s.cols;
      const std::uint64_t ld = inner + s.extra;
      const std::vector<T> a = generate<T>(values::dynamic_range, outer * ld, 5 + s.rows);
      device_array<T> da(a.size());
      device_array<T> dy(s.rows * s.cols);
      upload(a, da.data());
      const matrix_view<T> host{a.data(), s.rows, s.cols, ld, l};
      const matrix_view<T> dev{da.data(), s.rows, s.cols, ld, l};
      for (int axis : {0, 1}) {
        for (mode m : {mode::tree, mode::compensated}) {
          const options gpu{.mode = m, .workspace = &test_workspace()};
          std::vector<T> expected(s.rows * s.cols);
          cumsum(host, axis, std::span<T>(expected), {.mode = m});
          cuda::cumsum(dev, axis, std::span<T>(dy.data(), s.rows * s.cols), gpu);
          const std::string what = "axis " + std::to_string(axis) + " " + std::to_string(s.rows) + "x" +
                                   std::to_string(s.cols) + " ld=" + std::to_string(ld) +
                                   (l == layout::row_major ? " row-major" : " column-major") + " mode=" + to_string(m);
          expect_same_bits(download(dy.data(), s.rows * s.cols), expected, what);
          if (s.extra == 0) {  // packed: in place
            upload(a, da.data());
            cuda::cumsum(dev, axis, std::span<T>(da.data(), s.rows * s.cols), gpu);
            expect_same_bits(download(da.data(), s.rows * s.cols), expected, what + " in place");
            upload(a, da.data());
          }
        }
      }
    }
  }
}

/// The host calls with backend::cuda stage host arrays on the GPU (the catalogue's GPU rows): every output has the
/// CPU call's bits, for one array (inclusive, exclusive, in place), segments with gaps (outputs outside every
/// segment keep their values), matrix axes with a padded leading dimension, 16-bit and integer inputs, and an
/// integer overflow is refused as on the CPU.
TEST_F(GpuScanRules, HostArraysWithBackendCudaMatchTheCpu) {
  const options on_gpu{.backend = backend::cuda};
  for (const std::uint64_t n : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{4095}, std::uint64_t{70001}}) {
    const std::vector<double> x = generate<double>(values::dynamic_range, n, 11 + n);
    for (mode m : {mode::tree, mode::compensated}) {
      std::vector<double> expected(n), got(n, 7.0);
      cumsum(std::span<const double>(x), std::span<double>(expected), {.mode = m});
      cumsum(std::span<const double>(x), std::span<double>(got), {.mode = m, .backend = backend::cuda});
      expect_same_bits(got, expected, "cumsum n=" + std::to_string(n) + " " + to_string(m));
      exclusive_cumsum(std::span<const double>(x), std::span<double>(expected), {.mode = m});
      exclusive_cumsum(std::span<const double>(x), std::span<double>(got), {.mode = m, .backend = backend::cuda});
      expect_same_bits(got, expected, "exclusive_cumsum n=" + std::to_string(n) + " " + to_string(m));
      std::vector<double> in_place = x;
      cumsum(std::span<double>(in_place), {.mode = m, .backend = backend::cuda});
      cumsum(std::span<const double>(x), std::span<double>(expected), {.mode = m});
      expect_same_bits(in_place, expected, "in place n=" + std::to_string(n) + " " + to_string(m));
    }
  }
  const std::vector<float> f = generate<float>(values::dynamic_range, 9000, 5);
  const std::vector<std::uint64_t> offsets = {3, 3, 40, 5000, 8990};  // gaps before, between none, after
  std::vector<float> expected(f.size(), 2.5f), got(f.size(), 2.5f);
  cumsum(std::span<const float>(f), segments{offsets}, std::span<float>(expected));
  cumsum(std::span<const float>(f), segments{offsets}, std::span<float>(got), on_gpu);
  expect_same_bits(got, expected, "float segments");
  std::vector<bfloat16> h(5000);
  rng random(9);
  for (auto& v : h) v = bfloat16{static_cast<std::uint16_t>((random.next() >> 48) & 0xbfffu)};
  std::vector<float> wide(h.size()), wide_gpu(h.size());
  exclusive_cumsum(std::span<const bfloat16>(h), std::span<float>(wide));
  exclusive_cumsum(std::span<const bfloat16>(h), std::span<float>(wide_gpu), on_gpu);
  expect_same_bits(wide_gpu, wide, "bfloat16 exclusive");
  const std::vector<double> a = generate<double>(values::dynamic_range, 70 * 36, 21);
  for (layout l : {layout::row_major, layout::column_major}) {
    const matrix_view<double> view{a.data(), l == layout::row_major ? 70u : 33u, l == layout::row_major ? 33u : 70u, 36,
                                   l};
    for (int axis : {0, 1}) {
      std::vector<double> cpu_out(70 * 33), gpu_out(70 * 33);
      cumsum(view, axis, std::span<double>(cpu_out));
      cumsum(view, axis, std::span<double>(gpu_out), on_gpu);
      expect_same_bits(gpu_out, cpu_out, "axis " + std::to_string(axis));
    }
  }
  const std::vector<std::int32_t> i = {5, -7, 2147483647, 2147483647, -3};
  std::vector<std::int64_t> i_cpu(i.size()), i_gpu(i.size());
  cumsum(std::span<const std::int32_t>(i), std::span<std::int64_t>(i_cpu));
  cumsum(std::span<const std::int32_t>(i), std::span<std::int64_t>(i_gpu), on_gpu);
  EXPECT_EQ(i_gpu, i_cpu);
  const std::vector<std::int64_t> big = {std::numeric_limits<std::int64_t>::max(), 1};
  std::vector<std::int64_t> big_out(2);
  EXPECT_THROW(cumsum(std::span<const std::int64_t>(big), std::span<std::int64_t>(big_out), on_gpu), overflow_error);
  // The pieces of one array stay on the CPU: the catalogue has no GPU row for them.
  std::vector<scan_total<double>> totals(1);
  EXPECT_THROW(cumsum_totals(std::span<const double>(a.data(), 10), std::span<scan_total<double>>(totals), on_gpu),
               error);
}

}  // namespace
}  // namespace detred::testing
