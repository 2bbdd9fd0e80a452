// SPDX-License-Identifier: BSD-3-Clause
// detred::cuda::rms_norm_rows, sum_rows and sum_columns against their definitions (detred/cuda_norm_rows.hpp) computed
// on the host: each row's detred::sumsq (detred::sum) on the CPU, then the stated roundings one operation at a time.
// Bit for bit, over rows on both sides of the kernel's 16-byte path (aligned rows, cols a multiple of the vector) and
// its element path (odd cols, a misaligned start, padded rows), rows of one leaf and of many, more rows than the grid,
// special values, both modes; rows short enough for the one-kernel path (the row pass's finisher) and longer ones (two
// kernels); columns of up to 32 rows (one kernel) and more. The sums' bits are compared NaN included.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "detred/cuda.hpp"
#include "detred/detred.hpp"
#include "detred/reduce.hpp"
#include "gpu_paths.hpp"

namespace detred::testing {
namespace {

template <class T>
using accumulation = std::conditional_t<std::is_same_v<T, double>, double, float>;

template <class T>
accumulation<T> widen(T v) {
  if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
    return to_float(v);
  } else {
    return v;
  }
}

/// IEEE round to nearest even of a float to a 16-bit float; a NaN to the canonical quiet NaN.
template <class T>
T narrow(accumulation<T> v) {
  if constexpr (std::is_same_v<T, bfloat16>) {
    std::uint32_t u = 0;
    std::memcpy(&u, &v, sizeof u);
    if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<T>(0x7fc0);
    return static_cast<T>(static_cast<std::uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16));
  } else if constexpr (std::is_same_v<T, float16>) {
    const _Float16 h = static_cast<_Float16>(v);  // IEEE conversion: round to nearest even
    std::uint16_t bits = 0;
    std::memcpy(&bits, &h, sizeof bits);
    return static_cast<T>(bits);
  } else {
    return v;
  }
}

template <class T>
bool is_nan(T v) {
  return std::isnan(static_cast<double>(widen(v)));
}

/// Same bits, or both NaN: for rms_norm's element-wise outputs (the GPU's arithmetic makes every NaN its canonical
/// one; the host's keeps payloads).
template <class T>
bool same(T a, T b) {
  if (is_nan(a) && is_nan(b)) return true;
  return std::memcmp(&a, &b, sizeof a) == 0;
}

/// Same bits, NaN included: for the sums, whose NaN is canonical on both sides (and 0x7e00 / 0x7fc0 once rounded).
template <class T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

struct shape {
  std::uint64_t rows, cols, ld, offset;
};

/// The storage of a shape's matrix, the offset before it and one element past it, every element a normal value
/// rounded to T (drawn in order from `normal`, which the caller goes on using).
template <class T>
std::vector<T> normal_matrix(const shape& s, std::mt19937_64& rng, std::normal_distribution<double>& normal) {
  const std::uint64_t extent = s.offset + (s.rows == 0 ? 0 : (s.rows - 1) * s.ld + s.cols);
  std::vector<T> x(extent + 1);
  for (T& e : x) e = narrow<T>(static_cast<accumulation<T>>(normal(rng)));
  return x;
}

template <class T>
class GpuNormRows : public TypedGpu<T> {};
using NormTypes = ::testing::Types<double, float, float16, bfloat16>;
TYPED_TEST_SUITE(GpuNormRows, NormTypes);

