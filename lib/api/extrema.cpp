// SPDX-License-Identifier: BSD-3-Clause
// detred::min, max, argmin, argmax: refuse an empty input, route.
#include <cstdint>
#include <span>
#include <string>

#include "core/operators.hpp"
#include "detred/extrema.hpp"
#include "route.hpp"

namespace detred {
namespace {

template <class Op>
typename Op::result selection_of(std::span<const typename Op::input> x, const options& opt, const char* what) {
  validate(opt);
  if (x.empty()) throw error(std::string(what) + ": an empty array has no " + what + " (it needs at least 1 element)");
  return run<Op>(x, opt);
}

}  // namespace

#define DETRED_SELECTIONS(T)                                                                                \
  T min(std::span<const T> x, const options& opt) { return selection_of<order::min_op<T>>(x, opt, "min"); } \
  T max(std::span<const T> x, const options& opt) { return selection_of<order::max_op<T>>(x, opt, "max"); } \
  std::uint64_t argmin(std::span<const T> x, const options& opt) {                                          \
    return selection_of<order::argmin_op<T>>(x, opt, "argmin");                                             \
  }                                                                                                         \
  std::uint64_t argmax(std::span<const T> x, const options& opt) {                                          \
    return selection_of<order::argmax_op<T>>(x, opt, "argmax");                                             \
  }

DETRED_SELECTIONS(double)
DETRED_SELECTIONS(float)
DETRED_SELECTIONS(std::int32_t)
DETRED_SELECTIONS(std::int64_t)
DETRED_SELECTIONS(std::uint32_t)
DETRED_SELECTIONS(std::uint64_t)
#undef DETRED_SELECTIONS

}  // namespace detred
