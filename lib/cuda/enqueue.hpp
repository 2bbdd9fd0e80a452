// Enqueues a sum on a stream: the leaf pass, then folding passes until one value is left. Plain C++ interface, so
// that host code (the API, the tests) needs no CUDA compiler.
#pragma once

#include <cstdint>

#include "detred/cuda.hpp"
#include "detred/options.hpp"
#include "launch_plan.hpp"

namespace detred::cuda::detail {

/// Bytes of one accumulator value in mode m: what the partial buffer holds per value.
template <class T>
constexpr std::uint64_t accumulator_bytes(mode m) {
  return m == mode::compensated ? 2 * sizeof(T) : sizeof(T);
}

/// Enqueues the sum of the device array x[0..n) on `stream`, writing the finalized result to the device address
/// `result`. `partials` must hold partial_values(plan) accumulators. Throws detred::error if a launch fails.
/// Sums enqueued on any device since the process started: lets tests see where a call ran, which the result bits,
/// equal on every backend, cannot tell.
std::uint64_t enqueued_sums();

void enqueue_sum(const double* x, std::uint64_t n, mode m, const launch_plan& plan, void* partials, double* result,
                 stream_t stream);
void enqueue_sum(const float* x, std::uint64_t n, mode m, const launch_plan& plan, void* partials, float* result,
                 stream_t stream);

}  // namespace detred::cuda::detail