TYPED_TEST(GpuNormRows, RmsNormRowsFollowTheirDefinitionBitForBit) {
  using T = TypeParam;
  using A = accumulation<T>;
  const std::vector<shape> shapes = {{3, 8, 8, 0},           {5, 1, 1, 0},       {2, 7, 9, 1},
                                     {4, 2048, 2048, 0},     {3, 2049, 2056, 0}, {2, 8192, 8192, 3},
                                     {1, 65544, 65544, 0},   {70000, 8, 8, 0},   {2, 140000, 140000, 0},
                                     {2, 140001, 140003, 1}, {0, 16, 16, 0},     {3, 0, 0, 0}};
  std::mt19937_64 rng(2024);
  std::normal_distribution<double> normal(0.0, 3.0);
  for (const shape& s : shapes) {
    std::vector<T> x = normal_matrix<T>(s, rng, normal);
    if (s.rows > 1 && s.cols > 0) {
      x[s.offset + s.ld] = narrow<T>(std::numeric_limits<A>::quiet_NaN());                // row 1 is NaN
      x[s.offset + (s.rows - 1) * s.ld] = narrow<T>(std::numeric_limits<A>::infinity());  // the last row too
      x[s.offset + 1 % s.cols] = narrow<T>(static_cast<A>(std::ldexp(1.0, -133)));        // a subnormal (or 0)
    }
    std::vector<T> w(s.cols);
    for (T& e : w) e = narrow<T>(static_cast<A>(normal(rng)));
    device_array<T> dx(x.size()), dw(w.size()), dy(s.rows * s.cols + 1);
    device_array<A> dr(s.rows + 1);
    ASSERT_TRUE(dx.ok() && dw.ok() && dy.ok() && dr.ok());
    DETRED_CUDA_OK(cudaMemcpy(dx.data(), x.data(), x.size() * sizeof(T), cudaMemcpyHostToDevice));
    DETRED_CUDA_OK(cudaMemcpy(dw.data(), w.data(), w.size() * sizeof(T), cudaMemcpyHostToDevice));
    for (const mode m : {mode::tree, mode::compensated}) {
      for (const bool weighted : {true, false}) {
        const matrix_view<T> view{dx.data() + s.offset, s.rows, s.cols, s.ld};
        const std::span<const T> weight = weighted ? std::span<const T>(dw.data(), s.cols) : std::span<const T>();
        cuda::rms_norm_rows(view, weight, 1e-6, std::span<T>(dy.data(), s.rows * s.cols),
                            std::span<A>(dr.data(), s.rows), {.mode = m});
        std::vector<T> y(s.rows * s.cols);
        std::vector<A> rstd(s.rows);
        if (s.rows > 0) {
          DETRED_CUDA_OK(cudaMemcpy(y.data(), dy.data(), y.size() * sizeof(T), cudaMemcpyDeviceToHost));
          DETRED_CUDA_OK(cudaMemcpy(rstd.data(), dr.data(), rstd.size() * sizeof(A), cudaMemcpyDeviceToHost));
        }
        for (std::uint64_t k = 0; k < s.rows; ++k) {
          const std::span<const T> row(x.data() + s.offset + k * s.ld, s.cols);
          const A sum = reduce<operation::sumsq>(row, {.mode = m, .threads = 1});
          const A v =
              static_cast<A>(static_cast<A>(static_cast<double>(sum) / static_cast<double>(static_cast<A>(s.cols))) +
                             static_cast<A>(1e-6));
          const A r = static_cast<A>(1.0 / std::sqrt(static_cast<double>(v)));
          ASSERT_TRUE(same(rstd[k], r)) << s.rows << " x " << s.cols << " row " << k << ": rstd " << rstd[k]
                                        << ", want " << r;
          for (std::uint64_t j = 0; j < s.cols; ++j) {
            const A p = widen(row[j]) * r;
            const T want = narrow<T>(weighted ? static_cast<A>(p * widen(w[j])) : p);
            ASSERT_TRUE(same(y[k * s.cols + j], want))
                << s.rows << " x " << s.cols << " ld " << s.ld << " offset " << s.offset << " row " << k << " col " << j
                << (weighted ? " weighted" : "") << " mode " << static_cast<int>(m);
          }
        }
      }
    }
  }
}

