// SPDX-License-Identifier: BSD-3-Clause
// Sums of arrays spread over GPUs (and streams): each piece's partial state is computed where the piece lives (the
// GPU reduces the piece's aligned blocks of leaves to their subtree roots; the raw elements of the leaves its ends
// cut are copied back), then the states are merged on the host (lib/partial). The GPU runs the very kernels of a
// one-GPU sum, with an operator that stops before finalize (partial::unfinalized). In exact mode each piece's GPU
// fills a superaccumulator (exact.cu) and the host adds them up.
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <typeindex>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>

#include "call_workspace.hpp"
#include "core/operators.hpp"
#include "core/validate.hpp"
#include "cuda_check.hpp"
#include "detred/cuda.hpp"
#include "enqueue.hpp"
#include "exact_enqueue.hpp"
#include "launch_plan.hpp"
#include "partial/access.hpp"
#include "partial/exact_state.hpp"
#include "partial/state.hpp"
#include "partial/unfinalized.hpp"
#include "workspace_state.hpp"

namespace detred::cuda {
namespace {

using detail::check;
using state = detail::workspace_access::state;

constexpr std::uint64_t region_alignment = 256;
std::uint64_t aligned(std::uint64_t bytes) {
  return (bytes + region_alignment - 1) / region_alignment * region_alignment;
}

/// One piece's work: its plan (lib/partial/run.hpp), where its block roots land on the device, and their host copy.
template <class Op>
struct piece_job {
  using node = order::node_of<Op>;
  const typename Op::input* data = nullptr;  // device memory
  std::uint64_t offset = 0;
  std::vector<partial::planned_item> items;
  std::uint64_t blocks = 0;
  node* device_nodes = nullptr;

  piece_job(const typename Op::input* x, std::uint64_t n, std::uint64_t first)
      : data(x), offset(first), items(partial::plan<Op>(first, first + n)) {
    for (const auto& it : items) blocks += it.raw ? 0 : 1;
  }

  /// Partial-buffer bytes of the largest block's reduction.
  std::uint64_t pass_bytes() const {
    using U = partial::unfinalized<Op>;
    std::uint64_t most = 0;
    for (const auto& it : items) {
      if (it.raw) continue;
      const auto plan = detail::default_plan(order::leaf_count<typename Op::value>(it.end - it.begin));
      most = std::max<std::uint64_t>(most, detail::partial_bytes<U>(plan));
    }
    return most;
  }

  /// Enqueues every block's reduction into device_nodes (partials: a pass buffer free for this stream's use).
  void enqueue(void* partials, stream_t stream) const {
    using U = partial::unfinalized<Op>;
    std::uint64_t k = 0;
    for (const auto& it : items) {
      if (it.raw) continue;
      const std::uint64_t n = it.end - it.begin;
      order::operands<U> x{{data + (it.begin - offset)}, it.begin};
      detail::enqueue_reduction<U>(x, n, detail::default_plan(order::leaf_count<typename Op::value>(n)), partials,
                                   device_nodes + k, stream);
      ++k;
    }
  }

  /// Waits for the stream and builds the piece's run: raw ends copied back, block roots from the device.
  partial::run<Op> collect(stream_t stream) const {
    std::vector<node> nodes(blocks);
    if (blocks > 0) {
      check(cudaMemcpyAsync(nodes.data(), device_nodes, blocks * sizeof(node), cudaMemcpyDeviceToHost, stream),
            "cudaMemcpyAsync (subtree roots)");
    }
    partial::run<Op> r;
    std::vector<partial::item<Op>> built;
    std::uint64_t k = 0;
    for (const auto& it : items) {
      partial::item<Op> piece;
      piece.raw = it.raw;
      piece.begin = it.begin;
      piece.end = it.end;
      if (it.raw) {
        piece.elements[0].resize(it.end - it.begin);
        check(cudaMemcpyAsync(piece.elements[0].data(), data + (it.begin - offset),
                              (it.end - it.begin) * sizeof(typename Op::input), cudaMemcpyDeviceToHost, stream),
              "cudaMemcpyAsync (raw elements)");
      }
      built.push_back(std::move(piece));
    }
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    for (auto& piece : built) {
      if (!piece.raw) piece.value = nodes[k++];
      r.push_unchecked(std::move(piece));
    }
    return r;
  }
};

template <class Op>
std::unique_ptr<partial::state_for<Op>> empty_state(mode m) {
  auto s = std::make_unique<partial::state_for<Op>>();
  s->op = operation::sum;
  s->mode = m;
  s->type = element_type_of<typename Op::input>();
  return s;
}

/// Restores the caller's current device when it goes.
class device_guard {
 public:
  device_guard() { check(cudaGetDevice(&saved_), "cudaGetDevice"); }
  ~device_guard() { cudaSetDevice(saved_); }
  device_guard(const device_guard&) = delete;
  device_guard& operator=(const device_guard&) = delete;

