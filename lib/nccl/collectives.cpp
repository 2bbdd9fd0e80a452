// SPDX-License-Identifier: BSD-3-Clause
// The element-wise collectives (detred/nccl.hpp). Rank r reduces the columns [r s, (r + 1) s) of the R x n matrix
// whose row q is rank q's vector (s = n / R): an all-to-all of shards (grouped ncclSend/ncclRecv) gives it that
// R x s block, detred::cuda's column sums reduce it, and an all-gather (in place, grouped ncclSend/ncclRecv too)
// gives every rank every block's sums. The last n - R s (< R) columns are reduced by every rank: each rank sends
// its tail to every rank in the same group. Element i's value is detred::sum of column i, whatever the shard it fell
// in, so neither the split nor anything NCCL chooses shows in the bits.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "checks.hpp"
#include "detred/batched.hpp"
#include "detred/cuda.hpp"
#include "detred/nccl.hpp"
#include "kernels.hpp"

namespace detred::nccl {

using detail::check_cuda;
using detail::check_nccl;

namespace {

/// One rank's arguments, as the ranks compare them (32 bytes, exchanged as bytes).
struct descriptor {
  std::uint64_t in_count = 0;
  std::uint64_t out_count = 0;
  std::uint32_t call = 0;  // 0 allreduce, 1 reduce-scatter
  std::uint32_t type = 0;  // element_code below
  std::uint32_t mode = 0;  // the mode, or 0 for integers (exact in every mode)
  std::uint32_t valid = 0;
};
static_assert(sizeof(descriptor) == 32);

const char* call_name(collective k) {
  return k == collective::allreduce ? "detred::nccl::allreduce_sum" : "detred::nccl::reduce_scatter_sum";
}

template <class T>
constexpr std::uint32_t element_code() {
  if constexpr (std::is_same_v<T, double>) {
    return 1;
  } else if constexpr (std::is_same_v<T, float>) {
    return 2;
  } else if constexpr (std::is_same_v<T, float16>) {
    return 3;
  } else if constexpr (std::is_same_v<T, bfloat16>) {
    return 4;
  } else if constexpr (std::is_same_v<T, std::int32_t>) {
    return 5;
  } else if constexpr (std::is_same_v<T, std::int64_t>) {
    return 6;
  } else if constexpr (std::is_same_v<T, std::uint32_t>) {
    return 7;
  } else {
    static_assert(std::is_same_v<T, std::uint64_t>);
    return 8;
  }
}

const char* element_name(std::uint32_t code) {
  static constexpr const char* names[] = {"?",     "float64", "float32", "float16", "bfloat16",
                                          "int32", "int64",   "uint32",  "uint64"};
  return code < 9 ? names[code] : "?";
}

template <class T>
constexpr bool is_half = std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>;

constexpr std::size_t alignment = 256;
constexpr std::size_t aligned(std::size_t bytes) { return (bytes + alignment - 1) / alignment * alignment; }

}  // namespace

struct workspace::state {
  int device = 0;
  cuda::workspace sums;     // the column sums' workspace (binds to the current device too)
  void* scratch = nullptr;  // device: the received matrices, the overflow flags
  std::size_t scratch_bytes = 0;
  descriptor* descriptors = nullptr;  // device: R gathered + 1 own
  descriptor* host = nullptr;         // pinned: R + 1
  std::size_t descriptor_slots = 0;

  /// Device scratch of at least `bytes`, stream-ordered (no wait for the device).
  void* scratch_of(std::size_t bytes, cudaStream_t stream) {
    if (bytes > scratch_bytes) {
      if (scratch != nullptr) check_cuda(cudaFreeAsync(scratch, stream), "cudaFreeAsync");
      scratch = nullptr;
      scratch_bytes = 0;
      check_cuda(cudaMallocAsync(&scratch, bytes, stream), "cudaMallocAsync of the collective's scratch");
      scratch_bytes = bytes;
    }
    return scratch;
  }

  /// Room for R + 1 descriptors on the device and on the host. Grows only when the rank count grows (cudaMallocHost
  /// waits for the device; a workspace normally serves one communicator).
  void descriptors_for(int ranks) {
    const auto slots = static_cast<std::size_t>(ranks) + 1;
    if (slots <= descriptor_slots) return;
    release_descriptors();
    check_cuda(cudaMalloc(reinterpret_cast<void**>(&descriptors), slots * sizeof(descriptor)), "cudaMalloc");
    check_cuda(cudaMallocHost(reinterpret_cast<void**>(&host), slots * sizeof(descriptor)), "cudaMallocHost");
    descriptor_slots = slots;
  }

