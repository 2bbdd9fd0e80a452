// SPDX-License-Identifier: BSD-3-Clause
// detred-fp-peak: the machine's peak rate of 512-bit floating-point additions, from registers, with twelve
// independent chains (enough to hide latency). Compensated mode costs seven such operations per vector of elements
// (TwoSum's six plus the correction update), so peak / 7 x lanes-per-vector bounds its in-cache speed whatever the
// memory system does; docs/performance.md uses this to show which targets the arithmetic allows. Also times the
// same additions issued as FMAs (fma(a, 1, b) rounds exactly like a + b), to see whether the FMA units add capacity.
#include <immintrin.h>

#include <chrono>
#include <cstdio>

namespace {

#define DETRED_CHAINS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)

enum class unit { add, fma, mixed };

__attribute__((target("avx512f"))) double zmm_ops_per_second(unit u, long iterations) {
#define DETRED_INIT(i) __m512d a##i = _mm512_set1_pd(i);
  DETRED_CHAINS(DETRED_INIT)
  const __m512d b = _mm512_set1_pd(1e-300);
  const __m512d one = _mm512_set1_pd(1.0);
#define DETRED_ADD(i) a##i = _mm512_add_pd(a##i, b);
#define DETRED_FMA(i) a##i = _mm512_fmadd_pd(a##i, one, b);
  const auto start = std::chrono::steady_clock::now();
  for (long k = 0; k < iterations; ++k) {
    // clang-format off
    switch (u) {
      case unit::add:
        DETRED_CHAINS(DETRED_ADD)
        break;
      case unit::fma:
        DETRED_CHAINS(DETRED_FMA)
        break;
      case unit::mixed:
        DETRED_ADD(0) DETRED_ADD(1) DETRED_ADD(2) DETRED_ADD(3) DETRED_ADD(4) DETRED_ADD(5)
        DETRED_FMA(6) DETRED_FMA(7) DETRED_FMA(8) DETRED_FMA(9) DETRED_FMA(10) DETRED_FMA(11)
        break;
    }
    // clang-format on
    // Keeps every chain live in a register and in the loop.
    asm volatile(""
                 : "+v"(a0), "+v"(a1), "+v"(a2), "+v"(a3), "+v"(a4), "+v"(a5), "+v"(a6), "+v"(a7), "+v"(a8), "+v"(a9),
                   "+v"(a10), "+v"(a11));
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return 12.0 * static_cast<double>(iterations) / seconds;
}

}  // namespace

int main() {
  if (!__builtin_cpu_supports("avx512f")) {
    std::puts("detred-fp-peak: this CPU has no AVX-512");
    return 0;
  }
  const long iterations = 50'000'000;
  for (int round = 0; round < 3; ++round) {
    const double add = zmm_ops_per_second(unit::add, iterations);
    const double fma = zmm_ops_per_second(unit::fma, iterations);
    const double mixed = zmm_ops_per_second(unit::mixed, iterations);
    std::printf("round %d: vaddpd %.2f G/s, vfmadd %.2f G/s, half and half %.2f G/s\n", round, add / 1e9, fma / 1e9,
                mixed / 1e9);
    std::printf("  compensated mode bound (7 ops per vector): double %.2f Gelem/s, float %.2f Gelem/s\n",
                add / 7 * 8 / 1e9, add / 7 * 16 / 1e9);
  }
  return 0;
}
