// SPDX-License-Identifier: BSD-3-Clause
// detred-example: generates an ill-conditioned array with a fixed PRNG and prints its sum in both modes, as
// shortest round-trip decimal and as IEEE bits, with the order version. The printed bits are the same on every
// machine, thread count and instruction set.
#include <bit>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include "detred/detred.hpp"

namespace {

// splitmix64: a fixed generator, so the example data is identical everywhere.
std::uint64_t next(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Uniform values in [-1, 1) plus pairs of large cancelling terms: the exact sum is small against sum |x_i|, so the
// two modes give visibly different answers.
std::vector<double> make_example(std::size_t n) {
  std::uint64_t state = 2026;
  std::vector<double> x(n);
  for (double& v : x) v = static_cast<double>(next(state) >> 11) * 0x1p-52 - 1.0;
  for (std::size_t i = 0; i + 1 < n; i += 1000) {
    const double big = static_cast<double>(next(state) >> 11) * 0x1p-10;  // up to 2^43
    x[i] += big;
    x[n - 1 - i] -= big;
  }
  return x;
}

std::string shortest(double v) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, v);
  return std::string(buffer, result.ptr);
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : std::size_t{1} << 24;
  const std::vector<double> x = make_example(n);
  std::printf("detred %s, canonical order version %d\n", detred::library_version, detred::order_version);
  std::printf("example: %zu float64 values (uniform [-1,1) plus cancelling pairs up to 2^43), D(n) = %d\n", n,
              detred::order::depth<double>(n));
  for (detred::mode m : {detred::mode::tree, detred::mode::compensated}) {
    const double s = detred::sum(std::span<const double>(x), {.mode = m});
    std::printf("  %-12s %-26s 0x%016llx\n", detred::to_string(m), shortest(s).c_str(),
                static_cast<unsigned long long>(std::bit_cast<std::uint64_t>(s)));
  }
  return 0;
}
