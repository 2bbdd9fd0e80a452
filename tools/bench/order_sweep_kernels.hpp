// SPDX-License-Identifier: BSD-3-Clause
// Candidate leaf kernels for detred-order-sweep: the library's CPU engine with the lane count W and the
// leaf size L as template parameters, so that shapes other than the canonical one can be timed. A measuring aid
// only: the canonical order is defined by include/detred/order.hpp, never here.
#pragma once

#include <cstdint>
#include <vector>

namespace detred::bench {

template <class T>
struct sweep_kernel {
  std::uint64_t lanes;      ///< W
  std::uint64_t leaf_size;  ///< L
  bool compensated;
  /// The whole sum: lanes, per-leaf lane tree, left-perfect leaf tree, finalize. n must be a multiple of L.
  T (*sum)(const T* x, std::uint64_t n);
};

/// W in {32, 64, 128, 256} for double, {64, 128, 256} for float; L / W in {8, 16, 32, 64}; tree and compensated.
/// The kernels are compiled for AVX-512 (64-byte vectors), as the library's fastest CPU path is.
std::vector<sweep_kernel<double>> sweep_kernels_f64();
std::vector<sweep_kernel<float>> sweep_kernels_f32();

/// The largest L among the kernels: sizes must be multiples of it.
inline constexpr std::uint64_t sweep_max_leaf_size = 256 * 64;

}  // namespace detred::bench
