// SPDX-License-Identifier: BSD-3-Clause
// The CUDA backend in a build without CUDA: the public API links, reports that no device is available, and every
// call that needs the GPU throws detred::error saying why.
#include <cstddef>
#include <cstdint>
#include <span>
#include <tuple>

#include "backend_instances.hpp"
#include "core/backend_seam.hpp"
#include "core/operators.hpp"
#include "core/scan_types.hpp"
#include "cuda_backend.hpp"
#include "detred/cuda.hpp"

namespace detred {
namespace {

[[noreturn]] void no_cuda() {
  throw error("the CUDA backend was requested, but this build of detred has none (nvcc was not found at build time)");
}

}  // namespace

namespace cuda_backend {

bool available() { return false; }

template <class Op>
typename Op::result reduce_host(const order::operands<Op>&, std::uint64_t, const options&) {
  no_cuda();
}

template <class Op>
void reduce_lines_host(const order::operands<Op>&, std::uint64_t, const line_set&, std::uint64_t,
                       typename Op::result*) {
  no_cuda();
}
template <class Op>
void reduce_strided_lines_host(const order::operands<Op>&, std::uint64_t, std::uint64_t, std::uint64_t, std::uint64_t,
                               typename Op::result*) {
  no_cuda();
}

template struct one_array_calls<backend_operators>;
template struct batched_calls<batch_entries>;

const backend_seam& seam() {
  static const backend_seam s = seam_of<entry_points>();
  return s;
}

template <class In, class Out>
void staged_scans::scan(std::span<const In>, std::span<Out>, bool, const options&) {
  no_cuda();
}
template <class In, class Out>
void staged_scans::scan_segments(std::span<const In>, segments, std::span<Out>, bool, const options&) {
  no_cuda();
}
template <class T>
void staged_scans::scan_axis(matrix_view<T>, int, std::span<T>, const options&) {
  no_cuda();
}
DETRED_CUDA_BACKEND_SCANS()

}  // namespace cuda_backend

namespace cuda {

struct workspace::state {};

bool available() { return false; }
workspace::workspace() { no_cuda(); }
workspace::~workspace() = default;
workspace::workspace(workspace&&) noexcept = default;
workspace& workspace::operator=(workspace&&) noexcept = default;
int workspace::device() const { no_cuda(); }
std::size_t workspace::device_bytes() const { no_cuda(); }
void reduce_async(operation, element_type, const void*, std::uint64_t, const void*, std::uint64_t, void*,
                  const options&) {
  no_cuda();
}
void reduce(operation, element_type, const void*, std::uint64_t, const void*, std::uint64_t, void*, const options&) {
  no_cuda();
}
void synchronize(const options&) { no_cuda(); }
double sum(std::span<const device_piece<double>>, const options&) { no_cuda(); }
float sum(std::span<const device_piece<float>>, const options&) { no_cuda(); }
partial_state sum_state(std::span<const double>, std::uint64_t, const options&) { no_cuda(); }
partial_state sum_state(std::span<const float>, std::uint64_t, const options&) { no_cuda(); }
#define DETRED_CUDA_BATCHED(T)                                                                                     \
  void sum_async(std::span<const T>, segments, std::span<T>, const options&) { no_cuda(); }                        \
  void asum_async(std::span<const T>, segments, std::span<T>, const options&) { no_cuda(); }                       \
  void nrm2_async(std::span<const T>, segments, std::span<T>, const options&) { no_cuda(); }                       \
  void dot_async(std::span<const T>, std::span<const T>, segments, std::span<T>, const options&) { no_cuda(); }    \
  void min_async(std::span<const T>, segments, std::span<T>, const options&) { no_cuda(); }                        \
  void max_async(std::span<const T>, segments, std::span<T>, const options&) { no_cuda(); }                        \
  void argmin_async(std::span<const T>, segments, std::span<std::uint64_t>, const options&) { no_cuda(); }         \
  void argmax_async(std::span<const T>, segments, std::span<std::uint64_t>, const options&) { no_cuda(); }         \
  void stats_async(std::span<const T>, segments, std::span<statistics<T>>, const options&) { no_cuda(); }          \
  void sum_async(matrix_view<T>, int, std::span<T>, const options&) { no_cuda(); }                                 \
  void asum_async(matrix_view<T>, int, std::span<T>, const options&) { no_cuda(); }                                \
  void nrm2_async(matrix_view<T>, int, std::span<T>, const options&) { no_cuda(); }                                \
  void min_async(matrix_view<T>, int, std::span<T>, const options&) { no_cuda(); }                                 \
  void max_async(matrix_view<T>, int, std::span<T>, const options&) { no_cuda(); }                                 \
  void stats_async(matrix_view<T>, int, std::span<statistics<T>>, const options&) { no_cuda(); }                   \
  void sum_by_key(std::span<const T>, std::span<const std::uint32_t>, std::span<T>, const options&) { no_cuda(); } \
  void sum_by_key(std::span<const T>, std::span<const std::int64_t>, std::span<T>, const options&) { no_cuda(); }  \
  void sum_by_key_async(std::span<const T>, std::span<const std::uint32_t>, std::span<T>, const options&) {        \
    no_cuda();                                                                                                     \
  }                                                                                                                \
  void sum_by_key_async(std::span<const T>, std::span<const std::int64_t>, std::span<T>, const options&) { no_cuda(); }
DETRED_CUDA_BATCHED(double)
DETRED_CUDA_BATCHED(float)
#undef DETRED_CUDA_BATCHED
#define DETRED_CUDA_HALF_BATCHED(H)                                                             \
  void sum_async(std::span<const H>, segments, std::span<float>, const options&) { no_cuda(); } \
  void sum_async(matrix_view<H>, int, std::span<float>, const options&) { no_cuda(); }
DETRED_CUDA_HALF_BATCHED(float16)
DETRED_CUDA_HALF_BATCHED(bfloat16)
#undef DETRED_CUDA_HALF_BATCHED

// Every scan type has the same eight calls (float and integer alike).
#define DETRED_CUDA_SCANS(In, Out)                                                                          \
  void cumsum_async(std::span<const In>, std::span<Out>, const options&) { no_cuda(); }                     \
  void exclusive_cumsum_async(std::span<const In>, std::span<Out>, const options&) { no_cuda(); }           \
  void cumsum(std::span<const In>, std::span<Out>, const options&) { no_cuda(); }                           \
  void exclusive_cumsum(std::span<const In>, std::span<Out>, const options&) { no_cuda(); }                 \
  void cumsum_async(std::span<const In>, segments, std::span<Out>, const options&) { no_cuda(); }           \
  void exclusive_cumsum_async(std::span<const In>, segments, std::span<Out>, const options&) { no_cuda(); } \
  void cumsum(std::span<const In>, segments, std::span<Out>, const options&) { no_cuda(); }                 \
  void exclusive_cumsum(std::span<const In>, segments, std::span<Out>, const options&) { no_cuda(); }
DETRED_EACH_SCAN_TYPE(DETRED_CUDA_SCANS)
#undef DETRED_CUDA_SCANS
#define DETRED_CUDA_SCAN_PIECES(In, T)                                                                         \
  void cumsum_totals_async(std::span<const In>, std::span<scan_total<T>>, const options&) { no_cuda(); }       \
  void cumsum_totals(std::span<const In>, std::span<scan_total<T>>, const options&) { no_cuda(); }             \
  void cumsum_piece_async(std::span<const In>, std::span<const scan_total<T>>, std::span<T>, const options&) { \
    no_cuda();                                                                                                 \
  }                                                                                                            \
  void cumsum_piece(std::span<const In>, std::span<const scan_total<T>>, std::span<T>, const options&) { no_cuda(); }
DETRED_CUDA_SCAN_PIECES(double, double)
DETRED_CUDA_SCAN_PIECES(float, float)
DETRED_CUDA_SCAN_PIECES(float16, float)
DETRED_CUDA_SCAN_PIECES(bfloat16, float)
#undef DETRED_CUDA_SCAN_PIECES
#define DETRED_CUDA_RMS_NORM_ROWS(T, A)                                                                              \
  void rms_norm_rows_async(matrix_view<T>, std::span<const T>, double, std::span<T>, std::span<A>, const options&) { \
    no_cuda();                                                                                                       \
  }                                                                                                                  \
  void rms_norm_rows(matrix_view<T>, std::span<const T>, double, std::span<T>, std::span<A>, const options&) {       \
    no_cuda();                                                                                                       \
  }                                                                                                                  \
  void sum_rows_async(matrix_view<T>, std::span<T>, const options&) { no_cuda(); }                                   \
  void sum_rows(matrix_view<T>, std::span<T>, const options&) { no_cuda(); }                                         \
  void sum_columns_async(matrix_view<T>, std::span<T>, const options&) { no_cuda(); }                                \
  void sum_columns(matrix_view<T>, std::span<T>, const options&) { no_cuda(); }
DETRED_CUDA_NORM_ROW_TYPES(DETRED_CUDA_RMS_NORM_ROWS)
#undef DETRED_CUDA_RMS_NORM_ROWS
#define DETRED_CUDA_AXIS_SCANS(T)                                                     \
  void cumsum_async(matrix_view<T>, int, std::span<T>, const options&) { no_cuda(); } \
  void cumsum(matrix_view<T>, int, std::span<T>, const options&) { no_cuda(); }
DETRED_CUDA_AXIS_SCANS(double)
DETRED_CUDA_AXIS_SCANS(float)
#undef DETRED_CUDA_AXIS_SCANS

}  // namespace cuda
}  // namespace detred
