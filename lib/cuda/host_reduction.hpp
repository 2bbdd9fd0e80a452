// SPDX-License-Identifier: BSD-3-Clause
// An operator over operands that may be in host memory, with a given workspace: what the backend seam
// (backend_seam.cpp) runs for detred's host API with backend::cuda. Defined in api.cpp for every operator in
// backend_operators.
#pragma once

#include <cstdint>

#include "detred/cuda.hpp"
#include "detred/order.hpp"

namespace detred::cuda::detail {

template <class Op>
typename Op::result reduce_host_with(const order::operands<Op>& x, std::uint64_t n, workspace& ws, stream_t stream);

}  // namespace detred::cuda::detail
