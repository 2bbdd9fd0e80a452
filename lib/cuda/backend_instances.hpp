// SPDX-License-Identifier: BSD-3-Clause
// The instantiations of cuda_backend.hpp's typed calls, one list for the two files that can define them: the CUDA
// backend (backend_seam.cpp, batch_api.cpp, scan_api.cpp) and its stand-in without CUDA (unavailable.cpp).
#pragma once

#include <span>
#include <tuple>

#include "core/operators.hpp"
#include "core/scan_types.hpp"
#include "cuda_backend.hpp"

namespace detred::cuda_backend {

/// reduce_host for every operator of List (`template struct one_array_calls<backend_operators>;`).
template <class List>
struct one_array_calls;
template <class... Ops>
struct one_array_calls<op_list<Ops...>> {
  static constexpr std::tuple pointers{&reduce_host<Ops>...};
};

/// The batched calls for every operator of List (`template struct batched_calls<batch_entries>;`).
template <class List>
struct batched_calls;
template <class... Ops>
struct batched_calls<op_list<Ops...>> {
  static constexpr std::tuple pointers{&reduce_lines_host<Ops>..., &reduce_strided_lines_host<Ops>...};
};

}  // namespace detred::cuda_backend

/// The staged scans of every scan type, and along an axis of float and double matrices.
#define DETRED_CUDA_BACKEND_SCANS()                                                                           \
  DETRED_EACH_SCAN_TYPE(DETRED_CUDA_BACKEND_SCAN_TYPE)                                                        \
  template void staged_scans::scan_axis<double>(matrix_view<double>, int, std::span<double>, const options&); \
  template void staged_scans::scan_axis<float>(matrix_view<float>, int, std::span<float>, const options&);
#define DETRED_CUDA_BACKEND_SCAN_TYPE(In, Out)                                                            \
  template void staged_scans::scan<In, Out>(std::span<const In>, std::span<Out>, bool, const options&);   \
  template void staged_scans::scan_segments<In, Out>(std::span<const In>, segments, std::span<Out>, bool, \
                                                     const options&);
