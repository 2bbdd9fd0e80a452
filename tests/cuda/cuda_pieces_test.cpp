// SPDX-License-Identifier: BSD-3-Clause
// Arrays spread over GPUs and streams: detred::cuda::sum over device pieces (random uneven splits, empty pieces,
// cuts inside leaves, pieces on two streams of one GPU, and on every GPU of the machine) gives detred::sum's bits on
// the CPU, in tree, compensated and exact mode; a device partial state is byte for byte the CPU's state of the same
// piece.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <span>
#include <vector>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "detred/cuda.hpp"
#include "detred/detred.hpp"
#include "gpu_paths.hpp"
#include "test_data.hpp"

namespace detred::testing {
namespace {

class GpuPieces : public Gpu {};

std::vector<std::uint64_t> cuts_of(std::uint64_t n, std::uint64_t pieces, rng& r) {
  std::vector<std::uint64_t> cuts = {0, n};
  for (std::uint64_t k = 1; k < pieces; ++k) {
    std::uint64_t c = r.below(n + 1);
    if (r.below(3) == 0) c = std::min(n, c / 4096 * 4096 + r.below(2));
    cuts.push_back(c);
  }
  std::sort(cuts.begin(), cuts.end());
  return cuts;
}

/// The pieces of x (copied to device memory, one allocation per piece) on the given devices and streams, in turn.
template <class T>
void check_split(const std::vector<T>& x, const std::vector<std::uint64_t>& cuts, const std::vector<int>& devices,
                 const std::vector<cudaStream_t>& streams, mode m, const char* what) {
  std::vector<device_array<T>*> arrays;
  std::vector<cuda::device_piece<T>> pieces;
  for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
    const int device = devices[k % devices.size()];
    ASSERT_EQ(cudaSetDevice(device), cudaSuccess);
    const std::uint64_t n = cuts[k + 1] - cuts[k];
    arrays.push_back(new device_array<T>(n));
    ASSERT_TRUE(arrays.back()->ok());
    DETRED_CUDA_OK(cudaMemcpy(arrays.back()->data(), x.data() + cuts[k], n * sizeof(T), cudaMemcpyHostToDevice));
    pieces.push_back({std::span<const T>(arrays.back()->data(), n), device,
                      devices.size() == 1 ? streams[k % streams.size()] : nullptr});
  }
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  const T got = cuda::sum(std::span<const cuda::device_piece<T>>(pieces), {.mode = m});
  const T expected = detred::sum(std::span<const T>(x), {.mode = m});
  EXPECT_EQ(std::bit_cast<bits_of<T>>(got), std::bit_cast<bits_of<T>>(expected))
      << what << " n=" << x.size() << " pieces=" << pieces.size() << " " << to_string(m);
  gpu_comparisons() += 1;
  for (std::size_t k = 0; k < arrays.size(); ++k) {
    ASSERT_EQ(cudaSetDevice(pieces[k].device), cudaSuccess);
    delete arrays[k];
  }
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
}

template <class T>
void check_streams_of_one_gpu() {
  cudaStream_t streams[2];
  ASSERT_EQ(cudaStreamCreate(&streams[0]), cudaSuccess);
  ASSERT_EQ(cudaStreamCreate(&streams[1]), cudaSuccess);
  rng r(3);
  for (std::uint64_t n : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{4095}, std::uint64_t{4097},
                          std::uint64_t{300000}, std::uint64_t{5000000}}) {
    for (values v : {values::uniform, values::ill_conditioned, values::with_nan, values::negative_zeros}) {
      const std::vector<T> x = generate<T>(v, n, n + 3);
      for (mode m : {mode::tree, mode::compensated, mode::exact}) {
        check_split(x, cuts_of(n, 1 + r.below(6), r), {0}, {streams[0], streams[1]}, m, "one GPU, two streams");
      }
    }
  }
  cudaStreamDestroy(streams[0]);
  cudaStreamDestroy(streams[1]);
}

TEST_F(GpuPieces, TwoStreamsOfOneGpuGiveTheCpuBits) {
  check_streams_of_one_gpu<double>();
  check_streams_of_one_gpu<float>();
}

TEST_F(GpuPieces, EveryGpuOfTheMachineGivesTheCpuBits) {
  int count = 0;
  ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  if (count < 2) GTEST_SKIP() << "one GPU here: the split over several GPUs needs two (the two-stream test ran)";
  std::vector<int> devices;
  for (int d = 0; d < count; ++d) devices.push_back(d);
  rng r(4);
  for (std::uint64_t n : {std::uint64_t{10}, std::uint64_t{1000001}, std::uint64_t{1} << 26}) {
    const std::vector<float> x = generate<float>(values::uniform, n, n);
    const std::vector<double> xd = generate<double>(values::dynamic_range, n, n);
    for (mode m : {mode::tree, mode::compensated, mode::exact}) {
      check_split(x, cuts_of(n, 2, r), devices, {nullptr}, m, "every GPU");
      check_split(xd, cuts_of(n, 5, r), devices, {nullptr}, m, "every GPU");
    }
  }
}

TEST_F(GpuPieces, DeviceStateEqualsTheCpuStateByteForByte) {
  cuda::workspace ws;
  const std::vector<double> x = generate<double>(values::uniform, 1000000, 9);
  device_array<double> d(x.size());
  ASSERT_TRUE(d.ok());
  DETRED_CUDA_OK(cudaMemcpy(d.data(), x.data(), x.size() * sizeof(double), cudaMemcpyHostToDevice));
  for (const auto& [begin, end] :
       {std::pair<std::uint64_t, std::uint64_t>{0, 1000000}, {1, 999999}, {2048 * 7, 2048 * 400}, {5, 9}, {300, 300}}) {
    for (mode m : {mode::tree, mode::compensated, mode::exact}) {
      const partial_state gpu =
          cuda::sum_state(std::span<const double>(d.data() + begin, end - begin), begin, {.mode = m, .workspace = &ws});
      const partial_state cpu =
          partial_state::of(operation::sum, std::span<const double>(x).subspan(begin, end - begin), begin, {.mode = m});
      EXPECT_EQ(gpu.serialize(), cpu.serialize()) << begin << ".." << end;
      gpu_comparisons() += 1;
    }
  }
}

TEST_F(GpuPieces, BadDevicesAreRefused) {
  int count = 0;
  ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  const cuda::device_piece<float> pieces[1] = {{std::span<const float>(), count, nullptr}};
  EXPECT_THROW(cuda::sum(std::span<const cuda::device_piece<float>>(pieces)), error);
}

}  // namespace
}  // namespace detred::testing
