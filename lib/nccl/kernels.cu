// SPDX-License-Identifier: BSD-3-Clause
// The integer column sums of the collectives (kernels.hpp). Grid-stride loops: any count, any launch size.
#include <cstdint>
#include <type_traits>

#include <cuda_runtime_api.h>

#include "checks.hpp"
#include "kernels.hpp"

namespace detred::nccl::detail {
namespace {

constexpr int threads_per_block = 256;

unsigned blocks_for(std::uint64_t count) {
  // Enough blocks to fill any current GPU; the grid-stride loops take the rest.
  const std::uint64_t wanted = (count + threads_per_block - 1) / threads_per_block;
  return static_cast<unsigned>(wanted < 65536 ? (wanted == 0 ? 1 : wanted) : 65536);
}

void check_launch(const char* what) { check_cuda(cudaGetLastError(), what); }

// The exact sum in 128 bits: no sum of fewer than 2^64 64-bit integers overflows it.
template <class In, class R>
__global__ void integer_sums_kernel(const In* matrix, std::uint64_t rows, std::uint64_t cols, R* out,
                                    std::uint64_t first_index, unsigned long long* first_overflow) {
  using wide = std::conditional_t<std::is_signed_v<In>, __int128, unsigned __int128>;
  for (std::uint64_t j = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; j < cols;
       j += std::uint64_t{gridDim.x} * blockDim.x) {
    wide sum = 0;
    for (std::uint64_t q = 0; q < rows; ++q) sum += static_cast<wide>(matrix[q * cols + j]);
    const R value = static_cast<R>(sum);  // modular; it fits exactly when it converts back to the same sum
    out[j] = value;
    if (static_cast<wide>(value) != sum) atomicMin(first_overflow, static_cast<unsigned long long>(first_index + j));
  }
}

}  // namespace

template <class In, class R>
void integer_column_sums(const In* matrix, std::uint64_t rows, std::uint64_t cols, R* out, std::uint64_t first_index,
                         unsigned long long* first_overflow, cudaStream_t stream) {
  if (cols == 0) return;
  integer_sums_kernel<In, R>
      <<<blocks_for(cols), threads_per_block, 0, stream>>>(matrix, rows, cols, out, first_index, first_overflow);
  check_launch("launch of the integer column sums");
}

template void integer_column_sums(const std::int32_t*, std::uint64_t, std::uint64_t, std::int64_t*, std::uint64_t,
                                  unsigned long long*, cudaStream_t);
template void integer_column_sums(const std::int64_t*, std::uint64_t, std::uint64_t, std::int64_t*, std::uint64_t,
                                  unsigned long long*, cudaStream_t);
template void integer_column_sums(const std::uint32_t*, std::uint64_t, std::uint64_t, std::uint64_t*, std::uint64_t,
                                  unsigned long long*, cudaStream_t);
template void integer_column_sums(const std::uint64_t*, std::uint64_t, std::uint64_t, std::uint64_t*, std::uint64_t,
                                  unsigned long long*, cudaStream_t);

}  // namespace detred::nccl::detail
