// SPDX-License-Identifier: BSD-3-Clause
// A program written the way a user would, built against detred from outside the project's build.
#include <cstdio>
#include <span>
#include <vector>

#include <detred/detred.hpp>

int main() {
  const std::vector<double> x = {0.1, 0.2, 0.3, -0.6, 1e-17};
  const double tree = detred::sum(std::span<const double>(x));
  const double comp = detred::sum(std::span<const double>(x), {.mode = detred::mode::compensated, .threads = 2});
  std::printf("order %d tree %a compensated %a\n", detred::order_version, tree, comp);
  // The reference must agree; a consumer linking the wrong library or headers would show here.
  return tree == detred::reference::sum(std::span<const double>(x), {.mode = detred::mode::tree}) ? 0 : 1;
}
