// SPDX-License-Identifier: BSD-3-Clause
// One process driving every visible GPU, a thread per rank (the collectives wait for their stream after the
// argument check, so one thread cannot drive several ranks): ncclCommInitAll's communicators, a stream and a
// detred::nccl::workspace per rank, kept for the process's life.
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "detred/nccl.hpp"

namespace detred_nccl_tools {

inline void cuda_ok(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    std::fprintf(stderr, "%s failed: %s\n", what, cudaGetErrorString(status));
    std::exit(2);
  }
}

inline void nccl_ok(ncclResult_t status, const char* what) {
  if (status != ncclSuccess) {
    std::fprintf(stderr, "%s failed: %s\n", what, ncclGetErrorString(status));
    std::exit(2);
  }
}

/// What one rank's thread holds.
struct rank {
  int index = 0;
  int count = 0;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  std::unique_ptr<detred::nccl::workspace> ws;
};

class ranks {
 public:
  /// Every visible GPU a rank (DETRED_NCCL_RANKS limits the count).
  ranks() {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess) devices = 0;
    if (const char* limit = std::getenv("DETRED_NCCL_RANKS"); limit != nullptr && std::atoi(limit) > 0) {
      devices = std::min(devices, std::atoi(limit));
    }
    if (devices < 1) {
      std::fprintf(stderr, "skipped: no usable CUDA device\n");
      std::exit(77);
    }
    std::vector<ncclComm_t> comms(devices);
    nccl_ok(ncclCommInitAll(comms.data(), devices, nullptr), "ncclCommInitAll");
    ranks_.resize(devices);
    for (int r = 0; r < devices; ++r) {
      rank& k = ranks_[r];
      k.index = r;
      k.count = devices;
      k.comm = comms[r];
      cuda_ok(cudaSetDevice(r), "cudaSetDevice");
      cuda_ok(cudaStreamCreateWithFlags(&k.stream, cudaStreamNonBlocking), "cudaStreamCreate");
      k.ws = std::make_unique<detred::nccl::workspace>();
    }
  }
  ~ranks() {
    for (rank& k : ranks_) {
      cudaSetDevice(k.index);
      k.ws.reset();
      cudaStreamDestroy(k.stream);
      ncclCommDestroy(k.comm);
    }
  }
  ranks(const ranks&) = delete;
  ranks& operator=(const ranks&) = delete;

  int count() const { return static_cast<int>(ranks_.size()); }

  /// body(rank) on every rank at once, a thread each with its device current; rethrows the first exception.
  void run(const std::function<void(rank&)>& body) {
    std::vector<std::exception_ptr> failures(ranks_.size());
    std::vector<std::thread> threads;
    for (rank& k : ranks_) {
      threads.emplace_back([&, i = k.index] {
        try {
          cuda_ok(cudaSetDevice(i), "cudaSetDevice");
          body(ranks_[i]);
        } catch (...) {
          failures[i] = std::current_exception();
        }
      });
    }
    for (std::thread& t : threads) t.join();
    for (std::exception_ptr& f : failures) {
      if (f) std::rethrow_exception(f);
    }
  }

 private:
  std::vector<rank> ranks_;
};

}  // namespace detred_nccl_tools
