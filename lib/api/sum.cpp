// SPDX-License-Identifier: BSD-3-Clause
// detred::sum for every element type: the front door of operation::sum (front_door.hpp).
#include <cstdint>
#include <span>

#include "detred/sum.hpp"
#include "front_door.hpp"

namespace detred {

double sum(std::span<const double> x, const options& opt) { return front_door<operation::sum>(x, opt); }
float sum(std::span<const float> x, const options& opt) { return front_door<operation::sum>(x, opt); }
float sum(std::span<const float16> x, const options& opt) { return front_door<operation::sum>(x, opt); }
float sum(std::span<const bfloat16> x, const options& opt) { return front_door<operation::sum>(x, opt); }
std::int64_t sum(std::span<const std::int32_t> x, const options& opt) { return front_door<operation::sum>(x, opt); }
std::int64_t sum(std::span<const std::int64_t> x, const options& opt) { return front_door<operation::sum>(x, opt); }
std::uint64_t sum(std::span<const std::uint32_t> x, const options& opt) { return front_door<operation::sum>(x, opt); }
std::uint64_t sum(std::span<const std::uint64_t> x, const options& opt) { return front_door<operation::sum>(x, opt); }

}  // namespace detred