 private:
  int saved_ = 0;
};

using detail::shared_workspace;

shared_workspace& workspace_for(int device, stream_t stream) { return detail::shared_workspace_for(device, stream); }

int device_count() {
  int devices = 0;
  check(cudaGetDeviceCount(&devices), "cudaGetDeviceCount");
  return devices;
}

/// Piece k names a device of this machine, has data when it has elements, and ends before 2^64 elements in all
/// (offset: the elements of the pieces before it).
template <class T>
void check_piece(const device_piece<T>& p, std::size_t k, int devices, std::uint64_t offset) {
  if (p.device < 0 || p.device >= devices) {
    throw error("detred::cuda::sum: piece " + std::to_string(k) + " names device " + std::to_string(p.device) +
                " (this machine has " + std::to_string(devices) + ")");
  }
  if (p.data.data() == nullptr && !p.data.empty()) {
    throw error("detred::cuda::sum: piece " + std::to_string(k) + " has a null pointer");
  }
  if (p.data.size() > ~std::uint64_t{0} - offset) throw error("detred::cuda::sum: the pieces pass 2^64 elements");
}

template <class Op>
typename Op::result sum_pieces(std::span<const device_piece<typename Op::input>> pieces, mode m) {
  using T = typename Op::input;
  const int devices = device_count();
  std::uint64_t offset = 0;
  std::vector<piece_job<Op>> jobs;
  // Pieces grouped by (device, stream): one workspace each, locked in key order (no deadlock between calls).
  std::map<std::pair<int, stream_t>, std::vector<std::size_t>> groups;
  for (std::size_t k = 0; k < pieces.size(); ++k) {
    const device_piece<T>& p = pieces[k];
    check_piece(p, k, devices, offset);
    jobs.emplace_back(p.data.data(), p.data.size(), offset);
    offset += p.data.size();
    groups[{p.device, p.stream}].push_back(k);
  }

  const device_guard restore;
  std::vector<std::unique_lock<std::mutex>> locks;
  for (auto& [key, members] : groups) {
    shared_workspace& shared = workspace_for(key.first, key.second);
    locks.emplace_back(shared.mutex);
    check(cudaSetDevice(key.first), "cudaSetDevice");
    if (!shared.ws) shared.ws = std::make_unique<workspace>();
    // One buffer per group, reserved once: the passes' scratch, then each piece's block roots after it (reserving
    // again could move the buffer while an earlier piece's roots wait to be copied back).
    std::uint64_t pass = 0, roots = 0;
    for (std::size_t k : members) {
      pass = std::max(pass, jobs[k].pass_bytes());
      roots += aligned(jobs[k].blocks * sizeof(order::node_of<Op>));
    }
    state& s = detail::workspace_access::of(*shared.ws);
    s.reserve_partials(aligned(pass) + roots, key.second);
    auto* at = static_cast<unsigned char*>(s.partials) + aligned(pass);
    for (std::size_t k : members) {
      jobs[k].device_nodes = reinterpret_cast<order::node_of<Op>*>(at);
      at += aligned(jobs[k].blocks * sizeof(order::node_of<Op>));
      jobs[k].enqueue(s.partials, key.second);
    }
  }
  // Every GPU is busy now; collect in any order.
  auto all = empty_state<Op>(m);
  for (auto& [key, members] : groups) {
    check(cudaSetDevice(key.first), "cudaSetDevice");
    for (std::size_t k : members) {
      if (!jobs[k].items.empty()) all->add_run(jobs[k].collect(key.second));
    }
  }
  T result{};
  all->result(&result, std::type_index(typeid(T)));
  return result;
}

template <class Op>
partial_state state_of(std::span<const typename Op::input> x, std::uint64_t offset, workspace& ws, mode m,
                       stream_t stream) {
  if (x.data() == nullptr && !x.empty()) throw error("detred::cuda::sum_state: the input pointer is null");
  if (x.size() > ~std::uint64_t{0} - offset) throw error("detred::cuda::sum_state: the piece passes 2^64 elements");
  state& s = detail::workspace_access::of(ws);
  s.check_current_device();
  piece_job<Op> job(x.data(), x.size(), offset);
  const std::uint64_t pass = aligned(job.pass_bytes());
  s.reserve_partials(pass + aligned(job.blocks * sizeof(order::node_of<Op>)), stream);
  job.device_nodes = reinterpret_cast<order::node_of<Op>*>(static_cast<unsigned char*>(s.partials) + pass);
  job.enqueue(s.partials, stream);
  auto st = empty_state<Op>(m);
  if (!job.items.empty()) st->add_run(job.collect(stream));
  return partial_state_access::make(std::move(st));
}

template <class T>
std::unique_ptr<partial::exact_state<exact_operator_t<operation::sum, T>>> empty_exact_state(mode m) {
  auto s = std::make_unique<partial::exact_state<exact_operator_t<operation::sum, T>>>();
  s->op = operation::sum;
  s->mode = m;
  s->type = element_type_of<T>();
  return s;
}

/// Exact mode: every piece's superaccumulator computed on its GPU (into its group's partial buffer, one slot per
/// piece), copied back and merged on the host.
template <class T>
void add_exact_pieces(std::span<const device_piece<T>> pieces,
                      partial::exact_state<exact_operator_t<operation::sum, T>>& all) {
  constexpr std::uint64_t slot = (sizeof(exact::superaccumulator) + 255) / 256 * 256;
  std::map<std::pair<int, stream_t>, std::vector<std::size_t>> groups;
  std::vector<std::uint64_t> offsets;
  std::uint64_t offset = 0;
  for (std::size_t k = 0; k < pieces.size(); ++k) {
    offsets.push_back(offset);
    offset += pieces[k].data.size();
    groups[{pieces[k].device, pieces[k].stream}].push_back(k);
  }
  const device_guard restore;
  std::vector<std::unique_lock<std::mutex>> locks;
  std::vector<exact::superaccumulator*> device_states(pieces.size());
  for (auto& [key, members] : groups) {
    shared_workspace& shared = workspace_for(key.first, key.second);
    locks.emplace_back(shared.mutex);
    check(cudaSetDevice(key.first), "cudaSetDevice");
    if (!shared.ws) shared.ws = std::make_unique<workspace>();
    state& s = detail::workspace_access::of(*shared.ws);
    s.reserve_partials(slot * members.size(), key.second);
    for (std::size_t j = 0; j < members.size(); ++j) {
      const device_piece<T>& p = pieces[members[j]];
      device_states[members[j]] =
          reinterpret_cast<exact::superaccumulator*>(static_cast<unsigned char*>(s.partials) + j * slot);
      detail::enqueue_exact<T>(detail::exact_kind::sum, p.data.data(), p.data.data(), p.data.size(), s.exact,
                               {.state = device_states[members[j]]}, key.second);
    }
  }
  std::vector<exact::superaccumulator> host(pieces.size());
  for (auto& [key, members] : groups) {
    check(cudaSetDevice(key.first), "cudaSetDevice");
    for (std::size_t k : members) {
      check(cudaMemcpyAsync(&host[k], device_states[k], sizeof(exact::superaccumulator), cudaMemcpyDeviceToHost,
                            key.second),
            "cudaMemcpyAsync (exact state)");
    }
    check(cudaStreamSynchronize(key.second), "cudaStreamSynchronize");
  }
  for (std::size_t k = 0; k < pieces.size(); ++k) all.add_accumulated(offsets[k], pieces[k].data.size(), host[k]);
}

template <class T>
T sum_pieces_exact(std::span<const device_piece<T>> pieces, mode m) {
  const int devices = device_count();
  std::uint64_t offset = 0;
  for (std::size_t k = 0; k < pieces.size(); ++k) {
    const device_piece<T>& p = pieces[k];
    check_piece(p, k, devices, offset);
    offset += p.data.size();
  }
  auto all = empty_exact_state<T>(m);
  add_exact_pieces<T>(pieces, *all);
  T result{};
  all->result(&result, std::type_index(typeid(T)));
  return result;
}

template <class T>
partial_state exact_state_of(std::span<const T> x, std::uint64_t offset, workspace& ws, mode m, stream_t stream) {
  if (x.data() == nullptr && !x.empty()) throw error("detred::cuda::sum_state: the input pointer is null");
  if (x.size() > ~std::uint64_t{0} - offset) throw error("detred::cuda::sum_state: the piece passes 2^64 elements");
  state& s = detail::workspace_access::of(ws);
  s.check_current_device();
  s.reserve_partials(sizeof(exact::superaccumulator), stream);
  auto* device_state = static_cast<exact::superaccumulator*>(s.partials);
  detail::enqueue_exact<T>(detail::exact_kind::sum, x.data(), x.data(), x.size(), s.exact, {.state = device_state},
                           stream);
  exact::superaccumulator host;
  check(cudaMemcpyAsync(&host, device_state, sizeof host, cudaMemcpyDeviceToHost, stream),
        "cudaMemcpyAsync (exact state)");
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  auto st = empty_exact_state<T>(m);
  st->add_accumulated(offset, x.size(), host);
  return partial_state_access::make(std::move(st));
}

}  // namespace

// The catalogue decides the modes (tree, compensated, exact); exact mode's operator is order-free, so its pieces
// send superaccumulators instead of subtree roots.

template <class T>
T sum_of_pieces(std::span<const device_piece<T>> pieces, mode m) {
  const mode checked = checked_mode<T>(m, operation::sum, backend::cuda, call_shape::pieces, "detred::cuda::sum");
  return with_operator<T, operation::sum>(checked, [&]<class Op>() {
    if constexpr (exact::is_exact_op<Op>) {
      return sum_pieces_exact<T>(pieces, checked);
    } else {
      return sum_pieces<Op>(pieces, checked);
    }
  });
}

template <class T>
partial_state state_of_piece(std::span<const T> x, std::uint64_t offset, workspace& ws, mode m, stream_t stream) {
  const mode checked =
      checked_mode<T>(m, operation::sum, backend::cuda, call_shape::partial_state, "detred::cuda::sum_state");
  return with_operator<T, operation::sum>(checked, [&]<class Op>() {
    if constexpr (exact::is_exact_op<Op>) {
      return exact_state_of<T>(x, offset, ws, checked, stream);
    } else {
      return state_of<Op>(x, offset, ws, checked, stream);
    }
  });
}

double sum(std::span<const device_piece<double>> pieces, const options& opt) { return sum_of_pieces(pieces, opt.mode); }
float sum(std::span<const device_piece<float>> pieces, const options& opt) { return sum_of_pieces(pieces, opt.mode); }
partial_state sum_state(std::span<const double> x, std::uint64_t offset, const options& opt) {
  detail::call_workspace ws(opt);
  return state_of_piece(x, offset, ws.get(), opt.mode, opt.stream);
}
partial_state sum_state(std::span<const float> x, std::uint64_t offset, const options& opt) {
  detail::call_workspace ws(opt);
  return state_of_piece(x, offset, ws.get(), opt.mode, opt.stream);
}

}  // namespace detred::cuda
