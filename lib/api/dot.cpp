// SPDX-License-Identifier: BSD-3-Clause
// detred::dot: detred::reduce of operation::dot (reduce.cpp).
#include <span>

#include "detred/dot.hpp"
#include "detred/reduce.hpp"

namespace detred {

double dot(std::span<const double> x, std::span<const double> y, const options& opt) {
  return reduce<operation::dot>(x, y, opt);
}
float dot(std::span<const float> x, std::span<const float> y, const options& opt) {
  return reduce<operation::dot>(x, y, opt);
}
float dot(std::span<const float16> x, std::span<const float16> y, const options& opt) {
  return reduce<operation::dot>(x, y, opt);
}
float dot(std::span<const bfloat16> x, std::span<const bfloat16> y, const options& opt) {
  return reduce<operation::dot>(x, y, opt);
}

}  // namespace detred
