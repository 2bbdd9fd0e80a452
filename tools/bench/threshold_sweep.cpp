// SPDX-License-Identifier: BSD-3-Clause
// detred-threshold-sweep: where does a second thread start to pay? For sizes around the CPU driver's parallel
// threshold it times the threaded driver forced to split (threshold 0) against one thread, interleaved, medians of
// several rounds. The smallest size from which two threads win is where lib/cpu/cpu_backend.hpp's
// {tree,compensated}_parallel_threshold_bytes belong (docs/performance.md records the run).
#include <cstdint>
#include <cstdio>
#include <span>
#include <vector>

#include "aligned_buffer.hpp"
#include "core/operators.hpp"
#include "cpu/cpu_backend.hpp"
#include "detred/detred.hpp"
#include "measure.hpp"

namespace {

template <class T>
void sweep(const char* type_name, int rounds) {
  using detred::bench::aligned_buffer;
  const detred::isa isa = detred::resolved_isa(detred::isa::automatic);
  std::printf("%-6s %10s %9s %14s %14s %8s\n", type_name, "n", "KiB", "1 thread ns", "2 threads ns", "2t/1t");
  for (int k = 11; k <= 21; ++k) {
    const std::uint64_t n = std::uint64_t{1} << k;
    aligned_buffer<T> buffer(n);
    detred::bench::fill_uniform(buffer);
    const std::span<const T> x = buffer.span();
    for (detred::mode m : {detred::mode::tree, detred::mode::compensated}) {
      std::vector<double> one, two;
      volatile T sink{};
      for (int r = 0; r < rounds; ++r) {
        // The driver forced to split (threshold 0) on 1 and on 2 threads.
        auto forced = [&](int threads) {
          return detred::with_sum_operator<T>(m, [&]<class Op>() {
            return detred::cpu::reduce<Op>(x,
                                           {.threads = threads, .instruction_set = isa, .parallel_threshold_bytes = 0});
          });
        };
        one.push_back(detred::bench::seconds_per_call([&] { sink = forced(1); }, {}));
        two.push_back(detred::bench::seconds_per_call([&] { sink = forced(2); }, {}));
      }
      const double t1 = detred::bench::median(one) * 1e9;
      const double t2 = detred::bench::median(two) * 1e9;
      std::printf("%-6s %10llu %9llu %14.0f %14.0f %8.2f  %s\n", detred::to_string(m),
                  static_cast<unsigned long long>(n), static_cast<unsigned long long>(n * sizeof(T) / 1024), t1, t2,
                  t2 / t1, n > detred::order::leaf_size<T> && t2 < t1 ? "two threads faster" : "");
    }
  }
}

}  // namespace

int main() {
  sweep<double>("double", 5);
  sweep<float>("float", 5);
  return 0;
}
