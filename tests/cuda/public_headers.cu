// SPDX-License-Identifier: BSD-3-Clause
// Compile-only: every public header in a .cu file, compiled by nvcc, with calls that instantiate the templates a CUDA
// user calls. nvcc rejects C++ that GCC and Clang accept (partial.hpp once named the type `operation` inside a class
// whose member function `operation()` hides it: "function "detred::partial_state::operation" is not a type name"),
// so the CUDA build compiles this file; nothing here runs.
#include <cstdint>
#include <span>
#include <vector>

#include "detred/batched.hpp"
#include "detred/bounds.hpp"
#include "detred/catalogue.hpp"
#include "detred/config.hpp"
#include "detred/cpu.hpp"
#include "detred/cuda.hpp"
#include "detred/cuda_norm_rows.hpp"
#include "detred/cuda_scan.hpp"
#include "detred/detred.h"
#include "detred/detred.hpp"
#include "detred/dot.hpp"
#include "detred/exact/superaccumulator.hpp"
#include "detred/extrema.hpp"
#include "detred/norms.hpp"
#include "detred/number_types.hpp"
#include "detred/options.hpp"
#include "detred/order.hpp"
#include "detred/partial.hpp"
#include "detred/reference.hpp"
#include "detred/scan.hpp"
#include "detred/statistics.hpp"
#include "detred/stats.hpp"
#include "detred/sum.hpp"
#include "detred/version.hpp"
#if DETRED_TEST_MPI_HEADER
#include "detred/mpi.hpp"
#endif

namespace {

/// A GPU's state merged with the CPU's, in one .cu file: what a CUDA user does with partial states.
[[maybe_unused]] double gpu_and_cpu(std::span<const double> device_part, std::span<const double> host_part) {
  detred::cuda::workspace ws;
  detred::partial_state all = detred::cuda::sum_state(device_part, 0, {.workspace = &ws});
  all.merge(detred::partial_state::of(detred::operation::sum, host_part, device_part.size()));
  detred::partial_state stream = detred::partial_state::empty<double>(detred::operation::sum);
  stream.append(host_part);
  const std::vector<std::byte> bytes = all.serialize();
  const detred::partial_state back = detred::partial_state::deserialize(bytes);
  const detred::partial_state d = detred::partial_state::of(detred::operation::dot, host_part, host_part, 0);
  return back.result<double>() + d.result<double>() + detred::sum(host_part) + detred::stats(host_part).variance +
         static_cast<double>(detred::order::depth<double>(host_part.size())) +
         static_cast<double>(back.operation() == detred::operation::sum);
}

/// A scan of device memory next to the CPU's, in one .cu file.
[[maybe_unused]] void gpu_and_cpu_scans(std::span<const float> device_x, std::span<float> device_y,
                                        std::span<const float> host_x, std::span<float> host_y) {
  detred::cuda::workspace ws;
  detred::cuda::cumsum_async(device_x, device_y, {.mode = detred::mode::compensated, .workspace = &ws});
  detred::cumsum(host_x, host_y);
}

/// A row normalization of device memory (detred/cuda_norm_rows.hpp).
[[maybe_unused]] void gpu_rms_norm(detred::matrix_view<detred::bfloat16> x, std::span<detred::bfloat16> y,
                                   std::span<float> rstd) {
  detred::cuda::rms_norm_rows_async(x, {}, 1e-6, y, rstd);
}

/// The templates of detred/cuda.hpp (reduce, reduce_async and the named calls over them), instantiated by nvcc.
[[maybe_unused]] float gpu_reductions(std::span<const float> device_x, std::span<const float> device_y,
                                      float* device_result, detred::cuda::stream_t stream) {
  const detred::options opt{.mode = detred::mode::compensated, .stream = stream};
  detred::cuda::reduce_async<detred::operation::dot>(device_x, device_y, device_result, opt);
  detred::cuda::sumsq_async(device_x, device_result, opt);
  detred::cuda::synchronize(opt);
  const detred::statistics<float> s = detred::cuda::reduce<detred::operation::stats>(device_x, opt);
  return detred::cuda::reduce<detred::operation::sum>(device_x, opt) + s.mean +
         static_cast<float>(detred::cuda::argmax(device_x, opt));
}

}  // namespace