TYPED_TEST(GpuNormRows, SumRowsAreEachRowsSumRoundedOnce) {
  using T = TypeParam;
  using A = accumulation<T>;
  // One-kernel rows (up to 2^17 floats), longer rows and exact mode (the batched sums, then the rounding), empty
  // rows, misaligned and padded rows, more rows than the grid.
  const std::vector<shape> shapes = {
      {3, 8, 8, 0},     {5, 1, 1, 0},           {2, 7, 9, 1},           {4, 4096, 4096, 0}, {3, 4097, 4104, 1},
      {70000, 8, 8, 0}, {2, 140000, 140000, 0}, {2, 140001, 140003, 1}, {0, 16, 16, 0},     {3, 0, 0, 0}};
  std::mt19937_64 rng(77);
  std::normal_distribution<double> normal(0.0, 3.0);
  for (const shape& s : shapes) {
    std::vector<T> x = normal_matrix<T>(s, rng, normal);
    if (s.rows > 2 && s.cols > 0) {
      x[s.offset + s.ld] = narrow<T>(std::numeric_limits<A>::quiet_NaN());  // row 1 is NaN
      // Row 2 sums past the 16-bit float's range (float16: 65504), so that its rounding overflows to infinity.
      for (std::uint64_t j = 0; j < s.cols; ++j) x[s.offset + 2 * s.ld + j] = narrow<T>(static_cast<A>(40000.0));
    }
    device_array<T> dx(x.size()), dy(s.rows + 1);
    ASSERT_TRUE(dx.ok() && dy.ok());
    DETRED_CUDA_OK(cudaMemcpy(dx.data(), x.data(), x.size() * sizeof(T), cudaMemcpyHostToDevice));
    for (const mode m : {mode::tree, mode::compensated, mode::exact}) {
      const matrix_view<T> view{dx.data() + s.offset, s.rows, s.cols, s.ld};
      cuda::sum_rows(view, std::span<T>(dy.data(), s.rows), {.mode = m});
      std::vector<T> y(s.rows);
      if (s.rows > 0) DETRED_CUDA_OK(cudaMemcpy(y.data(), dy.data(), y.size() * sizeof(T), cudaMemcpyDeviceToHost));
      for (std::uint64_t k = 0; k < s.rows; ++k) {
        const std::span<const T> row(x.data() + s.offset + k * s.ld, s.cols);
        const T want = narrow<T>(reduce<operation::sum>(row, {.mode = m, .threads = 1}));
        ASSERT_TRUE(same_bits(y[k], want)) << s.rows << " x " << s.cols << " ld " << s.ld << " offset " << s.offset
                                           << " row " << k << " mode " << static_cast<int>(m);
      }
    }
  }
}

TYPED_TEST(GpuNormRows, SumColumnsAreEachColumnsSumRoundedOnce) {
  using T = TypeParam;
  using A = accumulation<T>;
  // Row counts around the one-kernel path's limits (8 and 32 rows) and past them (the batched sums, then the
  // rounding); leading dimensions packed, odd, padded to a multiple of 8 and from a misaligned start; exact mode, no
  // rows (every sum -0.0), no columns; every column a special case by its index: a NaN, an overflow of the 16-bit
  // type, all -0.0, a subnormal, an infinity.
  const std::vector<shape> shapes = {{1, 37, 37, 0},      {2, 37, 40, 1},     {3, 4099, 4099, 0}, {7, 37, 37, 1},
                                     {8, 4099, 4100, 0},  {9, 37, 37, 0},     {16, 1, 1, 0},      {31, 37, 39, 1},
                                     {32, 4099, 4099, 0}, {33, 37, 37, 0},    {64, 37, 37, 1},    {65, 4099, 4099, 0},
                                     {4, 37, 40, 0},      {8, 4099, 4104, 0}, {31, 37, 40, 0},    {1, 4096, 4096, 0},
                                     {0, 16, 16, 0},      {3, 0, 0, 0}};
  std::mt19937_64 rng(78);
  std::normal_distribution<double> normal(0.0, 3.0);
  for (const shape& s : shapes) {
    std::vector<T> x = normal_matrix<T>(s, rng, normal);
    const auto at = [&](std::uint64_t k, std::uint64_t j) -> T& { return x[s.offset + k * s.ld + j]; };
    for (std::uint64_t j = 0; j < s.cols; ++j) {
      for (std::uint64_t k = 0; k < s.rows; ++k) {
        switch (j % 11) {
          case 1:
            if (k == s.rows / 2) at(k, j) = narrow<T>(std::numeric_limits<A>::quiet_NaN());
            break;
          case 2:  // float16: past 65504 from two rows on
            at(k, j) = narrow<T>(static_cast<A>(40000.0));
            break;
          case 3:
            at(k, j) = narrow<T>(static_cast<A>(-0.0));
            break;
          case 4:
            at(k, j) = narrow<T>(static_cast<A>(k == 0 ? std::ldexp(1.0, -133) : 0.0));
            break;
          case 5:
            if (k + 1 == s.rows) at(k, j) = narrow<T>(-std::numeric_limits<A>::infinity());
            break;
          default:
            break;
        }
      }
    }
    device_array<T> dx(x.size()), dy(s.cols + 1);
    ASSERT_TRUE(dx.ok() && dy.ok());
    DETRED_CUDA_OK(cudaMemcpy(dx.data(), x.data(), x.size() * sizeof(T), cudaMemcpyHostToDevice));
    std::vector<T> column(s.rows);
    for (const mode m : {mode::tree, mode::compensated, mode::exact}) {
      const matrix_view<T> view{dx.data() + s.offset, s.rows, s.cols, s.ld};
      cuda::sum_columns(view, std::span<T>(dy.data(), s.cols), {.mode = m});
      std::vector<T> y(s.cols);
      if (s.cols > 0) DETRED_CUDA_OK(cudaMemcpy(y.data(), dy.data(), y.size() * sizeof(T), cudaMemcpyDeviceToHost));
      for (std::uint64_t j = 0; j < s.cols; ++j) {
        for (std::uint64_t k = 0; k < s.rows; ++k) column[k] = at(k, j);
        const T want = narrow<T>(reduce<operation::sum>(std::span<const T>(column), {.mode = m, .threads = 1}));
        ASSERT_TRUE(same_bits(y[j], want)) << s.rows << " x " << s.cols << " ld " << s.ld << " offset " << s.offset
                                           << " column " << j << " mode " << static_cast<int>(m);
      }
    }
  }
}