  void release_descriptors() {
    if (descriptors != nullptr) cudaFree(descriptors);
    if (host != nullptr) cudaFreeHost(host);
    descriptors = nullptr;
    host = nullptr;
    descriptor_slots = 0;
  }

  ~state() {
    if (scratch != nullptr) cudaFree(scratch);  // waits for the device, as detred::cuda::workspace's destructor
    release_descriptors();
  }
};

namespace {

int current_device() {
  int device = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  return device;
}

}  // namespace

workspace::workspace() : state_(std::make_unique<state>()) { state_->device = current_device(); }
workspace::~workspace() = default;
workspace::workspace(workspace&&) noexcept = default;
workspace& workspace::operator=(workspace&&) noexcept = default;
int workspace::device() const { return state_->device; }
std::size_t workspace::device_bytes() const {
  return state_->sums.device_bytes() + state_->scratch_bytes + state_->descriptor_slots * sizeof(descriptor);
}
workspace::state& state_of(workspace& ws) { return *ws.state_; }

namespace {

struct shape {
  int ranks = 0;
  int me = 0;
};

shape shape_of(ncclComm_t comm) {
  shape s;
  check_nccl(ncclCommCount(comm, &s.ranks), comm, "ncclCommCount");
  check_nccl(ncclCommUserRank(comm, &s.me), comm, "ncclCommUserRank");
  return s;
}

/// Every rank's `bytes` bytes at `own`, in rank order at `all` (R * bytes), by grouped ncclSend/ncclRecv rather than
/// ncclAllGather: point-to-point transfers do not depend on NCCL_ALGO, which may name an algorithm (Tree) that
/// NCCL has no all-gather for. own may be all + me * bytes (in place).
void allgather_bytes(const void* own, std::size_t bytes, void* all, shape s, ncclComm_t comm, cudaStream_t stream) {
  auto* const rows = static_cast<char*>(all);
  const auto ranks = static_cast<std::uint64_t>(s.ranks);
  const auto me = static_cast<std::uint64_t>(s.me);
  if (bytes == 0) return;
  if (own != rows + me * bytes) {
    check_cuda(cudaMemcpyAsync(rows + me * bytes, own, bytes, cudaMemcpyDeviceToDevice, stream), "cudaMemcpyAsync");
  }
  if (ranks == 1) return;
  check_nccl(ncclGroupStart(), comm, "ncclGroupStart");
  for (std::uint64_t step = 1; step < ranks; ++step) {
    const std::uint64_t to = (me + step) % ranks;
    const std::uint64_t from = (me + ranks - step) % ranks;
    check_nccl(ncclSend(own, bytes, ncclUint8, static_cast<int>(to), comm, stream), comm, "ncclSend");
    check_nccl(ncclRecv(rows + from * bytes, bytes, ncclUint8, static_cast<int>(from), comm, stream), comm, "ncclRecv");
  }
  check_nccl(ncclGroupEnd(), comm, "ncclGroupEnd");
}

/// The ranks' agreement on the arguments, before anything could wait for another rank: every rank's descriptor
/// (its lengths, type, mode, and whether its own checks passed) gathered on every rank, which then all throw or all
/// go on. `problem` is this rank's own invalid argument, if any.
void agree(collective call, std::uint32_t type, std::uint32_t mode_code, std::uint64_t in_count,
           std::uint64_t out_count, const std::string& problem, shape s, ncclComm_t comm, workspace::state& ws,
           cudaStream_t stream) {
  ws.descriptors_for(s.ranks);
  descriptor& own = ws.host[s.ranks];
  own = {in_count, out_count, static_cast<std::uint32_t>(call), type, mode_code, problem.empty() ? 1u : 0u};
  check_cuda(cudaMemcpyAsync(ws.descriptors + s.ranks, &own, sizeof own, cudaMemcpyHostToDevice, stream),
             "cudaMemcpyAsync of the argument descriptor");
  allgather_bytes(ws.descriptors + s.ranks, sizeof(descriptor), ws.descriptors, s, comm, stream);
  check_cuda(cudaMemcpyAsync(ws.host, ws.descriptors, s.ranks * sizeof(descriptor), cudaMemcpyDeviceToHost, stream),
             "cudaMemcpyAsync of the argument descriptors");
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");

  const std::string what = call_name(call);
  if (!problem.empty()) throw error(problem);
  for (int q = 0; q < s.ranks; ++q) {
    const descriptor& d = ws.host[q];
    if (d.valid == 0) {
      throw error(what + ": the arguments of rank " + std::to_string(q) +
                  " are invalid (that rank's detred::error names them); no rank computes a result");
    }
  }
  for (int q = 0; q < s.ranks; ++q) {
    const descriptor& d = ws.host[q];
    if (d.call != own.call) {
      throw error(what + ": rank " + std::to_string(q) + " called " + call_name(static_cast<collective>(d.call)) +
                  "; every rank must make the same call");
    }
    if (d.type != type) {
      throw error(what + ": rank " + std::to_string(q) + " passed " + element_name(d.type) + " elements, this rank " +
                  element_name(type) + "; every rank must pass one element type");
    }
    if (d.mode != mode_code) {
      throw error(what + ": rank " + std::to_string(q) + " asked for mode " + to_string(static_cast<mode>(d.mode)) +
                  ", this rank for " + to_string(static_cast<mode>(mode_code)) + "; every rank must ask for one mode");
    }
    if (d.in_count != in_count || d.out_count != out_count) {
      throw error(what + ": rank " + std::to_string(q) + " passed x of " + std::to_string(d.in_count) +
                  " elements and out of " + std::to_string(d.out_count) + ", this rank " + std::to_string(in_count) +
                  " and " + std::to_string(out_count) + "; the lengths must be the same on every rank");
    }
  }
}

/// This rank's own argument checks: the lengths, and (floating point) the mode, by the column sums' own check on an
/// empty matrix, so that a refused mode gets the library's one refusal.
template <class In>
std::string own_problem(collective call, std::uint64_t x_size, std::uint64_t out_size, mode m, shape s,
                        workspace::state& ws, cudaStream_t stream) {
  const std::string what = call_name(call);
  if (current_device() != ws.device) {
    return what + ": the current CUDA device is " + std::to_string(current_device()) + ", the workspace's " +
           std::to_string(ws.device);
  }
  if (call == collective::allreduce && out_size != x_size) {
    return what + ": out has " + std::to_string(out_size) + " elements, x " + std::to_string(x_size) + " (this rank)";
  }
  if (call == collective::reduce_scatter && x_size != out_size * static_cast<std::uint64_t>(s.ranks)) {
    return what + ": x has " + std::to_string(x_size) + " elements, out " + std::to_string(out_size) +
           "; x must hold out's length times the rank count (" + std::to_string(s.ranks) + ")";
  }
  if constexpr (std::is_floating_point_v<In> || is_half<In>) {
    using A = std::conditional_t<is_half<In>, float, In>;  // the batched sums' result type
    try {
      cuda::sum_async(matrix_view<In>{nullptr, static_cast<std::uint64_t>(s.ranks), 0, 0, layout::row_major}, 0,
                      std::span<A>(), {.mode = m, .stream = stream, .workspace = &ws.sums});
    } catch (const error& e) {
      return what + ": " + e.what();
    }
  }
  return {};
}

/// out[j] = the sum of column j of the row-major R x cols matrix `rows`, for j < cols.
template <class In, class Out>
void column_sums(const In* rows, std::uint64_t ranks, std::uint64_t cols, Out* out, std::uint64_t first_index,
                 unsigned long long* overflow, workspace::state& ws, mode m, cudaStream_t stream) {
  if (cols == 0) return;
  if constexpr (std::is_floating_point_v<In> || is_half<In>) {
    // The float sums of 16-bit elements (each widened as it is loaded) are rounded to the element type as they are
    // stored. A widened copy of the block first cost two more passes over it (1 GiB of bfloat16 on one rank: 7.9x
    // NCCL's time, float32 2.6x, H100), and a rounding kernel after the sums 4 S/R more traffic.
    cuda::sum_columns_async(matrix_view<In>{rows, ranks, cols, cols, layout::row_major}, std::span<Out>(out, cols),
                            {.mode = m, .stream = stream, .workspace = &ws.sums});
  } else {
    detail::integer_column_sums(rows, ranks, cols, out, first_index, overflow, stream);
  }
}

/// The data path, after the ranks have agreed on the arguments: x of n elements, out of n (allreduce) or n / R
/// (reduce-scatter).
template <class In, class Out>
void move_and_sum(collective call, const In* x, std::uint64_t n, Out* out, shape s, ncclComm_t comm,
                  workspace::state& ws, mode m, cudaStream_t stream) {
  constexpr bool integer = std::is_integral_v<In>;
  const auto ranks = static_cast<std::uint64_t>(s.ranks);
  const auto me = static_cast<std::uint64_t>(s.me);
  const std::uint64_t shard = n / ranks;
  const std::uint64_t tail = call == collective::allreduce ? n - ranks * shard : 0;
  if (n == 0) return;

  // Scratch: the received R x shard block and the R x tail block (In), then (integers) this rank's and every rank's
  // first overflowing index.
  const std::size_t block_bytes = aligned(ranks * shard * sizeof(In));
  const std::size_t tail_bytes = aligned(ranks * tail * sizeof(In));
  const std::size_t extra_bytes = integer ? aligned((ranks + 1) * sizeof(unsigned long long)) : 0;
  auto* const base = static_cast<std::byte*>(ws.scratch_of(block_bytes + tail_bytes + extra_bytes, stream));
  auto* const block = reinterpret_cast<In*>(base);
  auto* const tail_block = reinterpret_cast<In*>(base + block_bytes);
  std::byte* const extra = base + block_bytes + tail_bytes;
  auto* const overflow = reinterpret_cast<unsigned long long*>(extra);  // [0] this rank, [1 + q] rank q
  if constexpr (integer) {
    check_cuda(cudaMemsetAsync(overflow, 0xff, sizeof(unsigned long long), stream), "cudaMemsetAsync");
  }

  // The all-to-all: rank q's shard r lands in row q of rank r's block; every rank's tail in row q of every tail
  // block. NCCL moves bytes: no arithmetic of its own.
  const char* const bytes = reinterpret_cast<const char*>(x);
  const std::size_t shard_bytes = shard * sizeof(In);
  const std::size_t tail_bytes_each = tail * sizeof(In);
  const char* const own_tail = bytes + ranks * shard_bytes;
  if (shard_bytes > 0) {
    check_cuda(cudaMemcpyAsync(reinterpret_cast<char*>(block) + me * shard_bytes, bytes + me * shard_bytes, shard_bytes,
                               cudaMemcpyDeviceToDevice, stream),
               "cudaMemcpyAsync of this rank's own shard");
  }
  if (tail_bytes_each > 0) {
    check_cuda(cudaMemcpyAsync(reinterpret_cast<char*>(tail_block) + me * tail_bytes_each, own_tail, tail_bytes_each,
                               cudaMemcpyDeviceToDevice, stream),
               "cudaMemcpyAsync of this rank's own tail");
  }
  if (ranks > 1) {
    check_nccl(ncclGroupStart(), comm, "ncclGroupStart");
    for (std::uint64_t step = 1; step < ranks; ++step) {
      // Partners in a rotating order, so that no rank is every rank's first.
      const std::uint64_t to = (me + step) % ranks;
      const std::uint64_t from = (me + ranks - step) % ranks;
      if (shard_bytes > 0) {
        check_nccl(ncclSend(bytes + to * shard_bytes, shard_bytes, ncclUint8, static_cast<int>(to), comm, stream), comm,
                   "ncclSend");
        check_nccl(ncclRecv(reinterpret_cast<char*>(block) + from * shard_bytes, shard_bytes, ncclUint8,
                            static_cast<int>(from), comm, stream),
                   comm, "ncclRecv");
      }
      if (tail_bytes_each > 0) {
        check_nccl(ncclSend(own_tail, tail_bytes_each, ncclUint8, static_cast<int>(to), comm, stream), comm,
                   "ncclSend");
        check_nccl(ncclRecv(reinterpret_cast<char*>(tail_block) + from * tail_bytes_each, tail_bytes_each, ncclUint8,
                            static_cast<int>(from), comm, stream),
                   comm, "ncclRecv");
      }
    }
    check_nccl(ncclGroupEnd(), comm, "ncclGroupEnd");
  }

  // The sums: this rank's block into its place in out (allreduce) or into out (reduce-scatter), the tail into the
  // end of out. x is no longer read, so out may be x.
  Out* const own_sums = call == collective::allreduce ? out + me * shard : out;
  column_sums(block, ranks, shard, own_sums, me * shard, overflow, ws, m, stream);
  column_sums(tail_block, ranks, tail, out + ranks * shard, ranks * shard, overflow, ws, m, stream);

  if (call == collective::allreduce) {
    // In place: rank r's sums are already at out + r * shard.
    allgather_bytes(own_sums, shard * sizeof(Out), out, s, comm, stream);
  }
  if constexpr (integer) {
    // Synchronous: every rank learns whether any rank's sums overflowed (the host slots hold R + 1 descriptors,
    // room for more than R flags).
    allgather_bytes(overflow, sizeof *overflow, overflow + 1, s, comm, stream);
    auto* const flags = reinterpret_cast<unsigned long long*>(ws.host);
    check_cuda(cudaMemcpyAsync(flags, overflow + 1, ranks * sizeof *flags, cudaMemcpyDeviceToHost, stream),
               "cudaMemcpyAsync of the overflow flags");
    check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    const unsigned long long first = *std::min_element(flags, flags + ranks);
    if (first != ~0ull) {
      throw overflow_error(std::string(call_name(call)) + ": the exact sum over the ranks of element " +
                           std::to_string(first) + " does not fit in " + (std::is_signed_v<In> ? "int64" : "uint64") +
                           " (the result is not defined)");
    }
  }
}

/// The ranks' agreement on this rank's arguments: returns on every rank, or throws on every rank.
template <class In>
shape agreed(collective call, std::uint64_t x_size, std::uint64_t out_size, ncclComm_t comm, workspace::state& ws,
             mode m, cudaStream_t stream) {
  const shape s = shape_of(comm);
  const std::string problem = own_problem<In>(call, x_size, out_size, m, s, ws, stream);
  agree(call, element_code<In>(), std::is_integral_v<In> ? 0u : static_cast<std::uint32_t>(m), x_size, out_size,
        problem, s, comm, ws, stream);
  return s;
}

template <class In, class Out>
void run_collective(collective call, std::span<const In> x, std::span<Out> out, ncclComm_t comm, workspace& w, mode m,
                    cudaStream_t stream) {
  workspace::state& ws = state_of(w);
  const shape s = agreed<In>(call, x.size(), out.size(), comm, ws, m, stream);
  move_and_sum(call, x.data(), x.size(), out.data(), s, comm, ws, m, stream);
}

cudaStream_t cuda_stream(stream_t s) { return reinterpret_cast<cudaStream_t>(s); }

}  // namespace

#define DETRED_NCCL_FLOATING(T)                                                                           \
  void allreduce_sum(std::span<const T> x, std::span<T> out, ncclComm_t comm, workspace& ws, mode m,      \
                     stream_t stream) {                                                                   \
    run_collective(collective::allreduce, x, out, comm, ws, m, cuda_stream(stream));                      \
  }                                                                                                       \
  void reduce_scatter_sum(std::span<const T> x, std::span<T> out, ncclComm_t comm, workspace& ws, mode m, \
                          stream_t stream) {                                                              \
    run_collective(collective::reduce_scatter, x, out, comm, ws, m, cuda_stream(stream));                 \
  }
DETRED_NCCL_FLOATING(double)
DETRED_NCCL_FLOATING(float)
DETRED_NCCL_FLOATING(float16)
DETRED_NCCL_FLOATING(bfloat16)
#undef DETRED_NCCL_FLOATING

#define DETRED_NCCL_INTEGER(T, R)                                                                                    \
  void allreduce_sum(std::span<const T> x, std::span<R> out, ncclComm_t comm, workspace& ws, stream_t stream) {      \
    run_collective(collective::allreduce, x, out, comm, ws, mode::tree, cuda_stream(stream));                        \
  }                                                                                                                  \
  void reduce_scatter_sum(std::span<const T> x, std::span<R> out, ncclComm_t comm, workspace& ws, stream_t stream) { \
    run_collective(collective::reduce_scatter, x, out, comm, ws, mode::tree, cuda_stream(stream));                   \
  }
DETRED_NCCL_INTEGER(std::int32_t, std::int64_t)
DETRED_NCCL_INTEGER(std::int64_t, std::int64_t)
DETRED_NCCL_INTEGER(std::uint32_t, std::uint64_t)
DETRED_NCCL_INTEGER(std::uint64_t, std::uint64_t)
#undef DETRED_NCCL_INTEGER

template <class T>
plan<T>::plan(collective call, std::uint64_t count, ncclComm_t comm, workspace& ws, mode m, stream_t stream)
    : call_(call), count_(count), comm_(comm), ws_(&ws), mode_(m) {
  const shape s = shape_of(comm);
  out_count_ = call == collective::allreduce ? count : count / static_cast<std::uint64_t>(s.ranks);
  const shape agreed_shape = agreed<T>(call, count, out_count_, comm, state_of(ws), m, cuda_stream(stream));
  ranks_ = agreed_shape.ranks;
  me_ = agreed_shape.me;
}

template <class T>
void plan<T>::operator()(const T* x, result_t<T>* out, stream_t stream) const {
  move_and_sum(call_, x, count_, out, shape{ranks_, me_}, comm_, state_of(*ws_), mode_, cuda_stream(stream));
}

template class plan<double>;
template class plan<float>;
template class plan<float16>;
template class plan<bfloat16>;
template class plan<std::int32_t>;
template class plan<std::int64_t>;
template class plan<std::uint32_t>;
template class plan<std::uint64_t>;

}  // namespace detred::nccl
