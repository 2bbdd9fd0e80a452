// SPDX-License-Identifier: BSD-3-Clause
// detred::dot: the front door of operation::dot (front_door.hpp).
#include <span>

#include "detred/dot.hpp"
#include "front_door.hpp"

namespace detred {

double dot(std::span<const double> x, std::span<const double> y, const options& opt) {
  return front_door<operation::dot>(x, y, opt);
}
float dot(std::span<const float> x, std::span<const float> y, const options& opt) {
  return front_door<operation::dot>(x, y, opt);
}
float dot(std::span<const float16> x, std::span<const float16> y, const options& opt) {
  return front_door<operation::dot>(x, y, opt);
}
float dot(std::span<const bfloat16> x, std::span<const bfloat16> y, const options& opt) {
  return front_door<operation::dot>(x, y, opt);
}

}  // namespace detred
