// SPDX-License-Identifier: BSD-3-Clause
// See backends.hpp.
#include "backends.hpp"

#include <atomic>

#include "cpu/cpu_backend.hpp"
#include "cuda/cuda_backend.hpp"

namespace detred {
namespace {

std::atomic<const backend_seam*> replaced_cpu{nullptr};
std::atomic<const backend_seam*> replaced_cuda{nullptr};

std::atomic<const backend_seam*>& replaced(backend b) { return b == backend::cuda ? replaced_cuda : replaced_cpu; }

}  // namespace

const backend_seam& seam_for(backend b) {
  const backend_seam* test_seam = replaced(b).load(std::memory_order_acquire);
  if (test_seam != nullptr) return *test_seam;
  return b == backend::cuda ? cuda_backend::seam() : cpu::seam();
}

const backend_seam* replace_seam_for_tests(backend b, const backend_seam* seam) {
  return replaced(b).exchange(seam, std::memory_order_acq_rel);
}

}  // namespace detred
