// SPDX-License-Identifier: BSD-3-Clause
// Baseline (a): the loop anyone would write, built with the library's strict floating-point flags. Every addition
// depends on the previous one, so it runs at one addition per floating-point add latency.
#include "baselines.hpp"

namespace detred::bench {
namespace {

template <class T>
T serial(const T* x, std::size_t n) {
  T s = 0;
  for (std::size_t i = 0; i < n; ++i) s += x[i];
  return s;
}

}  // namespace

double strict_serial_sum(const double* x, std::size_t n) { return serial(x, n); }
float strict_serial_sum(const float* x, std::size_t n) { return serial(x, n); }

}  // namespace detred::bench
