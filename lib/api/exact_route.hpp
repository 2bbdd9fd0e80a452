// The front door's route for mode::exact: the CPU backend's exact kernels (lib/exact) for float and double; a clear
// refusal for the element types that have none. backend::cuda runs the GPU's exact kernel (lib/cuda/exact.cu).
#pragma once

#include <span>
#include <string>
#include <type_traits>

#include "cuda/cuda_backend.hpp"
#include "detred/number_types.hpp"
#include "detred/options.hpp"
#include "detred/order.hpp"
#include "exact/exact_backend.hpp"
#include "validate.hpp"

namespace detred::exact_route {

template <class T>
void check(const char* what) {
  if constexpr (!std::is_same_v<T, double> && !std::is_same_v<T, float>) {
    throw error(std::string(what) + ": mode exact is not available for 16-bit floats (float and double only)");
  }
}

inline cpu::run_options how(const options& opt) { return {.threads = opt.threads, .instruction_set = opt.isa}; }

template <class T>
order::float_value_t<T> sum(std::span<const T> x, const options& opt, const char* what) {
  check<T>(what);
  if constexpr (std::is_same_v<T, double> || std::is_same_v<T, float>) {
    if (opt.backend == backend::cuda) {
      return cuda_backend::exact_host(cuda::detail::exact_kind::sum, x.data(), x.data(), x.size());
    }
    return exact_cpu::sum(x.data(), x.size(), how(opt));
  } else {
    return {};
  }
}

template <class T>
order::float_value_t<T> asum(std::span<const T> x, const options& opt, const char* what) {
  check<T>(what);
  if constexpr (std::is_same_v<T, double> || std::is_same_v<T, float>) {
    if (opt.backend == backend::cuda) {
      return cuda_backend::exact_host(cuda::detail::exact_kind::asum, x.data(), x.data(), x.size());
    }
    return exact_cpu::asum(x.data(), x.size(), how(opt));
  } else {
    return {};
  }
}

template <class T>
order::float_value_t<T> dot(std::span<const T> x, std::span<const T> y, const options& opt, const char* what) {
  check<T>(what);
  validate_lengths(x.size(), y.size(), what);
  if constexpr (std::is_same_v<T, double> || std::is_same_v<T, float>) {
    if (opt.backend == backend::cuda) {
      return cuda_backend::exact_host(cuda::detail::exact_kind::dot, x.data(), y.data(), x.size());
    }
    return exact_cpu::dot(x.data(), y.data(), x.size(), how(opt));
  } else {
    return {};
  }
}

}  // namespace detred::exact_route
