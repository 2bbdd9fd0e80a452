// SPDX-License-Identifier: BSD-3-Clause
// Run-time choice of the instruction set. CPUID is asked through the compiler's __builtin_cpu_supports, and for
// F16C through CPUID leaf 1 itself (clang before 16 has no "f16c" for the builtin); the automatic choice is made once
// per process.
#include "isa_selection.hpp"

#include <cstdlib>
#include <string>
#if DETRED_HAVE_X86_KERNELS
#include <cpuid.h>
#endif
#include <string_view>

#include "detred/cpu.hpp"
#include "isa_tables.hpp"

namespace detred {
namespace {

#if DETRED_HAVE_X86_KERNELS
/// F16C: CPUID leaf 1, ECX bit 29.
bool has_f16c() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0 && (ecx & (1u << 29)) != 0;
}
#endif

bool cpu_has(isa i) {
#if DETRED_HAVE_X86_KERNELS
  switch (i) {
    // The kernels use FMA (TwoProduct in compensated dot and nrm2) and F16C (binary16 loads) with each set.
    case isa::avx512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma") && has_f16c();
    case isa::avx2:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && has_f16c();
    default:
      return true;
  }
#else
  return i == isa::baseline || i == isa::automatic;
#endif
}

isa from_environment() {
  const char* value = std::getenv("DETRED_ISA");
  if (value == nullptr || *value == '\0') return isa::automatic;
  if (const auto parsed = parse<isa>(value)) return *parsed;
  throw error("DETRED_ISA=" + std::string(value) + " is not an instruction set (expected " + names<isa>() + ")");
}

isa checked(isa chosen) {
  if (!isa_supported(chosen)) {
    throw error(std::string("instruction set ") + to_string(chosen) + " is not supported by this CPU or build");
  }
  return chosen;
}

// Reading the environment and CPUID on every call would cost more than summing a small array. If DETRED_ISA is
// invalid, the initializer throws, nothing is cached, and every call reports the error again.
isa automatic_choice() {
  static const isa choice = [] {
    const isa from_env = from_environment();
    if (from_env != isa::automatic) return checked(from_env);
    for (isa best : {isa::avx512, isa::avx2, isa::neon}) {
      if (isa_supported(best)) return best;
    }
    return isa::baseline;
  }();
  return choice;
}

}  // namespace

bool isa_supported(isa i) {
  switch (i) {
    case isa::automatic:
    case isa::baseline:
      return true;
    case isa::avx2:
    case isa::avx512:
      return cpu_has(i);
    case isa::neon:
      // Built only for AArch64, where Advanced SIMD is mandatory: built means supported.
      return DETRED_HAVE_NEON_KERNELS != 0;
  }
  return false;
}

std::vector<isa> supported_isas() {
  std::vector<isa> out;
  for (isa i : {isa::baseline, isa::avx2, isa::avx512, isa::neon}) {
    if (isa_supported(i)) out.push_back(i);
  }
  return out;
}

isa resolved_isa(isa requested) { return cpu::resolve(requested); }

namespace cpu {

isa resolve(isa requested) {
  switch (requested) {
    case isa::automatic:
      return automatic_choice();
    case isa::baseline:
    case isa::avx2:
    case isa::avx512:
    case isa::neon:
      return checked(requested);
  }
  throw error("unknown isa " + std::to_string(static_cast<int>(requested)));
}

const kernel_table& kernels_for(isa resolved) {
  return table_of_isa<kernel_table>(resolved, {.baseline = &baseline_kernels,
                                               .avx2 = DETRED_X86_TABLE(avx2_kernels),
                                               .avx512 = DETRED_X86_TABLE(avx512_kernels),
                                               .neon = DETRED_NEON_TABLE(neon_kernels)});
}

}  // namespace cpu
}  // namespace detred
