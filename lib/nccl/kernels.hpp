// SPDX-License-Identifier: BSD-3-Clause
// The integer kernel of the collectives (kernels.cu): what detred::cuda's batched calls do not offer, the exact
// integer column sums with the index of the first that overflows. Enqueued on `stream`.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

namespace detred::nccl::detail {

/// Column sums of the row-major rows x cols matrix `matrix`: out[j] = the exact sum of column j, as R (int64 for
/// signed, uint64 for unsigned elements). A sum that does not fit R leaves out[j] unspecified and lowers
/// *first_overflow (atomic minimum) to first_index + j. In: int32, int64, uint32 or uint64.
template <class In, class R>
void integer_column_sums(const In* matrix, std::uint64_t rows, std::uint64_t cols, R* out, std::uint64_t first_index,
                         unsigned long long* first_overflow, cudaStream_t stream);

}  // namespace detred::nccl::detail
