// SPDX-License-Identifier: BSD-3-Clause
// The front door's route for mode::exact: the CPU backend's exact kernels (lib/exact) for float and double, one array
// or a batch of lines; backend::cuda runs the GPU's exact kernel (lib/cuda/exact.cu) for one array. The entry points
// have checked the call against the catalogue (checked_mode) before they come here.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <type_traits>

#include "core/validate.hpp"
#include "cuda/cuda_backend.hpp"
#include "detred/number_types.hpp"
#include "detred/options.hpp"
#include "detred/order.hpp"
#include "exact/exact_backend.hpp"
#include "exact/exact_batches.hpp"

namespace detred::exact_route {

inline cpu::run_options how(const options& opt) { return {.threads = opt.threads, .instruction_set = opt.isa}; }

/// One array (y is read by dot only): on the GPU for backend::cuda, else on the CPU.
template <class T>
order::float_value_t<T> one_array(cuda::detail::exact_kind kind, std::span<const T> x, const T* y, const options& opt,
                                  const char* what) {
  if constexpr (std::is_same_v<T, double> || std::is_same_v<T, float>) {
    if (opt.backend == backend::cuda) return cuda_backend::exact_host(kind, x.data(), y, x.size());
    const exact::superaccumulator state =
        kind == cuda::detail::exact_kind::dot
            ? exact_cpu::dot_state(x.data(), y, x.size(), how(opt))
            : exact_cpu::sum_state(x.data(), x.size(), kind == cuda::detail::exact_kind::asum, how(opt));
    return exact::round_to<T>(state);
  } else {
    throw error(std::string(what) + ": mode exact is not available for " + to_string(element_type_of<T>()));
  }
}

template <class T>
order::float_value_t<T> sum(std::span<const T> x, const options& opt, const char* what) {
  return one_array(cuda::detail::exact_kind::sum, x, x.data(), opt, what);
}

template <class T>
order::float_value_t<T> asum(std::span<const T> x, const options& opt, const char* what) {
  return one_array(cuda::detail::exact_kind::asum, x, x.data(), opt, what);
}

template <class T>
order::float_value_t<T> dot(std::span<const T> x, std::span<const T> y, const options& opt, const char* what) {
  validate_lengths(x.size(), y.size(), what);
  return one_array(cuda::detail::exact_kind::dot, x, y.data(), opt, what);
}

/// Batches (the batched entry points check their segments, matrix or keys first): every line on the CPU.
template <class T>
void lines(exact_cpu::line_op op, const T* x, const T* y, const cpu::line_set& l, std::uint64_t count, T* results,
           const options& opt) {
  exact_cpu::reduce_lines(op, x, y, l, count, results, how(opt));
}

template <class T>
void strided_lines(exact_cpu::line_op op, const T* x, std::uint64_t length, std::uint64_t stride, std::uint64_t count,
                   T* results, const options& opt) {
  exact_cpu::reduce_strided_lines(op, x, length, stride, count, results, how(opt));
}

}  // namespace detred::exact_route
