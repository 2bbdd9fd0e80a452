// SPDX-License-Identifier: BSD-3-Clause
// Exact mode's batched calls on the GPU (lib/cuda/exact_batch.cu): every segment, row and column gives the bits of
// the CPU's exact batched call (which tests/exact and tests/batched_test tie to the MPFR oracle and to the one-array
// exact call), for sum, asum, nrm2, dot, sumsq and mean of double and float: device memory through the cuda::
// _async calls on a stream, host memory through the batched calls with backend::cuda (staged). Lengths sit around
// every boundary of the kernels (a warp's lines up to 2048 elements, a block's items of 32768, chunks of 8 terms
// per thread, lines of many items, strided lines split among blocks), and the values around every special case of
// exact mode (cancellation, signed zeros, subnormals, infinities, NaN, sums and products past the type's range).
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "batch_cases.hpp"
#include "detred/detred.hpp"
#include "gpu_paths.hpp"
#include "op_paths.hpp"

namespace detred::testing {
namespace {

/// The exact batches are listed in the catalogue once these tests have passed on a GPU (catalogue.hpp,
/// exact_gpu_batches_listed); until then the calls are refused, so the tests say so and skip.
inline void skip_unless_listed() {
  if (!catalogue::exact_gpu_batches_listed) {
    GTEST_SKIP() << "exact batches on the GPU are not listed yet (detred/catalogue.hpp, exact_gpu_batches_listed): "
                    "set it to true to run these tests";
  }
}

template <class T>
class GpuExactBatched : public TypedGpu<T> {
 protected:
  void SetUp() override {
    TypedGpu<T>::SetUp();
    if (!this->IsSkipped()) skip_unless_listed();
  }
};
class GpuExact : public Gpu {
 protected:
  void SetUp() override {
    Gpu::SetUp();
    if (!IsSkipped()) skip_unless_listed();
  }
};
using ExactBatchTypes = ::testing::Types<double, float>;
TYPED_TEST_SUITE(GpuExactBatched, ExactBatchTypes);

constexpr operation segment_ops[] = {operation::sum, operation::asum,  operation::nrm2,
                                     operation::dot, operation::sumsq, operation::mean};
constexpr operation axis_ops[] = {operation::sum, operation::asum, operation::nrm2, operation::sumsq, operation::mean};

/// True for the operations with a device-memory batched call (cuda::sum_async ...); the others (sumsq, mean) reach
/// the GPU through the host batched calls with backend::cuda.
bool has_device_call(operation op) {
  return op == operation::sum || op == operation::asum || op == operation::nrm2 || op == operation::dot;
}

/// A host vector copied to the device.
template <class T>
struct on_device {
  explicit on_device(const std::vector<T>& host) : array(host.size()) {
    EXPECT_TRUE(array.ok());
    if (!host.empty()) {
      EXPECT_EQ(cudaMemcpy(array.data(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
    }
  }
  std::span<const T> span(std::uint64_t n) const { return {array.data(), n}; }
  device_array<T> array;
};

/// The CPU's exact batched result of op over the segments.
template <class T>
std::vector<T> cpu_segments(operation op, const std::vector<T>& x, const std::vector<T>& y,
                            const std::vector<std::uint64_t>& offsets) {
  std::vector<T> r(offsets.size() - 1);
  reduce(op, element_type_of<T>(), x.data(), x.size(), y.data(), op == operation::dot ? y.size() : 0, segments{offsets},
         r.data(), r.size(), {.mode = mode::exact, .backend = backend::cpu});
  return r;
}

/// The CPU's exact batched result of op along `axis`.
template <class T>
std::vector<T> cpu_axis(operation op, const matrix_view<T>& a, int axis) {
  std::vector<T> r(axis == 0 ? a.cols : a.rows);
  reduce(op, element_type_of<T>(), a.data, a.rows, a.cols, a.leading_dimension, a.layout, axis, r.data(), r.size(),
         {.mode = mode::exact, .backend = backend::cpu});
  return r;
}

/// Enqueues the device call of op (has_device_call) over device segments.
template <class T>
void device_segments_async(operation op, std::span<const T> x, std::span<const T> y, segments s, std::span<T> out,
                           const options& opt) {
  if (op == operation::sum) cuda::sum_async(x, s, out, opt);
  if (op == operation::asum) cuda::asum_async(x, s, out, opt);
  if (op == operation::nrm2) cuda::nrm2_async(x, s, out, opt);
  if (op == operation::dot) cuda::dot_async(x, y, s, out, opt);
}

/// Enqueues the device call of op (sum, asum or nrm2) along an axis of a device matrix.
template <class T>
void device_axis_async(operation op, const matrix_view<T>& a, int axis, std::span<T> out, const options& opt) {
  if (op == operation::sum) cuda::sum_async(a, axis, out, opt);
  if (op == operation::asum) cuda::asum_async(a, axis, out, opt);
  if (op == operation::nrm2) cuda::nrm2_async(a, axis, out, opt);
}

template <class T>
std::vector<T> fetch(const device_array<T>& d, std::uint64_t n, cudaStream_t stream) {
  std::vector<T> out(n);
  if (n > 0) {
    EXPECT_EQ(cudaMemcpyAsync(out.data(), d.data(), n * sizeof(T), cudaMemcpyDeviceToHost, stream), cudaSuccess);
  }
  EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  return out;
}

template <class T>
void expect_same_lines(const std::vector<T>& got, const std::vector<T>& expected, const std::string& what) {
  ASSERT_EQ(got.size(), expected.size()) << what;
  std::uint64_t wrong = 0;
  for (std::size_t k = 0; k < got.size(); ++k) {
    if (!same_bits(got[k], expected[k])) {
      if (++wrong <= 5) {
        ADD_FAILURE() << what << " line " << k << ": got " << got[k] << " (bits " << bits(got[k]) << "), expected "
                      << expected[k] << " (bits " << bits(expected[k]) << ")";
      }
    }
  }
  EXPECT_EQ(wrong, 0u) << what << ": lines that differ";
  gpu_comparisons() += got.size();
}

/// Every operation over the segments of x (and y for dot): the device calls on a stream of their own and the host
/// calls with backend::cuda, each line against the CPU's exact batched call.
template <class T>
void expect_exact_segments(const std::vector<T>& x, const std::vector<T>& y, const std::vector<std::uint64_t>& offsets,
                           cuda::workspace& ws, cudaStream_t stream, const std::string& what) {
  const std::uint64_t extent = x.size();
  const std::uint64_t count = offsets.size() - 1;
  const on_device<T> dx(x);
  const on_device<T> dy(y);
  const on_device<std::uint64_t> doff(offsets);
  device_array<T> out(count);
  ASSERT_TRUE(out.ok());
  const options gpu{.mode = mode::exact, .stream = stream, .workspace = &ws};
  for (operation op : segment_ops) {
    const std::vector<T> expected = cpu_segments(op, x, y, offsets);
    const std::string label = std::string(to_string(op)) + " " + what;
    if (has_device_call(op)) {
      device_segments_async<T>(op, dx.span(extent), dy.span(extent), segments{doff.span(offsets.size())},
                               std::span<T>(out.data(), count), gpu);
      expect_same_lines(fetch(out, count, stream), expected, label + " (device, async)");
    }
    std::vector<T> host(count);
    reduce(op, element_type_of<T>(), x.data(), x.size(), y.data(), op == operation::dot ? y.size() : 0,
           segments{offsets}, host.data(), host.size(), {.mode = mode::exact, .backend = backend::cuda});
    expect_same_lines(host, expected, label + " (host memory, backend::cuda)");
  }
  EXPECT_NO_THROW(cuda::synchronize(gpu)) << what;
  gpu_inputs() += 1;
}

/// Lengths around every boundary of the kernels: the chunks of 8 terms a thread (256 a warp, 2048 a block), the
/// warp's limit of 2048 elements, the items of 32768, lines of many items; empty lines among them.
std::vector<std::uint64_t> boundary_lengths() {
  return {0,    1,    2,    3,    7,     8,     9,     31,    32,    33,    63,    64, 65,   255,
          256,  257,  511,  512,  513,   1023,  1024,  1025,  2047,  2048,  2049,  0,  4095, 4096,
          4097, 8191, 8192, 8193, 32767, 32768, 32769, 65535, 65536, 65537, 98309, 0,  5};
}

TYPED_TEST(GpuExactBatched, SegmentsOfEveryBoundaryLengthAndValueClass) {
  using T = TypeParam;
  cuda::workspace ws;
  cudaStream_t stream = nullptr;
  DETRED_CUDA_OK(cudaStreamCreate(&stream));
  std::uint64_t seed = 900;
  for (values v : all_value_classes()) {
    for (std::uint64_t gap : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{3}}) {
      std::uint64_t extent = 0;
      const std::vector<std::uint64_t> offsets = offsets_of(boundary_lengths(), gap, extent);
      const std::vector<T> x = generate<T>(v, extent, ++seed);
      // y uniform for the overflowing class (its own products would all overflow), of x's class otherwise.
      const std::vector<T> y = generate<T>(v == values::overflowing ? values::uniform : v, extent, ++seed);
      expect_exact_segments(x, y, offsets, ws, stream, name(v) + " gap " + std::to_string(gap));
    }
  }
  DETRED_CUDA_OK(cudaStreamDestroy(stream));
}

/// Thousands of short segments of random lengths (the warp path, lines finishing back to back in one warp's
/// words), a few long ones among them (the items pass), and one line of many items whose last item is short.
TYPED_TEST(GpuExactBatched, ThousandsOfShortSegmentsWithLongOnesAmongThem) {
  using T = TypeParam;
  cuda::workspace ws;
  cudaStream_t stream = nullptr;
  DETRED_CUDA_OK(cudaStreamCreate(&stream));
  rng r(31);
  std::vector<std::uint64_t> lengths;
  for (int k = 0; k < 5000; ++k) lengths.push_back(r.below(k % 97 == 0 ? 3000 : 40));
  lengths[1234] = 40 * 32768 + 17;
  lengths[4321] = 32768 * 2;
  for (values v : {values::uniform, values::ill_conditioned, values::dynamic_range, values::with_nan}) {
    std::uint64_t extent = 0;
    const std::vector<std::uint64_t> offsets = offsets_of(lengths, 1, extent);
    expect_exact_segments(generate<T>(v, extent, 77), generate<T>(values::uniform, extent, 78), offsets, ws, stream,
                          name(v) + " thousands of segments");
  }
  DETRED_CUDA_OK(cudaStreamDestroy(stream));
}

/// Lines built for exact mode's special cases, each at lengths that take the warp path, one item and several
/// items, the hard values placed at the start, the middle and the end of a line and of a thread's chunk.
template <class T>
std::vector<std::vector<T>> adversarial_patterns() {
  const T big = std::numeric_limits<T>::max();
  const T tiny = std::numeric_limits<T>::denorm_min();
  const T smallest_normal = std::numeric_limits<T>::min();
  const T inf = std::numeric_limits<T>::infinity();
  const T nan = std::numeric_limits<T>::quiet_NaN();
  return {
      {big, -big, big, -big, big},                    // cancelling maxima: exactly big
      {big, big, -big},                               // past the range in between: exactly big
      {big, big},                                     // overflows: +Inf (nrm2, sumsq, dot too; mean: big)
      {-big, -big, tiny},                             // -Inf for the sum, mean -big
      {T(0.75) * big, T(0.75) * big, -T(0.5) * big},  // finite exact sum of terms that overflow pairwise
      {T(1), T(0x1p-60), T(-1)},                      // the tiny rest of a cancellation
      {T(0x1p40), T(1), T(-0x1p40), T(0x1p-40)},      // two cancellations, rests far apart
      {-T(0), -T(0), -T(0)},                          // only -0.0: -0.0 (asum, dot, nrm2, sumsq +0.0)
      {-T(0), T(0), -T(0)},                           // mixed zeros: +0.0
      {tiny, -tiny, tiny},                            // subnormals
      {tiny, tiny, tiny, smallest_normal},            // subnormals into the normal range
      {T(1), inf, T(2)},                              // +Inf
      {T(1), -inf, T(2)},                             // -Inf
      {inf, -inf},                                    // NaN
      {T(1), nan, T(2)},                              // NaN
      {-nan, T(3)},                                   // NaN of the other sign: the canonical NaN
      {T(1) / T(3), T(2) / T(3), T(-1)},              // a rounding tie or near one
  };
}

/// Segments of adversarial patterns: each pattern alone, and spread through lines of lengths across every path,
/// padded with -0.0 or among random values (so that the hard values meet the fast paths' checks).
TYPED_TEST(GpuExactBatched, AdversarialLinesAtEveryPath) {
  using T = TypeParam;
  cuda::workspace ws;
  cudaStream_t stream = nullptr;
  DETRED_CUDA_OK(cudaStreamCreate(&stream));
  rng r(5);
  std::vector<T> x;
  std::vector<std::uint64_t> offsets = {0};
  for (const std::vector<T>& pattern : adversarial_patterns<T>()) {
    x.insert(x.end(), pattern.begin(), pattern.end());  // the pattern alone
    offsets.push_back(x.size());
    for (std::uint64_t n : {std::uint64_t{31}, std::uint64_t{257}, std::uint64_t{2049}, std::uint64_t{32769},
                            std::uint64_t{3 * 32768 + 11}}) {
      for (bool padded : {true, false}) {
        const std::uint64_t first = x.size();
        // Padded with -0.0, which leaves every pattern's value and zero sign as they are, or among random values.
        for (std::uint64_t i = 0; i < n; ++i) x.push_back(padded ? -T(0) : static_cast<T>(r.unit<double>() - 0.5));
        // The pattern's terms at the start, in the middle (a chunk's span apart, wrapped into short lines) and at
        // the end of the line: every spot within the line (n > 2 x 5, the longest pattern).
        for (std::uint64_t j = 0; j < pattern.size(); ++j) {
          const std::uint64_t spot = j % 3 == 0 ? j : j % 3 == 1 ? (n / 2 + 256 * j) % n : n - 1 - j;
          ASSERT_LT(spot, n);
          x[first + spot] = pattern[j];
        }
        offsets.push_back(x.size());
      }
    }
  }
  std::vector<T> y(x.size());
  for (std::size_t i = 0; i < y.size(); ++i) y[i] = i % 5 == 0 ? T(-1) : i % 7 == 0 ? T(0x1p-30) : T(1);
  expect_exact_segments(x, y, offsets, ws, stream, "adversarial");
  expect_exact_segments(x, x, offsets, ws, stream, "adversarial, y = x");
  DETRED_CUDA_OK(cudaStreamDestroy(stream));
}

/// Products of doubles past the range and below it, and products whose error term would be subnormal, in lines of
/// every path (the dot product's careful path).
TEST_F(GpuExact, BatchedDotOfProductsBeyondDoubleAndBelowIt) {
  const double tiny = std::numeric_limits<double>::denorm_min();
  rng r(3);
  std::vector<double> x(200003), y(200003);
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = r.unit<double>() - 0.5;
    y[i] = r.unit<double>() - 0.5;
  }
  for (std::size_t i = 5; i + 4 < x.size(); i += 997) {
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
  std::uint64_t extent = 0;
  const std::vector<std::uint64_t> offsets =
      offsets_of({3, 40, 1000, 2048, 2049, 5000, 32768, 32769, 70000, 0, 80000}, 2, extent);
  x.resize(extent);
  y.resize(extent);
  cuda::workspace ws;
  expect_exact_segments(x, y, offsets, ws, nullptr, "difficult products");
}

/// Every axis of both layouts, padded leading dimensions, base pointers one element in: contiguous lines (rows of a
/// row-major matrix, columns of a column-major one) and strided ones, among them tall narrow matrices whose lines
/// are split among blocks (few tiles of 32 lines, lines of thousands of rows) and wide ones of many tiles.
TYPED_TEST(GpuExactBatched, EveryAxisAndLayoutEqualsTheCpu) {
  using T = TypeParam;
  cuda::workspace ws;
  cudaStream_t stream = nullptr;
  DETRED_CUDA_OK(cudaStreamCreate(&stream));
  std::vector<std::pair<std::uint64_t, std::uint64_t>> shapes = matrix_shapes<T>();
  shapes.insert(shapes.end(), {{2049, 33}, {40000, 3}, {3, 40000}, {100003, 37}, {70, 2100}, {33, 70001}, {1, 65}});
  for (const auto& [rows, cols] : shapes) {
    for (layout lay : {layout::row_major, layout::column_major}) {
      for (std::uint64_t pad : {std::uint64_t{0}, std::uint64_t{3}}) {
        for (std::uint64_t first : {std::uint64_t{0}, std::uint64_t{1}}) {
          const std::uint64_t inner = lay == layout::row_major ? cols : rows;
          const std::uint64_t outer = lay == layout::row_major ? rows : cols;
          if (inner == 0 && pad == 0) continue;  // a leading dimension of at least 1
          const std::uint64_t ld = inner + pad;
          const values v = first == 0 ? values::dynamic_range : (pad == 0 ? values::ill_conditioned : values::with_inf);
          const std::vector<T> data = generate<T>(v, first + outer * ld + 1, rows + 7 * cols + pad);
          const on_device<T> d(data);
          const matrix_view<T> host{data.data() + first, rows, cols, ld, lay};
          const matrix_view<T> dev{d.array.data() + first, rows, cols, ld, lay};
          for (int axis : {0, 1}) {
            const std::uint64_t count = axis == 0 ? cols : rows;
            const std::string what = std::to_string(rows) + "x" + std::to_string(cols) +
                                     (lay == layout::row_major ? " row-major" : " col-major") + " ld " +
                                     std::to_string(ld) + " first " + std::to_string(first) + " axis " +
                                     std::to_string(axis) + " " + name(v);
            device_array<T> out(count);
            ASSERT_TRUE(out.ok());
            for (operation op : axis_ops) {
              const std::vector<T> expected = cpu_axis(op, host, axis);
              const std::string label = std::string(to_string(op)) + " " + what;
              if (has_device_call(op)) {
                device_axis_async<T>(op, dev, axis, std::span<T>(out.data(), count),
                                     {.mode = mode::exact, .stream = stream, .workspace = &ws});
                expect_same_lines(fetch(out, count, stream), expected, label + " (device, async)");
              }
              std::vector<T> got(count);
              reduce(op, element_type_of<T>(), host.data, rows, cols, ld, lay, axis, got.data(), count,
                     {.mode = mode::exact, .backend = backend::cuda});
              expect_same_lines(got, expected, label + " (host memory, backend::cuda)");
            }
          }
          gpu_inputs() += 1;
        }
      }
    }
  }
  DETRED_CUDA_OK(cudaStreamDestroy(stream));
}

/// Exact and tree-mode batched calls back to back on one stream and workspace (the scratch is shared and the exact
/// calls zero what they use in stream order), repeated: every result keeps its bits; no lines is a no-op.
TYPED_TEST(GpuExactBatched, BackToBackCallsOnOneStreamAndWorkspace) {
  using T = TypeParam;
  cuda::workspace ws;
  cudaStream_t stream = nullptr;
  DETRED_CUDA_OK(cudaStreamCreate(&stream));
  std::uint64_t extent = 0;
  const std::vector<std::uint64_t> offsets = offsets_of({5, 70000, 3000, 0, 40000, 33}, 0, extent);
  const std::vector<T> x = generate<T>(values::ill_conditioned, extent, 12);
  const std::uint64_t count = offsets.size() - 1;
  const on_device<T> dx(x);
  const on_device<std::uint64_t> doff(offsets);
  const segments s{doff.span(offsets.size())};
  const std::vector<T> exact_sums = cpu_segments(operation::sum, x, x, offsets);
  const std::vector<T> exact_norms = cpu_segments(operation::nrm2, x, x, offsets);
  std::vector<T> tree_sums(count);
  sum(std::span<const T>(x), segments{offsets}, std::span<T>(tree_sums));
  constexpr int rounds = 3;
  device_array<T> out(3 * rounds * count);
  ASSERT_TRUE(out.ok());
  const options exact{.mode = mode::exact, .stream = stream, .workspace = &ws};
  const options tree{.mode = mode::tree, .stream = stream, .workspace = &ws};
  for (int k = 0; k < rounds; ++k) {
    T* const base = out.data() + 3 * k * count;
    cuda::sum_async(dx.span(extent), s, std::span<T>(base, count), exact);
    cuda::sum_async(dx.span(extent), s, std::span<T>(base + count, count), tree);
    cuda::nrm2_async(dx.span(extent), s, std::span<T>(base + 2 * count, count), exact);
  }
  cuda::sum_async(dx.span(extent), segments{doff.span(1)}, std::span<T>(), exact);  // no segment
  const std::vector<T> all = fetch(out, 3 * rounds * count, stream);
  for (int k = 0; k < rounds; ++k) {
    const auto part = [&](int j) {
      return std::vector<T>(all.begin() + (3 * k + j) * static_cast<std::ptrdiff_t>(count),
                            all.begin() + (3 * k + j + 1) * static_cast<std::ptrdiff_t>(count));
    };
    expect_same_lines(part(0), exact_sums, "exact sum, round " + std::to_string(k));
    expect_same_lines(part(1), tree_sums, "tree sum, round " + std::to_string(k));
    expect_same_lines(part(2), exact_norms, "exact nrm2, round " + std::to_string(k));
  }
  EXPECT_NO_THROW(cuda::synchronize(exact));
  DETRED_CUDA_OK(cudaStreamDestroy(stream));
}

/// Groups by key: the device calls (synchronous, and _async on a stream; uint32 and int64 keys) and the host call
/// with backend::cuda against the CPU's exact sum_by_key: uniform and skewed keys (a hot bin of many items), empty
/// bins (-0.0), every value class.
TYPED_TEST(GpuExactBatched, GroupsByKeyEqualTheCpu) {
  using T = TypeParam;
  cuda::workspace ws;
  cudaStream_t stream = nullptr;
  DETRED_CUDA_OK(cudaStreamCreate(&stream));
  std::uint64_t seed = 40;
  for (const auto& [n, bins] : std::vector<std::pair<std::uint64_t, std::uint64_t>>{
           {1, 1}, {1000, 7}, {100003, 7}, {300007, 1000}, {50000, 70000}, {0, 3}}) {
    for (bool skewed : {false, true}) {
      for (values v : {values::uniform, values::ill_conditioned, values::with_nan, values::negative_zeros}) {
        const std::vector<T> x = generate<T>(v, n, ++seed);
        const std::vector<std::uint32_t> keys = random_keys<std::uint32_t>(n, bins, skewed, ++seed);
        const std::vector<std::int64_t> wide(keys.begin(), keys.end());
        const std::string what = std::to_string(n) + " values, " + std::to_string(bins) + " bins" +
                                 (skewed ? " skewed " : " uniform ") + name(v);
        std::vector<T> expected(bins);
        sum_by_key(std::span<const T>(x), std::span<const std::uint32_t>(keys), std::span<T>(expected),
                   {.mode = mode::exact, .backend = backend::cpu});
        const on_device<T> dx(x);
        const on_device<std::uint32_t> dkeys(keys);
        const on_device<std::int64_t> dwide(wide);
        device_array<T> out(bins);
        ASSERT_TRUE(out.ok());
        const options gpu{.mode = mode::exact, .stream = stream, .workspace = &ws};
        cuda::sum_by_key(dx.span(n), dkeys.span(n), std::span<T>(out.data(), bins), gpu);
        expect_same_lines(fetch(out, bins, stream), expected, what + " (device, uint32 keys)");
        cuda::sum_by_key_async(dx.span(n), dwide.span(n), std::span<T>(out.data(), bins), gpu);
        expect_same_lines(fetch(out, bins, stream), expected, what + " (device async, int64 keys)");
        EXPECT_NO_THROW(cuda::synchronize(gpu)) << what;
        std::vector<T> host(bins);
        sum_by_key(std::span<const T>(x), std::span<const std::int64_t>(wide), std::span<T>(host),
                   {.mode = mode::exact, .backend = backend::cuda});
        expect_same_lines(host, expected, what + " (host memory, backend::cuda)");
        gpu_inputs() += 1;
      }
    }
  }
  DETRED_CUDA_OK(cudaStreamDestroy(stream));
}

/// Exact batches of 16-bit floats on the GPU (widened on the device; GpuHalfBatched compares every line with the CPU)
/// are accepted; a key that is not a bin is reported as in the other modes.
TEST_F(GpuExact, BatchedRefusals) {
  const std::vector<float16> halves = {static_cast<float16>(0x3c00), static_cast<float16>(0x3c00),
                                       static_cast<float16>(0x4000), static_cast<float16>(0x8000)};  // 1, 1, 2, -0
  const on_device<float16> h(halves);
  device_array<float> r(1);
  device_array<std::uint64_t> offsets(2);
  ASSERT_TRUE(r.ok() && offsets.ok());
  const std::uint64_t host_offsets[2] = {0, 4};
  DETRED_CUDA_OK(cudaMemcpy(offsets.data(), host_offsets, sizeof host_offsets, cudaMemcpyHostToDevice));
  const options exact{.mode = mode::exact, .workspace = &test_workspace()};
  cuda::sum_async(h.span(4), segments{std::span<const std::uint64_t>(offsets.data(), 2)}, std::span<float>(r.data(), 1),
                  exact);
  float got = 0;
  DETRED_CUDA_OK(cudaStreamSynchronize(nullptr));
  DETRED_CUDA_OK(cudaMemcpy(&got, r.data(), sizeof got, cudaMemcpyDeviceToHost));
  EXPECT_EQ(got, 4.0f);
  const std::vector<double> ones(4, 1.0);
  const std::vector<std::uint32_t> keys = {0, 0, 5, 0};
  const on_device<double> dv(ones);
  const on_device<std::uint32_t> dk(keys);
  device_array<double> bins(2);
  ASSERT_TRUE(bins.ok());
  try {
    cuda::sum_by_key(dv.span(4), dk.span(4), std::span<double>(bins.data(), 2), exact);
    ADD_FAILURE() << "a key that is not a bin was accepted";
  } catch (const error& e) {
    EXPECT_NE(std::string(e.what()).find("index 2"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace detred::testing
