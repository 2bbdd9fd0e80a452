// SPDX-License-Identifier: BSD-3-Clause
// The seam of cuda_backend.hpp: the host API with backend::cuda, on options::stream and options::workspace (or the
// library's workspace for the current device and that stream: call_workspace.hpp).
#include <span>
#include <tuple>

#include <cuda_runtime_api.h>

#include "backend_instances.hpp"
#include "call_workspace.hpp"
#include "core/backend_seam.hpp"
#include "core/operators.hpp"
#include "cuda_backend.hpp"
#include "cuda_check.hpp"
#include "detred/cuda.hpp"
#include "host_reduction.hpp"

namespace detred::cuda_backend {

bool available() { return cuda::available(); }

template <class Op>
typename Op::result reduce_host(const order::operands<Op>& x, std::uint64_t n, const options& opt) {
  cuda::detail::call_workspace held(opt);
  return cuda::detail::reduce_host_with<Op>(x, n, held.get(), opt.stream);
}

template struct one_array_calls<backend_operators>;

const backend_seam& seam() {
  static const backend_seam s = seam_of<entry_points>();
  return s;
}

}  // namespace detred::cuda_backend