TYPED_TEST(GpuNormRows, BadArgumentsAreRefusedByName) {
  using T = TypeParam;
  using A = accumulation<T>;
  device_array<T> dx(64), dy(64);
  device_array<A> dr(8);
  ASSERT_TRUE(dx.ok() && dy.ok() && dr.ok());
  const matrix_view<T> x{dx.data(), 8, 8, 8};
  const std::span<T> y(dy.data(), 64);
  const std::span<A> rstd(dr.data(), 8);
  const auto refused = [](auto&& call, const std::string& words) {
    try {
      call();
      ADD_FAILURE() << "accepted; expected a refusal naming: " << words;
    } catch (const error& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  refused([&] { cuda::rms_norm_rows(x, {}, 1e-6, y.first(63), rstd); }, "y holds 63 elements");
  refused([&] { cuda::rms_norm_rows(x, {}, 1e-6, y, rstd.first(7)); }, "results span holds 7");
  refused([&] { cuda::rms_norm_rows(x, std::span<const T>(dx.data(), 7), 1e-6, y, rstd); }, "weight holds 7");
  refused([&] { cuda::rms_norm_rows(matrix_view<T>{dx.data(), 8, 8, 7}, {}, 1e-6, y, rstd); }, "leading dimension");
  refused(
      [&] {
        cuda::rms_norm_rows(matrix_view<T>{dx.data(), 8, 8, 8, layout::column_major}, {}, 1e-6, y, rstd);
      },
      "row-major");
  refused([&] { cuda::rms_norm_rows(x, {}, 1e-6, y, rstd, {.mode = mode::exact}); }, "mode::exact");
  refused([&] { cuda::sum_rows(x, y.first(7)); }, "results span holds 7");
  refused([&] { cuda::sum_rows(matrix_view<T>{dx.data(), 8, 8, 7}, y.first(8)); }, "leading dimension");
  refused([&] { cuda::sum_rows(matrix_view<T>{dx.data(), 8, 8, 8, layout::column_major}, y.first(8)); }, "row-major");
  refused([&] { cuda::sum_columns(matrix_view<T>{dx.data(), 8, 9, 9}, y.first(8)); }, "results span holds 8");
  refused([&] { cuda::sum_columns(matrix_view<T>{dx.data(), 8, 8, 7}, y.first(8)); }, "leading dimension");
  refused(
      [&] {
        cuda::sum_columns(matrix_view<T>{dx.data(), 8, 8, 8, layout::column_major}, y.first(8));
      },
      "row-major");
  // An unknown mode is refused even where there is nothing to sum.
  const auto unknown = options{.mode = static_cast<mode>(7)};
  refused([&] { cuda::sum_rows(matrix_view<T>{dx.data(), 0, 8, 8}, y.first(0), unknown); }, "unknown mode 7");
  refused([&] { cuda::sum_columns(matrix_view<T>{dx.data(), 8, 0, 1}, y.first(0), unknown); }, "unknown mode 7");
}

}  // namespace
}  // namespace detred::testing
