// SPDX-License-Identifier: BSD-3-Clause
// detred::nccl as a consumer links it: the header (which includes <nccl.h> and the CUDA runtime's headers) and the
// library with its NCCL. Built, not run: a machine without a GPU builds it too.
#include <cstdio>
#include <span>

#include <detred/nccl.hpp>

int main(int argc, char**) {
  if (argc > 1) {  // never taken by the test: the calls only have to link
    detred::nccl::workspace ws;
    float* d = nullptr;
    detred::nccl::allreduce_sum(std::span<const float>(d, 0), std::span<float>(d, 0), ncclComm_t{}, ws);
  }
  std::printf("nccl consumer: NCCL %d.%d\n", NCCL_MAJOR, NCCL_MINOR);
  return 0;
}
