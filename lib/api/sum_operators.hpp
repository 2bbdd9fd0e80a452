// The operator that computes detred::sum in each mode: the one place where a mode becomes an operator.
#pragma once

#include <utility>

#include "detred/options.hpp"
#include "detred/order.hpp"

namespace detred {

/// Calls f.template operator()<Op>() with the sum operator of mode m (a valid mode) for element type T.
template <class T, class F>
decltype(auto) with_sum_operator(mode m, F&& f) {
  if (m == mode::compensated) return std::forward<F>(f).template operator()<order::sum_compensated<T>>();
  return std::forward<F>(f).template operator()<order::sum_tree<T>>();
}

}  // namespace detred
