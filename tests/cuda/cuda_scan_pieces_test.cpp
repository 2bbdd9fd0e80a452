// SPDX-License-Identifier: BSD-3-Clause
// The pieces of one array in device memory (detred::cuda::cumsum_totals, cumsum_piece): for arrays split at leaf
// boundaries in many ways (empty pieces, one-leaf pieces, a short last leaf, sizes past the leaf tree's powers of
// two), the GPU's leaf totals have the host calls' bits and every piece's outputs have the bits of the one-call
// scan of the whole array (detred::cumsum on the CPU), synchronous, async and in place; totals mix between the host
// and the GPU; bad arguments are refused with the host calls' words.
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "detred/cuda.hpp"
#include "detred/detred.hpp"
#include "detred/order/scan.hpp"
#include "gpu_paths.hpp"

namespace detred::testing {
namespace {

using FloatTypes = ::testing::Types<float, double>;
template <class T>
class GpuScanPieces : public TypedGpu<T> {};
TYPED_TEST_SUITE(GpuScanPieces, FloatTypes);

class GpuScanPieceRules : public Gpu {};

/// Totals are the same where their bits are, or both are NaNs: a NaN's sign and payload inside a total depend on the
/// path that made it (SIMD lanes, the GPU), and every output that a NaN total reaches is the canonical NaN.
template <class T>
bool same_total(const scan_total<T>& a, const scan_total<T>& b) {
  const auto same = [](T u, T v) { return bits(u) == bits(v) || (u != u && v != v); };
  return same(a.sum, b.sum) && same(a.correction, b.correction);
}

/// Piece boundaries of an array of n elements (in elements, first 0, last n), at leaf boundaries: random runs of
/// 0 to `most` leaves, the last piece taking the rest.
template <class T>
std::vector<std::uint64_t> leaf_cuts(std::uint64_t n, std::uint64_t most, std::uint64_t seed) {
  constexpr std::uint64_t L = order::leaf_size<T>;
  rng random(seed);
  std::vector<std::uint64_t> cuts = {0};
  while (cuts.back() + L < n) {
    const std::uint64_t leaves = random.next() % (most + 1);
    cuts.push_back(std::min(cuts.back() + leaves * L, n / L * L));
  }
  cuts.push_back(n);
  return cuts;
}

/// x split at `cuts`: each piece's totals on the GPU against the host call's, then each piece's outputs against the
/// one-call CPU scan; the second round scans every piece in place with the async calls on a stream.
template <class In, class T>
void expect_pieces(const std::vector<In>& x, const std::vector<std::uint64_t>& cuts, mode m, const std::string& what) {
  constexpr std::uint64_t L = order::leaf_size<T>;
  const std::uint64_t n = x.size();
  const std::uint64_t leaves = order::leaf_count<T>(n);
  const options host{.mode = m};
  std::vector<T> expected(n);
  cumsum(std::span<const In>(x), std::span<T>(expected), host);
  std::vector<scan_total<T>> host_totals(leaves);
  cumsum_totals(std::span<const In>(x), std::span<scan_total<T>>(host_totals), host);

  device_array<In> dx(n + 1);
  device_array<T> dy(n + 1);
  device_array<scan_total<T>> dt(leaves + 1);
  ASSERT_TRUE(dx.ok() && dy.ok() && dt.ok());
  const options gpu{.mode = m, .workspace = &test_workspace()};
  upload(x, dx.data());
  for (std::uint64_t p = 0; p + 1 < cuts.size(); ++p) {
    const std::uint64_t a = cuts[p];
    const std::uint64_t b = cuts[p + 1];
    cuda::cumsum_totals(std::span<const In>(dx.data() + a, b - a),
                        std::span<scan_total<T>>(dt.data() + a / L, order::leaf_count<T>(b - a)), gpu);
  }
  const std::vector<scan_total<T>> got_totals = download(dt.data(), leaves);
  for (std::uint64_t i = 0; i < leaves; ++i) {
    if (!same_total(got_totals[i], host_totals[i])) {
      ADD_FAILURE() << what << ": leaf total " << i << " of " << leaves << " is (" << got_totals[i].sum << ", "
                    << got_totals[i].correction << "), the host's (" << host_totals[i].sum << ", "
                    << host_totals[i].correction << ")";
      return;
    }
  }
  for (std::uint64_t p = 0; p + 1 < cuts.size(); ++p) {
    const std::uint64_t a = cuts[p];
    const std::uint64_t b = cuts[p + 1];
    cuda::cumsum_piece(std::span<const In>(dx.data() + a, b - a), std::span<const scan_total<T>>(dt.data(), a / L),
                       std::span<T>(dy.data() + a, b - a), gpu);
  }
  const std::vector<T> got = download(dy.data(), n);
  for (std::uint64_t i = 0; i < n; ++i) {
    if (bits(got[i]) != bits(expected[i])) {
      ADD_FAILURE() << what << ": output " << i << " of " << n << " is " << got[i] << ", the one call's "
                    << expected[i];
      return;
    }
  }
  gpu_comparisons() += 1;

  if constexpr (std::is_same_v<In, T>) {
    cudaStream_t stream = nullptr;
    ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
    const options on_stream{.mode = m, .stream = stream, .workspace = &test_workspace()};
    for (std::uint64_t p = 0; p + 1 < cuts.size(); ++p) {
      const std::uint64_t a = cuts[p];
      const std::uint64_t b = cuts[p + 1];
      cuda::cumsum_piece_async(std::span<const In>(dx.data() + a, b - a),
                               std::span<const scan_total<T>>(dt.data(), a / L), std::span<T>(dx.data() + a, b - a),
                               on_stream);
    }
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);
    const std::vector<T> in_place = download(dx.data(), n);
    for (std::uint64_t i = 0; i < n; ++i) {
      if (bits(in_place[i]) != bits(expected[i])) {
        ADD_FAILURE() << what << " in place: output " << i << " of " << n << " is " << in_place[i]
                      << ", the one call's " << expected[i];
        return;
      }
    }
    gpu_comparisons() += 1;
  }
  gpu_inputs() += 1;
}

TYPED_TEST(GpuScanPieces, EverySplitHasTheOneCallBits) {
  using T = TypeParam;
  constexpr std::uint64_t L = order::leaf_size<T>;
  constexpr std::uint64_t W = order::lanes<T>;
  // Sizes: within one leaf, around leaf boundaries, and past the leaf tree's powers of two (32, 64, 1024 leaves:
  // the subtrees the one-array scan publishes) and the one-array scan's look-ahead (2048 leaves).
  for (std::uint64_t n :
       {std::uint64_t{1}, W + 3, L - 1, L, L + 1, 5 * L + 7, 33 * L, 64 * L + 1, 1025 * L + 9, 2049 * L + 5}) {
    for (values v : {values::dynamic_range, values::ill_conditioned, values::with_nan, values::signed_zeros}) {
      const std::vector<T> x = generate<T>(v, n, 4100 + n);
      for (mode m : {mode::tree, mode::compensated}) {
        for (std::uint64_t most : {std::uint64_t{1}, std::uint64_t{3}, std::uint64_t{700}}) {
          if (most == 1 && n > 64 * L + 1) continue;  // thousands of one-leaf pieces: launches, no new case
          const std::string what = name(v) + " n=" + std::to_string(n) + " pieces up to " + std::to_string(most) +
                                   " leaves, mode " + to_string(m);
          expect_pieces<T, T>(x, leaf_cuts<T>(n, most, n + most), m, what);
        }
      }
    }
  }
}

TYPED_TEST(GpuScanPieces, HostAndGpuPiecesMix) {
  // The first piece on the host, the second on the GPU from the host's totals, and the reverse: the one-call bits.
  using T = TypeParam;
  constexpr std::uint64_t L = order::leaf_size<T>;
  const std::uint64_t n = 70 * L + 11;
  const std::uint64_t cut = 37 * L;
  const std::vector<T> x = generate<T>(values::dynamic_range, n, 88);
  for (mode m : {mode::tree, mode::compensated}) {
    std::vector<T> expected(n);
    cumsum(std::span<const T>(x), std::span<T>(expected), {.mode = m});
    const options gpu{.mode = m, .workspace = &test_workspace()};
    std::vector<scan_total<T>> first(cut / L);
    cumsum_totals(std::span<const T>(x.data(), cut), std::span<scan_total<T>>(first), {.mode = m});
    device_array<T> d(n);
    device_array<scan_total<T>> dt(first.size());
    upload(x, d.data());
    upload(first, dt.data());
    cuda::cumsum_piece(std::span<const T>(d.data() + cut, n - cut), std::span<const scan_total<T>>(dt.data(), cut / L),
                       std::span<T>(d.data() + cut, n - cut), gpu);
    const std::vector<T> second = download(d.data() + cut, n - cut);
    EXPECT_EQ(0, std::memcmp(second.data(), expected.data() + cut, (n - cut) * sizeof(T))) << "host totals, GPU piece";

    upload(x, d.data());
    cuda::cumsum_totals(std::span<const T>(d.data(), cut), std::span<scan_total<T>>(dt.data(), cut / L), gpu);
    const std::vector<scan_total<T>> from_gpu = download(dt.data(), cut / L);
    std::vector<T> y(n - cut);
    cumsum_piece(std::span<const T>(x.data() + cut, n - cut), std::span<const scan_total<T>>(from_gpu), std::span<T>(y),
                 {.mode = m});
    EXPECT_EQ(0, std::memcmp(y.data(), expected.data() + cut, y.size() * sizeof(T))) << "GPU totals, host piece";
    gpu_comparisons() += 2;
  }
}

template <class H>
void sixteen_bit_pieces() {
  constexpr std::uint64_t L = order::leaf_size<float>;
  const std::uint64_t n = 9 * L + 100;
  std::vector<H> h(n);
  rng random(1600 + n);
  for (std::uint64_t i = 0; i < n; ++i) {
    const auto b = static_cast<std::uint16_t>(random.next() >> 48);
    h[i] = H{static_cast<std::uint16_t>(i % 16 == 0 ? b : (b & 0xbfffu))};  // mostly finite, some NaN and Inf
  }
  for (mode m : {mode::tree, mode::compensated}) {
    expect_pieces<H, float>(h, leaf_cuts<float>(n, 3, 5), m, std::string("16-bit mode ") + to_string(m));
  }
}

TEST_F(GpuScanPieceRules, SixteenBitPiecesHaveTheOneCallBits) {
  sixteen_bit_pieces<float16>();
  sixteen_bit_pieces<bfloat16>();
}

TEST_F(GpuScanPieceRules, BadArgumentsAreRefusedWithTheHostWords) {
  constexpr std::uint64_t L = order::leaf_size<double>;
  const std::uint64_t n = 2 * L + 1;
  device_array<double> d(n);
  device_array<scan_total<double>> dt(4);
  const std::span<const double> piece(d.data(), n);
  const options gpu{.workspace = &test_workspace()};
  const auto message = [](auto&& call) {
    try {
      call();
    } catch (const error& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  const std::string few =
      message([&] { cuda::cumsum_totals(piece, std::span<scan_total<double>>(dt.data(), 2), gpu); });
  EXPECT_NE(few.find("detred::cuda::cumsum_totals: the totals span holds 2 entries, the " + std::to_string(n) +
                     " elements have 3 leaves"),
            std::string::npos)
      << few;
  const std::string exact = message([&] {
    cuda::cumsum_piece(piece, std::span<const scan_total<double>>(dt.data(), 1), std::span<double>(d.data(), n),
                       {.mode = mode::exact, .workspace = &test_workspace()});
  });
  EXPECT_NE(exact.find("mode exact is not available on backend cuda"), std::string::npos) << exact;
  EXPECT_THROW(cuda::cumsum_piece(piece, std::span<const scan_total<double>>(dt.data(), 1),
                                  std::span<double>(d.data(), n - 1), gpu),
               error);  // length
  // The totals before the piece in y's memory: y is written while other blocks read them.
  EXPECT_THROW(cuda::cumsum_piece(
                   piece, std::span<const scan_total<double>>(reinterpret_cast<const scan_total<double>*>(d.data()), 1),
                   std::span<double>(d.data(), n), gpu),
               error);
  // Totals written over the piece they are read from.
  EXPECT_THROW(cuda::cumsum_totals(
                   piece, std::span<scan_total<double>>(reinterpret_cast<scan_total<double>*>(d.data()), 3), gpu),
               error);
}

}  // namespace
}  // namespace detred::testing
