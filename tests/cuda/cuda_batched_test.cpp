// SPDX-License-Identifier: BSD-3-Clause
// The batched reductions on the GPU: device segments (short lines, long lines of several work items, empty ones,
// every alignment), matrix axes of both layouts, groups by key, and the host API with backend::cuda; every result
// against the CPU's single-array call on its line alone.
#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "batch_cases.hpp"
#include "detred/detred.hpp"
#include "gpu_paths.hpp"
#include "op_paths.hpp"

namespace detred::testing {
namespace {

using FloatTypes = ::testing::Types<float, double>;
template <class T>
class GpuBatched : public TypedGpu<T> {};
TYPED_TEST_SUITE(GpuBatched, FloatTypes);

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

template <class R>
std::vector<R> to_host(const device_array<R>& d, std::uint64_t n) {
  std::vector<R> out(n);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  if (n > 0) {
    EXPECT_EQ(cudaMemcpy(out.data(), d.data(), n * sizeof(R), cudaMemcpyDeviceToHost), cudaSuccess);
  }
  return out;
}

/// The offsets with their empty segments dropped (min, max, argmin and argmax refuse those).
inline std::vector<std::uint64_t> without_empty_segments(std::vector<std::uint64_t> offsets) {
  offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
  return offsets;
}

/// The index of the first empty segment of `offsets` (which has one).
inline std::uint64_t first_empty_segment(const std::vector<std::uint64_t>& offsets) {
  std::uint64_t k = 0;
  while (k + 1 < offsets.size() && offsets[k + 1] != offsets[k]) ++k;
  EXPECT_LT(k + 1, offsets.size()) << "the test needs an empty segment";
  return k;
}

/// Requires the next synchronize on opt's workspace to throw detred::error naming segment k ("segment k", k not
/// followed by another digit), as it does after min, max, argmin or argmax over offsets with an empty segment k.
inline void expect_empty_segment_error(const options& opt, std::uint64_t k, const std::string& what) {
  try {
    cuda::synchronize(opt);
    ADD_FAILURE() << what << ": the empty segment " << k << " was accepted";
  } catch (const error& e) {
    const std::string message = e.what();
    const std::string name = "segment " + std::to_string(k);
    const std::size_t at = message.find(name);
    const bool named = at != std::string::npos && (at + name.size() == message.size() ||
                                                   message[at + name.size()] < '0' || message[at + name.size()] > '9');
    EXPECT_TRUE(named) << what << ": " << message;
  }
  EXPECT_NO_THROW(cuda::synchronize(opt)) << what << ": the error was not forgotten once thrown";
}

template <class R, class Single>
void expect_lines(const std::vector<R>& got, Single&& single, const std::string& what) {
  for (std::size_t k = 0; k < got.size(); ++k) {
    EXPECT_TRUE(same_bits(got[k], single(k))) << what << " line " << k;
    ++gpu_comparisons();
  }
}

/// Values and segments on the device: sum, asum, nrm2 and dot (second operand y) of every segment, in tree and
/// compensated mode, against the CPU's single-array call on the segment alone, bit for bit.
template <class T>
void expect_segment_sums(const std::vector<T>& x, const std::vector<T>& y, const std::vector<std::uint64_t>& offsets,
                         cuda::workspace& ws, const std::string& what) {
  const std::uint64_t extent = x.size();
  const std::uint64_t count = offsets.size() - 1;
  const on_device<T> dx(x);
  const on_device<T> dy(y);
  const on_device<std::uint64_t> doff(offsets);
  const segments s{doff.span(offsets.size())};
  device_array<T> out(count);
  const auto seg = [&](const std::vector<T>& a, std::uint64_t k) {
    return std::span<const T>(a.data() + offsets[k], offsets[k + 1] - offsets[k]);
  };
  for (mode m : {mode::tree, mode::compensated}) {
    const options one{.mode = m};
    const options gpu{.mode = m, .workspace = &ws};
    cuda::sum_async(dx.span(extent), s, std::span<T>(out.data(), count), gpu);
    expect_lines(
        to_host(out, count), [&](std::uint64_t k) { return sum(seg(x, k), one); }, "sum " + what);
    cuda::asum_async(dx.span(extent), s, std::span<T>(out.data(), count), gpu);
    expect_lines(
        to_host(out, count), [&](std::uint64_t k) { return asum(seg(x, k), one); }, "asum " + what);
    cuda::nrm2_async(dx.span(extent), s, std::span<T>(out.data(), count), gpu);
    expect_lines(
        to_host(out, count), [&](std::uint64_t k) { return nrm2(seg(x, k), one); }, "nrm2 " + what);
    cuda::dot_async(dx.span(extent), dy.span(extent), s, std::span<T>(out.data(), count), gpu);
    expect_lines(
        to_host(out, count), [&](std::uint64_t k) { return dot(seg(x, k), seg(y, k), one); }, "dot " + what);
  }
}

/// expect_segment_sums on segments of `lengths`, the first starting `gap` elements in: x of value class v (seed
/// x_seed), y uniform (seed y_seed).
template <class T>
void expect_sums_of_lengths(const std::vector<std::uint64_t>& lengths, std::uint64_t gap, values v,
                            std::uint64_t x_seed, std::uint64_t y_seed, cuda::workspace& ws, const std::string& what) {
  std::uint64_t extent = 0;
  const std::vector<std::uint64_t> offsets = offsets_of(lengths, gap, extent);
  expect_segment_sums(generate<T>(v, extent, x_seed), generate<T>(values::uniform, extent, y_seed), offsets, ws, what);
}

TYPED_TEST(GpuBatched, EverySegmentEqualsTheSingleArrayCall) {
  using T = TypeParam;
  cuda::workspace ws;
  for (values v : {values::uniform, values::ill_conditioned, values::with_nan, values::subnormal}) {
    for (std::uint64_t gap : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{3}}) {
      std::uint64_t extent = 0;
      const std::vector<std::uint64_t> offsets = offsets_of(segment_lengths<T>(31 + gap), gap, extent);
      const std::vector<T> x = generate<T>(v, extent, 17);
      const std::vector<T> y = generate<T>(values::uniform, extent, 18);
      const std::uint64_t count = offsets.size() - 1;
      const on_device<T> dx(x);
      const on_device<std::uint64_t> doff(offsets);
      const segments s{doff.span(offsets.size())};
      device_array<T> out(count);
      device_array<statistics<T>> st(count);
      const auto seg = [&](const std::vector<T>& a, std::uint64_t k) {
        return std::span<const T>(a.data() + offsets[k], offsets[k + 1] - offsets[k]);
      };
      const std::string what = name(v) + " gap " + std::to_string(gap);
      expect_segment_sums(x, y, offsets, ws, what);
      for (mode m : {mode::tree, mode::compensated}) {
        const options one{.mode = m};
        // The host API with backend::cuda.
        std::vector<T> r(count);
        sum(std::span<const T>(x), segments{offsets}, std::span<T>(r), {.mode = m, .backend = backend::cuda});
        expect_lines(
            r, [&](std::uint64_t k) { return sum(seg(x, k), one); }, "host backend::cuda sum " + what);
      }
      const options on_ws{.workspace = &ws};
      cuda::stats_async(dx.span(extent), s, std::span<statistics<T>>(st.data(), count), on_ws);
      expect_lines(
          to_host(st, count), [&](std::uint64_t k) { return stats(seg(x, k)); }, "stats " + what);
      // min and argmax refuse an empty segment, as the host does: these offsets have some, so the calls enqueue and
      // the next synchronize throws, naming the first. Without the empty segments every line is the host's.
      const std::uint64_t empty = first_empty_segment(offsets);
      device_array<std::uint64_t> at(count);
      cuda::min_async(dx.span(extent), s, std::span<T>(out.data(), count), on_ws);
      expect_empty_segment_error(on_ws, empty, "min " + what);
      cuda::argmax_async(dx.span(extent), s, std::span<std::uint64_t>(at.data(), count), on_ws);
      expect_empty_segment_error(on_ws, empty, "argmax " + what);
      const std::vector<std::uint64_t> filled = without_empty_segments(offsets);
      const std::uint64_t lines = filled.size() - 1;
      const on_device<std::uint64_t> dfilled(filled);
      const segments f{dfilled.span(filled.size())};
      cuda::min_async(dx.span(extent), f, std::span<T>(out.data(), lines), on_ws);
      EXPECT_NO_THROW(cuda::synchronize(on_ws)) << "min " << what;
      const std::vector<T> mins = to_host(out, lines);
      cuda::argmax_async(dx.span(extent), f, std::span<std::uint64_t>(at.data(), lines), on_ws);
      EXPECT_NO_THROW(cuda::synchronize(on_ws)) << "argmax " << what;
      const std::vector<std::uint64_t> where = to_host(at, lines);
      for (std::uint64_t k = 0; k < lines; ++k) {
        const std::span<const T> line(x.data() + filled[k], filled[k + 1] - filled[k]);
        EXPECT_TRUE(same_bits(mins[k], min(line))) << "min " << what << " non-empty line " << k;
        EXPECT_EQ(where[k], argmax(line)) << "argmax " << what << " non-empty line " << k;
        gpu_comparisons() += 2;
      }
    }
  }
}

// Short lines (at most one row of lanes) are most of what a batch of small segments runs, and their last row is
// ragged: every length 0..W + 1, starting at every offset within 16 bytes (whole 16-byte loads or one element at a
// time), in every value class (signed zeros and NaN payloads above all).
TYPED_TEST(GpuBatched, ShortSegmentsOfEveryLengthAndAlignment) {
  using T = TypeParam;
  constexpr std::uint64_t W = order::lanes<T>;
  cuda::workspace ws;
  std::vector<std::uint64_t> lengths;
  for (std::uint64_t length = 0; length <= W + 1; ++length) lengths.push_back(length);
  for (values v : all_value_classes()) {
    for (std::uint64_t gap = 0; gap < 16 / sizeof(T); ++gap) {
      std::uint64_t extent = 0;
      const std::vector<std::uint64_t> offsets = offsets_of(lengths, gap, extent);
      const std::vector<T> x = generate<T>(v, extent, 29 + gap);
      const std::vector<T> y = generate<T>(values::dynamic_range, extent, 31 + gap);
      const std::string what = name(v) + " gap " + std::to_string(gap);
      expect_segment_sums(x, y, offsets, ws, what);
      const std::uint64_t count = offsets.size() - 1;
      const on_device<T> dx(x);
      const on_device<std::uint64_t> doff(offsets);
      device_array<T> out(count);
      const options on_ws{.workspace = &ws};
      // Segment 0 is empty, which max refuses (synchronize throws); the offsets from the second on leave it out.
      cuda::max_async(dx.span(extent), segments{doff.span(offsets.size())}, std::span<T>(out.data(), count), on_ws);
      expect_empty_segment_error(on_ws, 0, "max " + what);
      cuda::max_async(dx.span(extent), segments{std::span<const std::uint64_t>(doff.array.data() + 1, count)},
                      std::span<T>(out.data() + 1, count - 1), on_ws);
      EXPECT_NO_THROW(cuda::synchronize(on_ws)) << "max " << what;
      const std::vector<T> maxes = to_host(out, count);
      for (std::uint64_t k = 1; k < count; ++k) {
        const std::span<const T> segment(x.data() + offsets[k], offsets[k + 1] - offsets[k]);
        EXPECT_TRUE(same_bits(maxes[k], max(segment))) << "max " << what << " line " << k;
      }
    }
  }
}

// Batches of thousands of short lines: uniform lengths around half a row and a row, random lengths up to W (lines
// starting at every alignment), and the same random lengths with a line longer than a row or than a leaf now and then
// (long lines listed between short ones), at several alignments of the first segment.
TYPED_TEST(GpuBatched, ThousandsOfShortSegmentsWithLongOnesAmongThem) {
  using T = TypeParam;
  constexpr std::uint64_t W = order::lanes<T>;
  constexpr std::uint64_t L = order::leaf_size<T>;
  cuda::workspace ws;
  rng r(41);
  std::vector<std::vector<std::uint64_t>> batches;
  for (std::uint64_t length : {W / 4, W / 2, W - 1, W}) batches.emplace_back(1000, length);
  std::vector<std::uint64_t> ragged(2000);
  for (auto& length : ragged) length = r.below(W + 1);
  batches.push_back(ragged);
  for (std::size_t i = 0; i < ragged.size(); i += 97 + r.below(50))
    ragged[i] = i % 2 == 0 ? W + 1 + r.below(W) : L + r.below(L);
  batches.push_back(ragged);
  for (values v : {values::uniform, values::with_nan, values::subnormal, values::signed_zeros, values::negative_zeros,
                   values::with_both_infs}) {
    for (std::size_t b = 0; b < batches.size(); ++b) {
      const std::uint64_t gap = b % (16 / sizeof(T)) + (v == values::uniform ? 0 : 1);
      expect_sums_of_lengths<T>(batches[b], gap, v, 43 + b, 47 + b, ws,
                                name(v) + " batch " + std::to_string(b) + " gap " + std::to_string(gap));
    }
  }
}

// Many lines longer than a leaf among short ones, and a few of more than 32 items (their item roots folded in
// several runs), through both ways of the long lines: the batch alone has lines of several leaves on average (the
// item map, then a fold pass); with 1500 more short lines the average is below a leaf (the list of long lines
// searched 32 entries a round, so its 180 lines take several rounds, and each line folded by the warp that stores
// its last root). In several value classes.
TYPED_TEST(GpuBatched, ManyLongSegmentsAndSomeOfManyItems) {
  using T = TypeParam;
  constexpr std::uint64_t W = order::lanes<T>;
  constexpr std::uint64_t L = order::leaf_size<T>;
  cuda::workspace ws;
  rng r(53);
  std::vector<std::uint64_t> long_mostly;
  for (int i = 0; i < 300; ++i) {
    long_mostly.push_back(r.below(10) < 4 ? r.below(W) : L + 1 + r.below(8 * L));
    if (i % 97 == 50) long_mostly.push_back((130 + r.below(20)) * L + r.below(L));
  }
  std::vector<std::uint64_t> short_mostly = long_mostly;
  for (int i = 0; i < 1500; ++i)
    short_mostly.insert(short_mostly.begin() + r.below(short_mostly.size() + 1), r.below(W));
  for (const auto& lengths : {long_mostly, short_mostly}) {
    for (values v : {values::uniform, values::ill_conditioned, values::with_nan, values::signed_zeros}) {
      expect_sums_of_lengths<T>(lengths, 1, v, 59, 61, ws,
                                name(v) + (lengths.size() > long_mostly.size() ? " short mostly" : " long mostly"));
    }
  }
}

// A few lines of many items each (32 or more on average, so that a block folds each line's item roots): a line of
// more than 32 groups of 32 items (its last group ragged, its last leaf too), one of two whole runs, one of a run and
// one item more, a line of one item, an empty line and a short one.
TYPED_TEST(GpuBatched, FewLinesOfThousandsOfItems) {
  using T = TypeParam;
  constexpr std::uint64_t L = order::leaf_size<T>;
  constexpr std::uint64_t item = 4 * L;  // leaves per work item (item_leaves, lib/cuda/batch.cu)
  cuda::workspace ws;
  const std::vector<std::uint64_t> lengths{1025 * item + L / 2 + 3, 0, 64 * item, 33 * item + 1, 3 * L, 7};
  for (values v : {values::uniform, values::ill_conditioned, values::with_nan}) {
    expect_sums_of_lengths<T>(lengths, 1, v, 67, 71, ws, name(v) + " thousands of items");
  }
}

/// sum and asum along `axis` of a device matrix, tree and compensated, each line against the CPU's single-array
/// call on that line of the host copy, bit for bit.
template <class T>
void expect_axis_sums(const matrix_view<T>& dev, const matrix_view<T>& host, int axis, cuda::workspace& ws,
                      const std::string& what) {
  const std::uint64_t count = axis == 0 ? host.cols : host.rows;
  const auto line = [&](std::uint64_t j) { return line_of(host, axis, j); };
  device_array<T> out(count);
  for (mode m : {mode::tree, mode::compensated}) {
    cuda::sum_async(dev, axis, std::span<T>(out.data(), count), {.mode = m, .workspace = &ws});
    expect_lines(
        to_host(out, count), [&](std::uint64_t j) { return sum(std::span<const T>(line(j)), {.mode = m}); },
        "sum " + what);
    cuda::asum_async(dev, axis, std::span<T>(out.data(), count), {.mode = m, .workspace = &ws});
    expect_lines(
        to_host(out, count), [&](std::uint64_t j) { return asum(std::span<const T>(line(j)), {.mode = m}); },
        "asum " + what);
  }
}

TYPED_TEST(GpuBatched, EveryAxisAndLayoutEqualsTheSingleArrayCall) {
  using T = TypeParam;
  cuda::workspace ws;
  for (const auto& [rows, cols] : matrix_shapes_with_wide_panels<T>()) {
    for (layout lay : {layout::row_major, layout::column_major}) {
      const std::uint64_t inner = lay == layout::row_major ? cols : rows;
      const std::uint64_t outer = lay == layout::row_major ? rows : cols;
      const std::uint64_t ld = inner + 3;
      const std::vector<T> data = generate<T>(values::dynamic_range, outer * ld + 1, rows + 7 * cols);
      const on_device<T> d(data);
      const matrix_view<T> host{data.data(), rows, cols, ld, lay};
      const matrix_view<T> dev{d.array.data(), rows, cols, ld, lay};
      for (int axis : {0, 1}) {
        const std::uint64_t count = axis == 0 ? cols : rows;
        const std::string what = std::to_string(rows) + "x" + std::to_string(cols) +
                                 (lay == layout::row_major ? " row-major" : " col-major") + " axis " +
                                 std::to_string(axis);
        const auto line = [&](std::uint64_t j) { return line_of(host, axis, j); };
        expect_axis_sums(dev, host, axis, ws, what);
        device_array<statistics<T>> st(count);
        cuda::stats_async(dev, axis, std::span<statistics<T>>(st.data(), count), {.workspace = &ws});
        expect_lines(
            to_host(st, count), [&](std::uint64_t j) { return stats(std::span<const T>(line(j))); }, "stats " + what);
        std::vector<T> r(count);
        nrm2(host, axis, std::span<T>(r), {.backend = backend::cuda});
        expect_lines(
            r, [&](std::uint64_t j) { return nrm2(std::span<const T>(line(j))); }, "host backend::cuda nrm2 " + what);
      }
    }
  }
}

/// The row counts of the strided lines of few rows (short_strided_pass takes up to 32, 8 lanes a thread up to 8):
/// around both limits, and the general strided pass just past them.
const std::vector<std::uint64_t> few_rows{1, 2, 3, 7, 8, 9, 16, 31, 32, 33, 64, 65};

/// Strided lines of few rows (columns of a row-major matrix, rows of a column-major one; the ranks' rows of
/// detred::nccl's sums): every row count around the short path's limits, a column count that leaves a ragged last
/// block, an aligned and a misaligned base, every value class with special values; sum and asum in tree and
/// compensated mode, sumsq, mean, nrm2 and max, each line against the CPU's single-array call.
TYPED_TEST(GpuBatched, StridedLinesOfFewRows) {
  using T = TypeParam;
  cuda::workspace ws;
  const std::vector<values> classes{values::dynamic_range, values::ill_conditioned, values::subnormal,
                                    values::signed_zeros,  values::with_nan,        values::with_both_infs};
  for (std::uint64_t length : few_rows) {
    for (std::uint64_t count : {std::uint64_t{1}, std::uint64_t{37}, std::uint64_t{4099}}) {
      // spacing 0, 1: lines packed (ld = count) or a misaligned start (ld = count + 1); 2: the data at offset 0 with
      // ld rounded up to a multiple of 8, rows aligned to 16 bytes and padded past the last line.
      for (std::uint64_t spacing : {0, 1, 2}) {
        const std::uint64_t first = spacing == 1 ? 1 : 0;
        for (layout lay : {layout::row_major, layout::column_major}) {
          const values v = classes[(length + count + spacing) % classes.size()];
          const bool row_major = lay == layout::row_major;
          const std::uint64_t rows = row_major ? length : count, cols = row_major ? count : length;
          const std::uint64_t ld = spacing == 2 ? (count + 7) / 8 * 8 : count + first;
          const std::vector<T> data = generate<T>(v, first + length * ld, length * 131 + count);
          const on_device<T> d(data);
          const matrix_view<T> host{data.data() + first, rows, cols, ld, lay};
          const matrix_view<T> dev{d.array.data() + first, rows, cols, ld, lay};
          const int axis = row_major ? 0 : 1;
          const std::string what = std::to_string(count) + " lines of " + std::to_string(length) + ", ld " +
                                   std::to_string(ld) + ", first " + std::to_string(first) + ", " + name(v);
          expect_axis_sums(dev, host, axis, ws, what);
          const auto line = [&](std::uint64_t j) { return line_of(host, axis, j); };
          std::vector<T> r(count);
          for (mode m : {mode::tree, mode::compensated}) {
            reduce<operation::sumsq, T>(host, axis, std::span<T>(r), {.mode = m, .backend = backend::cuda});
            expect_lines(
                r, [&](std::uint64_t j) { return reduce<operation::sumsq>(std::span<const T>(line(j)), {.mode = m}); },
                "sumsq " + what + " " + to_string(m));
            reduce<operation::mean, T>(host, axis, std::span<T>(r), {.mode = m, .backend = backend::cuda});
            expect_lines(
                r, [&](std::uint64_t j) { return reduce<operation::mean>(std::span<const T>(line(j)), {.mode = m}); },
                "mean " + what + " " + to_string(m));
          }
          nrm2(host, axis, std::span<T>(r), {.backend = backend::cuda});
          expect_lines(
              r, [&](std::uint64_t j) { return nrm2(std::span<const T>(line(j))); }, "nrm2 " + what);
          device_array<T> out(count);
          cuda::max_async(dev, axis, std::span<T>(out.data(), count), {.workspace = &ws});
          expect_lines(
              to_host(out, count), [&](std::uint64_t j) { return detred::max(std::span<const T>(line(j))); },
              "max " + what);
        }
      }
    }
  }
}

/// Strided lines read by whole loads: leading dimensions that keep every row's chunk of adjacent lines aligned, lines
/// of full leaves (one leaf alone is finalized by the leaf pass) and a ragged last one, a last tile of lines that
/// ends inside a thread's chunk, and a base pointer one element in (no whole loads at all).
TYPED_TEST(GpuBatched, AlignedStridedLinesOfFullLeaves) {
  using T = TypeParam;
  constexpr std::uint64_t L = order::leaf_size<T>;
  cuda::workspace ws;
  for (const auto& [length, count] :
       std::vector<std::pair<std::uint64_t, std::uint64_t>>{{L, 64}, {2 * L + 5, 67}, {3 * L, 130}, {L - 1, 3}}) {
    for (std::uint64_t pad : {0, 2}) {
      for (std::uint64_t first : {0, 1}) {
        for (layout lay : {layout::row_major, layout::column_major}) {
          const std::uint64_t ld = count + pad;
          const std::vector<T> data =
              generate<T>(first == 0 ? values::dynamic_range : values::with_nan, first + length * ld, length + count);
          const on_device<T> d(data);
          // Strided lines: columns of a row-major matrix (axis 0), rows of a column-major one (axis 1).
          const bool row_major = lay == layout::row_major;
          const std::uint64_t rows = row_major ? length : count, cols = row_major ? count : length;
          const matrix_view<T> host{data.data() + first, rows, cols, ld, lay};
          const matrix_view<T> dev{d.array.data() + first, rows, cols, ld, lay};
          const int axis = row_major ? 0 : 1;
          const std::string what = std::to_string(count) + " lines of " + std::to_string(length) + ", ld " +
                                   std::to_string(ld) + ", first " + std::to_string(first);
          expect_axis_sums(dev, host, axis, ws, what);
          const auto line = [&](std::uint64_t j) { return line_of(host, axis, j); };
          device_array<T> out(count);
          cuda::max_async(dev, axis, std::span<T>(out.data(), count), {.workspace = &ws});
          expect_lines(
              to_host(out, count), [&](std::uint64_t j) { return detred::max(std::span<const T>(line(j))); },
              "max " + what);
        }
      }
    }
  }
}

/// Contiguous rows of one length (row-major, axis 1) past what a group of the lines pass takes: the uniform-rows
/// kernel for rows of up to 8 items (a warp an item, 8 / items rows a block, more rows than blocks so that blocks
/// loop), the general path past that; aligned and misaligned rows, a padded leading dimension, special values.
TYPED_TEST(GpuBatched, RowsOfOneLengthEqualTheSingleArrayCall) {
  using T = TypeParam;
  constexpr std::uint64_t L = order::leaf_size<T>;
  cuda::workspace ws;
  const std::vector<std::pair<std::uint64_t, std::uint64_t>> shapes = {
      {L / 4 + 1, 3000}, {L - 1, 67}, {L, 1},          {L + 1, 67}, {4 * L, 3},      {4 * L + 1, 67},
      {9 * L + 5, 19},   {12 * L, 5}, {16 * L - 3, 9}, {32 * L, 3}, {32 * L + 1, 3}, {40 * L + 7, 2}};
  for (const auto& [cols, rows] : shapes) {
    for (std::uint64_t pad : {0, 1}) {
      for (std::uint64_t first : {0, 1}) {
        const std::uint64_t ld = cols + pad;
        const std::vector<T> data =
            generate<T>(first == 0 ? values::dynamic_range : values::with_nan, first + rows * ld, cols + 3 * rows);
        const on_device<T> d(data);
        const matrix_view<T> host{data.data() + first, rows, cols, ld, layout::row_major};
        const matrix_view<T> dev{d.array.data() + first, rows, cols, ld, layout::row_major};
        const std::string what = std::to_string(rows) + " rows of " + std::to_string(cols) + ", ld " +
                                 std::to_string(ld) + ", first " + std::to_string(first);
        expect_axis_sums(dev, host, 1, ws, what);
        const auto line = [&](std::uint64_t j) { return line_of(host, 1, j); };
        device_array<statistics<T>> st(rows);
        cuda::stats_async(dev, 1, std::span<statistics<T>>(st.data(), rows), {.workspace = &ws});
        expect_lines(
            to_host(st, rows), [&](std::uint64_t j) { return stats(std::span<const T>(line(j))); }, "stats " + what);
        device_array<T> out(rows);
        cuda::min_async(dev, 1, std::span<T>(out.data(), rows), {.workspace = &ws});
        expect_lines(
            to_host(out, rows), [&](std::uint64_t j) { return detred::min(std::span<const T>(line(j))); },
            "min " + what);
      }
    }
  }
}

TYPED_TEST(GpuBatched, EachBinEqualsItsValuesInIndexOrder) {
  using T = TypeParam;
  cuda::workspace ws;
  const std::uint64_t n = 40 * order::leaf_size<T> + 3;
  const std::vector<T> x = generate<T>(values::ill_conditioned, n, 41);
  const on_device<T> dx(x);
  for (std::uint64_t bins : {std::uint64_t{1}, std::uint64_t{5}, std::uint64_t{3000}, std::uint64_t{70000}}) {
    for (bool skewed : {false, true}) {
      const std::vector<std::uint32_t> keys = random_keys<std::uint32_t>(n, bins, skewed, bins);
      const on_device<std::uint32_t> dk(keys);
      std::vector<std::vector<T>> groups(bins);
      for (std::uint64_t i = 0; i < n; ++i) groups[keys[i]].push_back(x[i]);
      device_array<T> out(bins);
      for (mode m : {mode::tree, mode::compensated}) {
        cuda::sum_by_key(dx.span(n), dk.span(n), std::span<T>(out.data(), bins), {.mode = m, .workspace = &ws});
        expect_lines(
            to_host(out, bins), [&](std::uint64_t b) { return sum(std::span<const T>(groups[b]), {.mode = m}); },
            "sum_by_key bins " + std::to_string(bins) + (skewed ? " skewed" : " uniform"));
      }
    }
  }
  std::vector<std::uint32_t> bad(n, 0);
  bad[n / 2] = 9;
  const on_device<std::uint32_t> dbad(bad);
  device_array<T> out(4);
  try {
    cuda::sum_by_key(dx.span(n), dbad.span(n), std::span<T>(out.data(), 4), {.workspace = &ws});
    ADD_FAILURE() << "a key past the bins was accepted";
  } catch (const error& e) {
    EXPECT_NE(std::string(e.what()).find("the key at index " + std::to_string(n / 2) + " is not a bin"),
              std::string::npos)
        << e.what();
  }
}

// The reductions of 16-bit floats (float16, bfloat16) in batches: each float result against the CPU's single-array
// call on the line alone (a 16-bit array), bit for bit. The sum through cuda::sum_async and the host call with
// backend::cuda; dot, sumsq and mean through detred::reduce with backend::cuda (they have no device-memory call).
using HalfTypes = ::testing::Types<float16, bfloat16>;
template <class H>
class GpuHalfBatched : public TypedGpu<H> {};
TYPED_TEST_SUITE(GpuHalfBatched, HalfTypes);

/// cuda::sum_async over device segments of x, in every mode (exact: widened on the device, then the float exact
/// kernels), and the host calls with backend::cuda (sum, dot with y = the values reversed, sumsq, mean), against the
/// CPU's single-array call on each segment alone.
template <class H>
void expect_half_segments(const std::vector<H>& x, const std::vector<std::uint64_t>& offsets, cuda::workspace& ws,
                          const std::string& what) {
  const std::vector<H> y(x.rbegin(), x.rend());
  const std::uint64_t extent = x.size();
  const std::uint64_t count = offsets.size() - 1;
  const on_device<H> dx(x);
  const on_device<std::uint64_t> doff(offsets);
  device_array<float> out(count);
  const auto seg = [&](std::uint64_t k) {
    return std::span<const H>(x.data() + offsets[k], offsets[k + 1] - offsets[k]);
  };
  const auto yseg = [&](std::uint64_t k) {
    return std::span<const H>(y.data() + offsets[k], offsets[k + 1] - offsets[k]);
  };
  for (mode m : {mode::tree, mode::compensated, mode::exact}) {
    const options gpu{.mode = m, .backend = backend::cuda};
    std::vector<float> other(count);
    reduce<operation::dot, H>(std::span<const H>(x), std::span<const H>(y), segments{offsets}, std::span<float>(other),
                              gpu);
    expect_lines(
        other, [&](std::uint64_t k) { return dot(seg(k), yseg(k), {.mode = m}); },
        "host backend::cuda dot " + what + " " + to_string(m));
    reduce<operation::sumsq, H>(std::span<const H>(x), segments{offsets}, std::span<float>(other), gpu);
    expect_lines(
        other, [&](std::uint64_t k) { return reduce<operation::sumsq>(seg(k), {.mode = m}); },
        "host backend::cuda sumsq " + what + " " + to_string(m));
    reduce<operation::mean, H>(std::span<const H>(x), segments{offsets}, std::span<float>(other), gpu);
    expect_lines(
        other, [&](std::uint64_t k) { return reduce<operation::mean>(seg(k), {.mode = m}); },
        "host backend::cuda mean " + what + " " + to_string(m));
    cuda::sum_async(dx.span(extent), segments{doff.span(offsets.size())}, std::span<float>(out.data(), count),
                    {.mode = m, .workspace = &ws});
    expect_lines(
        to_host(out, count), [&](std::uint64_t k) { return sum(seg(k), {.mode = m}); },
        "sum " + what + " " + to_string(m));
    std::vector<float> r(count);
    sum(std::span<const H>(x), segments{offsets}, std::span<float>(r), {.mode = m, .backend = backend::cuda});
    expect_lines(
        r, [&](std::uint64_t k) { return sum(seg(k), {.mode = m}); },
        "host backend::cuda sum " + what + " " + to_string(m));
  }
}

TYPED_TEST(GpuHalfBatched, EverySegmentEqualsTheSingleArrayCall) {
  using H = TypeParam;
  constexpr std::uint64_t W = order::lanes<float>;
  constexpr std::uint64_t L = order::leaf_size<float>;
  cuda::workspace ws;
  // Lengths around the float lanes and leaves the elements are summed in; every length up to a row and past it at
  // every offset within 16 bytes (whole loads or one element at a time); a few lines of many work items.
  std::vector<std::uint64_t> short_lengths;
  for (std::uint64_t length = 0; length <= W + 1; ++length) short_lengths.push_back(length);
  const std::uint64_t item = 4 * L;  // leaves per work item (item_leaves, lib/cuda/batch.cu)
  const std::vector<std::uint64_t> long_lengths{33 * item + L / 2 + 3, 0, 2 * item, 3 * L, 7};
  for (half_values v : all_half_values) {
    for (std::uint64_t gap = 0; gap < 16 / sizeof(H); ++gap) {
      std::uint64_t extent = 0;
      std::vector<std::uint64_t> offsets = offsets_of(segment_lengths<float>(31 + gap), gap, extent);
      const std::string what = name(v) + " gap " + std::to_string(gap);
      expect_half_segments(half_batch_values<H>(v, extent, 17 + gap), offsets, ws, what);
      offsets = offsets_of(short_lengths, gap, extent);
      expect_half_segments(half_batch_values<H>(v, extent, 19 + gap), offsets, ws, "short " + what);
    }
    std::uint64_t extent = 0;
    const std::vector<std::uint64_t> offsets = offsets_of(long_lengths, 1, extent);
    expect_half_segments(half_batch_values<H>(v, extent, 23), offsets, ws, "many items " + name(v));
  }
}

TYPED_TEST(GpuHalfBatched, EveryAxisAndLayoutEqualsTheSingleArrayCall) {
  using H = TypeParam;
  cuda::workspace ws;
  for (const auto& [rows, cols] : matrix_shapes_with_wide_panels<float>()) {
    for (layout lay : {layout::row_major, layout::column_major}) {
      for (std::uint64_t first : {0, 1}) {  // one element in: no whole loads of a line's chunk
        const std::uint64_t inner = lay == layout::row_major ? cols : rows;
        const std::uint64_t outer = lay == layout::row_major ? rows : cols;
        const std::uint64_t ld = inner + 3;
        const half_values v = first == 0 ? half_values::moderate : half_values::specials;
        const std::vector<H> data = half_batch_values<H>(v, first + outer * ld + 1, rows + 7 * cols);
        const on_device<H> d(data);
        const matrix_view<H> host{data.data() + first, rows, cols, ld, lay};
        const matrix_view<H> dev{d.array.data() + first, rows, cols, ld, lay};
        for (int axis : {0, 1}) {
          const std::uint64_t count = axis == 0 ? cols : rows;
          const std::string what = std::to_string(rows) + "x" + std::to_string(cols) +
                                   (lay == layout::row_major ? " row-major" : " col-major") + " axis " +
                                   std::to_string(axis) + " " + name(v);
          const auto line = [&](std::uint64_t j) { return line_of(host, axis, j); };
          device_array<float> out(count);
          for (mode m : {mode::tree, mode::compensated, mode::exact}) {
            cuda::sum_async(dev, axis, std::span<float>(out.data(), count), {.mode = m, .workspace = &ws});
            expect_lines(
                to_host(out, count), [&](std::uint64_t j) { return sum(std::span<const H>(line(j)), {.mode = m}); },
                "sum " + what + " " + to_string(m));
            std::vector<float> r(count);
            sum(host, axis, std::span<float>(r), {.mode = m, .backend = backend::cuda});
            expect_lines(
                r, [&](std::uint64_t j) { return sum(std::span<const H>(line(j)), {.mode = m}); },
                "host backend::cuda sum " + what + " " + to_string(m));
            reduce<operation::mean, H>(host, axis, std::span<float>(r), {.mode = m, .backend = backend::cuda});
            expect_lines(
                r, [&](std::uint64_t j) { return reduce<operation::mean>(std::span<const H>(line(j)), {.mode = m}); },
                "host backend::cuda mean " + what + " " + to_string(m));
            reduce<operation::sumsq, H>(host, axis, std::span<float>(r), {.mode = m, .backend = backend::cuda});
            expect_lines(
                r, [&](std::uint64_t j) { return reduce<operation::sumsq>(std::span<const H>(line(j)), {.mode = m}); },
                "host backend::cuda sumsq " + what + " " + to_string(m));
          }
        }
      }
    }
  }
}

/// The 16-bit strided lines of few rows (detred::nccl sums its 16-bit blocks this way, widening each element as
/// it is loaded): sums in every mode, each line against the CPU's single-array call.
TYPED_TEST(GpuHalfBatched, StridedLinesOfFewRows) {
  using H = TypeParam;
  cuda::workspace ws;
  for (std::uint64_t length : few_rows) {
    for (std::uint64_t count : {std::uint64_t{5}, std::uint64_t{4099}}) {
      // first 0, 1: ld = count, packed or from a misaligned start; first 2: the data at offset 0 with ld rounded up to
      // a multiple of 8, rows aligned to 16 bytes and padded past the last column.
      for (std::uint64_t first : {0, 1, 2}) {
        const half_values v = first == 0 ? half_values::moderate : half_values::specials;
        const std::uint64_t offset = first == 2 ? 0 : first;
        const std::uint64_t ld = first == 2 ? (count + 7) / 8 * 8 : count;
        const std::vector<H> data = half_batch_values<H>(v, offset + length * ld, length * 17 + count);
        const on_device<H> d(data);
        const matrix_view<H> host{data.data() + offset, length, count, ld, layout::row_major};
        const matrix_view<H> dev{d.array.data() + offset, length, count, ld, layout::row_major};
        const std::string what = std::to_string(count) + " columns of " + std::to_string(length) + ", ld " +
                                 std::to_string(ld) + ", first " + std::to_string(first) + " " + name(v);
        const auto line = [&](std::uint64_t j) { return line_of(host, 0, j); };
        device_array<float> out(count);
        for (mode m : {mode::tree, mode::compensated, mode::exact}) {
          cuda::sum_async(dev, 0, std::span<float>(out.data(), count), {.mode = m, .workspace = &ws});
          expect_lines(
              to_host(out, count), [&](std::uint64_t j) { return sum(std::span<const H>(line(j)), {.mode = m}); },
              "sum " + what + " " + to_string(m));
        }
      }
    }
  }
}

}  // namespace
}  // namespace detred::testing
