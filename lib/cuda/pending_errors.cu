// SPDX-License-Identifier: BSD-3-Clause
// The kernels that record the device-side errors of pending_errors.hpp, and the host code that throws them.
#include <cstdint>
#include <cstring>
#include <string>

#include <cuda_runtime_api.h>

#include "core/integer_results.hpp"
#include "cuda_check.hpp"
#include "pending_errors.hpp"
#include "workspace_state.hpp"

namespace detred::cuda::detail {
namespace {

constexpr unsigned check_block = 256;
constexpr std::uint64_t none = ~std::uint64_t{0};

__global__ void reset_kernel(pending_errors* p) {
  p->overflow.index = none;
  p->overflow.low = 0;
  p->overflow.high = 0;
  p->overflow.lock = 0;
  p->overflow.is_signed = 0;
  p->empty_segment = none;
  p->bad_key = none;
  p->bins = 0;
}

template <class R>
__global__ void narrow_sum_kernel(const order::wide_integer* in, R* out, pending_errors* p) {
  const order::wide_integer v = *in;
  *out = static_cast<R>(v.low);
  if (!fits_in<R>(v)) {
    // One thread: the lock of overflow_record guards against the scans' kernels only, which never run beside this
    // one on the same stream; the index is taken only if no earlier error holds it.
    if (atomicCAS(reinterpret_cast<unsigned long long*>(&p->overflow.index), none, sum_overflow) == none) {
      p->overflow.low = v.low;
      p->overflow.high = v.high;
      p->overflow.is_signed = std::is_signed_v<R> ? 1u : 0u;
    }
  }
}

__global__ void check_nonempty_kernel(const std::uint64_t* offsets, std::uint64_t count, std::uint64_t op_tag,
                                      pending_errors* p) {
  for (std::uint64_t k = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; k < count;
       k += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
    if (offsets[k + 1] <= offsets[k]) {
      atomicMin(reinterpret_cast<unsigned long long*>(&p->empty_segment), static_cast<unsigned long long>(op_tag | k));
    }
  }
}

__global__ void narrow_keys_kernel(const std::int64_t* from, std::uint32_t* to, std::uint64_t n, std::uint64_t bins,
                                   pending_errors* p) {
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t k = from[i];
    const bool bin = k >= 0 && static_cast<std::uint64_t>(k) < bins;
    to[i] = bin ? static_cast<std::uint32_t>(k) : static_cast<std::uint32_t>(bins);
    if (!bin) {
      atomicMin(reinterpret_cast<unsigned long long*>(&p->bad_key), static_cast<unsigned long long>(i));
      p->bins = bins;
    }
  }
}

unsigned blocks_for(std::uint64_t n) {
  const std::uint64_t b = (n + check_block - 1) / check_block;
  return static_cast<unsigned>(b < 4096 ? (b == 0 ? 1 : b) : 4096);
}

}  // namespace

void reset_pending(pending_errors* p, cudaStream_t stream) {
  reset_kernel<<<1, 1, 0, stream>>>(p);
  check(cudaGetLastError(), "pending-error reset launch");
}

template <class R>
void enqueue_narrow_sum(const order::wide_integer* in, R* out, pending_errors* p, cudaStream_t stream) {
  narrow_sum_kernel<R><<<1, 1, 0, stream>>>(in, out, p);
  check(cudaGetLastError(), "integer sum narrowing launch");
}
template void enqueue_narrow_sum<std::int64_t>(const order::wide_integer*, std::int64_t*, pending_errors*,
                                               cudaStream_t);
template void enqueue_narrow_sum<std::uint64_t>(const order::wide_integer*, std::uint64_t*, pending_errors*,
                                                cudaStream_t);

void enqueue_check_nonempty(const std::uint64_t* offsets, std::uint64_t count, operation op, pending_errors* p,
                            cudaStream_t stream) {
  if (count == 0) return;
  const std::uint64_t tag = static_cast<std::uint64_t>(op) << 56;
  check_nonempty_kernel<<<blocks_for(count), check_block, 0, stream>>>(offsets, count, tag, p);
  check(cudaGetLastError(), "empty-segment check launch");
}

void enqueue_narrow_keys(const std::int64_t* from, std::uint32_t* to, std::uint64_t n, std::uint64_t bins,
                         pending_errors* p, cudaStream_t stream) {
  if (n == 0) return;
  narrow_keys_kernel<<<blocks_for(n), check_block, 0, stream>>>(from, to, n, bins, p);
  check(cudaGetLastError(), "key narrowing launch");
}

void throw_pending(workspace& ws, cudaStream_t stream) {
  auto& s = workspace_access::of(ws);
  s.check_current_device();
  static_assert(sizeof(pending_errors) <= workspace_access::state::slot_bytes);
  check(cudaMemcpyAsync(s.host_result, s.pending, sizeof(pending_errors), cudaMemcpyDeviceToHost, stream),
        "cudaMemcpyAsync (pending errors)");
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  pending_errors got;
  std::memcpy(&got, s.host_result, sizeof got);
  if (got.overflow.index == none && got.empty_segment == none && got.bad_key == none) return;
  reset_pending(s.pending, stream);
  if (got.overflow.index != none) {
    const std::string where = got.overflow.index == sum_overflow
                                  ? std::string("detred::cuda::sum: the integer sum")
                                  : "detred::cuda::cumsum: output " + std::to_string(got.overflow.index);
    // The CPU's words (core/integer_results.hpp), so that both report an overflow alike.
    throw overflow_error(where + ": the exact sum " + to_decimal({got.overflow.low, got.overflow.high}) +
                         " does not fit in " + (got.overflow.is_signed != 0 ? "int64" : "uint64"));
  }
  if (got.empty_segment != none) {
    const auto op = static_cast<operation>(got.empty_segment >> 56);
    const std::uint64_t k = got.empty_segment & ((std::uint64_t{1} << 56) - 1);
    throw error(std::string("detred::cuda::") + to_string(op) + ": segment " + std::to_string(k) +
                " is empty, and an empty array has no " + to_string(op));
  }
  throw error("detred::cuda::sum_by_key: the key at index " + std::to_string(got.bad_key) +
              " is not a bin (the results span holds " + std::to_string(got.bins) + " bins)");
}

}  // namespace detred::cuda::detail
