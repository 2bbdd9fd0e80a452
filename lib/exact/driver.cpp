// SPDX-License-Identifier: BSD-3-Clause
// Exact mode's driver: contiguous ranges over OpenMP threads, one superaccumulator each, merged at the end. The
// merge is exact, so the split (and the thread count) never shows in the result.
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include <omp.h>

#include "detred/number_types.hpp"

#include "cpu/isa_selection.hpp"
#include "cpu/isa_tables.hpp"
#include "exact_backend.hpp"
#include "exact_kernels.hpp"
#include "widened.hpp"

namespace detred::exact_cpu {
namespace {

/// Ranges are cut at multiples of this many elements, so that every thread runs whole kernel blocks.
constexpr std::uint64_t grain = 1024;

template <class Kernel>
exact::superaccumulator run(std::uint64_t n, std::uint64_t bytes, const cpu::run_options& how, Kernel kernel) {
  exact::superaccumulator total = exact::empty_superaccumulator();
  const std::uint64_t threshold = threshold_bytes(how);
  const int requested = how.threads > 0 ? how.threads : omp_get_max_threads();
  const std::uint64_t grains = (n + grain - 1) / grain;
  const int team = requested <= 1 || bytes < threshold || grains < 2
                       ? 1
                       : static_cast<int>(grains < static_cast<std::uint64_t>(requested) ? grains : requested);
  if (team == 1) {
    kernel(total, 0, n);
    return total;
  }
#pragma omp parallel num_threads(team)
  {
    const auto id = static_cast<std::uint64_t>(omp_get_thread_num());
    const auto size = static_cast<std::uint64_t>(omp_get_num_threads());
    const std::uint64_t begin = grains * id / size * grain;
    const std::uint64_t end = id + 1 == size ? n : grains * (id + 1) / size * grain;
    exact::superaccumulator mine = exact::empty_superaccumulator();
    kernel(mine, begin, end - begin);
#pragma omp critical(detred_exact_merge)
    exact::merge(total, mine);
  }
  return total;
}

}  // namespace

template <class T>
exact::superaccumulator sum_state(const T* x, std::uint64_t n, bool absolute, const cpu::run_options& how) {
  if constexpr (is_half<T>) {
    const auto f = sum_kernel<float>(kernels_for(cpu::resolve(how.instruction_set)), absolute);
    return run(n, n * sizeof(T), how, [&](exact::superaccumulator& acc, std::uint64_t begin, std::uint64_t count) {
      widened_grains(x + begin, nullptr, count, [&](const float* a, const float*, std::uint64_t m) { f(acc, a, m); });
    });
  } else {
    const auto f = sum_kernel<T>(kernels_for(cpu::resolve(how.instruction_set)), absolute);
    return run(n, n * sizeof(T), how, [&](exact::superaccumulator& acc, std::uint64_t begin, std::uint64_t count) {
      f(acc, x + begin, count);
    });
  }
}

template <class T>
exact::superaccumulator dot_state(const T* x, const T* y, std::uint64_t n, const cpu::run_options& how) {
  if constexpr (is_half<T>) {
    const auto f = dot_kernel<float>(kernels_for(cpu::resolve(how.instruction_set)));
    return run(n, 2 * n * sizeof(T), how, [&](exact::superaccumulator& acc, std::uint64_t begin, std::uint64_t count) {
      widened_grains(x + begin, y + begin, count,
                     [&](const float* a, const float* b, std::uint64_t m) { f(acc, a, b, m); });
    });
  } else {
    const auto f = dot_kernel<T>(kernels_for(cpu::resolve(how.instruction_set)));
    return run(n, 2 * n * sizeof(T), how, [&](exact::superaccumulator& acc, std::uint64_t begin, std::uint64_t count) {
      f(acc, x + begin, y + begin, count);
    });
  }
}

template exact::superaccumulator sum_state(const double*, std::uint64_t, bool, const cpu::run_options&);
template exact::superaccumulator sum_state(const float*, std::uint64_t, bool, const cpu::run_options&);
template exact::superaccumulator dot_state(const double*, const double*, std::uint64_t, const cpu::run_options&);
template exact::superaccumulator dot_state(const float*, const float*, std::uint64_t, const cpu::run_options&);
template exact::superaccumulator sum_state(const float16*, std::uint64_t, bool, const cpu::run_options&);
template exact::superaccumulator sum_state(const bfloat16*, std::uint64_t, bool, const cpu::run_options&);
template exact::superaccumulator dot_state(const float16*, const float16*, std::uint64_t, const cpu::run_options&);
template exact::superaccumulator dot_state(const bfloat16*, const bfloat16*, std::uint64_t, const cpu::run_options&);

const exact_kernels& kernels_for(isa resolved) {
  return cpu::table_of_isa<exact_kernels>(resolved, {.baseline = &baseline_kernels,
                                                     .avx2 = DETRED_X86_TABLE(avx2_kernels),
                                                     .avx512 = DETRED_X86_TABLE(avx512_kernels),
                                                     .neon = DETRED_NEON_TABLE(neon_kernels)});
}

}  // namespace detred::exact_cpu
