// The seam between the host library and the CUDA backend. lib/cuda implements it when CUDA is built;
// unavailable.cpp implements it otherwise, so that backend::cuda fails with a clear message.
#pragma once

#include <span>

#include "detred/options.hpp"

namespace detred::cuda_backend {

/// True if the CUDA backend is compiled in and a device is usable.
bool available();

/// Copies host data to the current device, reduces it there, returns the value. Throws detred::error.
double sum_host(std::span<const double> x, mode m);
float sum_host(std::span<const float> x, mode m);

}  // namespace detred::cuda_backend
