// SPDX-License-Identifier: BSD-3-Clause
#include "measure_group.hpp"

#include <bit>
#include <cstdint>
#include <functional>
#include <iostream>
#include <memory>
#include <string>

#include <unistd.h>

#include "baselines.hpp"
#include "detred/cpu.hpp"
#include "detred/sum.hpp"
#include "measure.hpp"

namespace detred::bench {
namespace {

// Every result is stored here, so the compiler cannot drop a call whose value is unused.
template <class T>
volatile T sink = 0;

template <class T>
using bits_of = std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>;

template <class T>
struct variant {
  measurement m;
  std::function<double(const timing_policy&)> seconds_per_call;  ///< one timed measurement
  std::shared_ptr<std::uint64_t> mismatches;                     ///< detred variants only
};

template <class T>
measurement blank(std::span<const T> x, const char* op, std::string mode, int threads) {
  measurement m;
  m.type = sizeof(T) == 8 ? "double" : "float";
  m.element_bytes = sizeof(T);
  m.n = x.size();
  m.op = op;
  m.mode = std::move(mode);
  m.threads = threads;
  return m;
}

/// A baseline: f(x, n, threads) -> T.
template <class T, class F>
variant<T> baseline_variant(std::span<const T> x, const char* op, std::string mode, int threads, F f) {
  return {blank(x, op, std::move(mode), threads),
          [x, threads, f](const timing_policy& p) {
            return seconds_per_call([&] { sink<T> = f(x.data(), x.size(), threads); }, p);
          },
          nullptr};
}

/// expected: the bits every call must return, whatever the thread count and instruction set.
template <class T>
variant<T> detred_variant(std::span<const T> x, detred::mode mode, int threads, detred::isa isa, bits_of<T> expected) {
  const detred::options opt{.mode = mode, .threads = threads, .isa = isa};
  auto mismatches = std::make_shared<std::uint64_t>(0);
  measurement m = blank(x, op::detred_sum, detred::to_string(mode), threads);
  m.isa = detred::to_string(detred::resolved_isa(isa));
  return {std::move(m),
          [x, opt, expected, mismatches](const timing_policy& p) {
            std::uint64_t& bad = *mismatches;
            return seconds_per_call(
                [&] {
                  const T r = detred::sum(x, opt);
                  sink<T> = r;
                  bad += std::bit_cast<bits_of<T>>(r) != expected;
                },
                p);
          },
          mismatches};
}

template <class T>
std::vector<variant<T>> variants_for(std::span<const T> x, const bench_options& o) {
  std::vector<variant<T>> v;
  // The reference bits: one thread, the first instruction set. Every timed call must reproduce them.
  const auto reference = [&](detred::mode m) {
    return std::bit_cast<bits_of<T>>(detred::sum(x, {.mode = m, .threads = 1, .isa = o.isas.front()}));
  };
  const bits_of<T> tree_bits = reference(detred::mode::tree);
  const bits_of<T> compensated_bits = reference(detred::mode::compensated);
  const bits_of<T> exact_bits = reference(detred::mode::exact);
  v.push_back(baseline_variant<T>(x, op::strict_serial, "strict", 1,
                                  [](const T* p, std::size_t n, int) { return strict_serial_sum(p, n); }));
  v.push_back(baseline_variant<T>(x, op::fastmath_serial, "fast-math", 1,
                                  [](const T* p, std::size_t n, int) { return fastmath_serial_sum(p, n); }));
  for (int t : o.threads) {
    for (detred::isa isa : o.isas) {
      v.push_back(detred_variant<T>(x, detred::mode::tree, t, isa, tree_bits));
      v.push_back(detred_variant<T>(x, detred::mode::compensated, t, isa, compensated_bits));
      v.push_back(detred_variant<T>(x, detred::mode::exact, t, isa, exact_bits));
    }
    v.push_back(baseline_variant<T>(x, op::fastmath_omp, "fast-math", t,
                                    [](const T* p, std::size_t n, int th) { return fastmath_omp_sum(p, n, th); }));
    for (const ceiling_shape& shape : ceiling_shapes) {
      v.push_back(baseline_variant<T>(x, op::ceiling, shape.name, t, [shape](const T* p, std::size_t n, int th) {
        return ceiling_sum(p, n, th, shape);
      }));
    }
  }
  return v;
}

}  // namespace

template <class T>
std::vector<measurement> measure_group(std::span<const T> x, const bench_options& o) {
  std::vector<variant<T>> variants = variants_for(x, o);
  const std::size_t count = variants.size();
  // Progress only on a terminal: in a log it would interleave with the table.
  const bool progress = isatty(STDERR_FILENO) != 0;
  for (int round = 0; round < o.rounds; ++round) {
    if (progress) {
      std::cerr << "\r  " << variants[0].m.type << " n=" << format_size(x.size()) << ": round " << round + 1 << "/"
                << o.rounds << std::flush;
    }
    // Each round starts one variant later, so no variant always runs right after the same neighbour.
    for (std::size_t k = 0; k < count; ++k) {
      variant<T>& v = variants[(k + static_cast<std::size_t>(round)) % count];
      const double seconds = v.seconds_per_call(o.timing);
      v.m.gelem_per_round.push_back(static_cast<double>(x.size()) / seconds / 1e9);
    }
  }
  if (progress) std::cerr << "\r" << std::string(60, ' ') << "\r";

  std::vector<measurement> out;
  for (variant<T>& v : variants) {
    v.m.gelem = median(v.m.gelem_per_round);
    if (v.mismatches) {
      v.m.bit_mismatches = *v.mismatches;
      if (v.m.bit_mismatches != 0) {
        std::cerr << "detred-bench: ERROR: " << v.m.type << " " << v.m.mode << " " << v.m.isa << " n=" << x.size()
                  << " threads=" << v.m.threads << ": " << v.m.bit_mismatches
                  << " calls returned bits different from the one-thread result of the first instruction set\n";
      }
    }
    out.push_back(std::move(v.m));
  }
  return out;
}

template std::vector<measurement> measure_group<double>(std::span<const double>, const bench_options&);
template std::vector<measurement> measure_group<float>(std::span<const float>, const bench_options&);

}  // namespace detred::bench
