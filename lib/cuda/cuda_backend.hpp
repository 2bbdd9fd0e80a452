// The seam between the host library and the CUDA backend. lib/cuda implements it when CUDA is built;
// unavailable.cpp implements it otherwise, so that backend::cuda fails with a clear message.
#pragma once

#include <cstdint>
#include <span>

#include "detred/options.hpp"
#include "detred/order.hpp"

namespace detred::cuda_backend {

/// True if the CUDA backend is compiled in and a device is usable.
bool available();

/// Copies host operands to the current device, reduces them there with Op, returns the result. Device or managed
/// memory is reduced in place. Throws detred::error. Defined for every operator in all_operators.
template <class Op>
typename Op::result reduce_host(const order::operands<Op>& x, std::uint64_t n);

}  // namespace detred::cuda_backend
