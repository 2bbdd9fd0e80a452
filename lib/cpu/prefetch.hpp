// SPDX-License-Identifier: BSD-3-Clause
// A software prefetch of a range of bytes: for the engines' loops (lane_engine.inl) and for the streaming state,
// which asks for the memory that follows a caller's chunk (lib/partial/state.hpp).
#pragma once

#include <cstdint>

namespace detred::cpu {

/// The cache a prefetch fills: the first level, for data the next few hundred instructions load, or the second
/// (prefetcht2), for data further ahead that would only crowd the first level's 48 KiB meanwhile.
enum class cache_level { first, second };

/// Asks for the bytes [start, start + bytes) into the cache, a cache line at a time, ahead of the loads that read
/// them; or, with a larger `step`, one line every `step` bytes (a line per page: see strided_panel). A hint only: it
/// never faults, so the range may run past the end of an array (its address is formed as an integer). On x86 an
/// instruction of its own: GCC 12 at -O2 drops __builtin_prefetch from loops of them. static: every translation unit
/// keeps its own copy, so the per-instruction-set kernels share no symbol through it.
template <cache_level level = cache_level::first>
static inline void prefetch_bytes(std::uintptr_t start, std::uint64_t bytes, std::uint64_t step = 64) {
  for (std::uint64_t line = 0; line < bytes; line += step) {
#if defined(__x86_64__)
    if constexpr (level == cache_level::first) {
      asm volatile("prefetcht0 (%0)" : : "r"(start + line));
    } else {
      asm volatile("prefetcht2 (%0)" : : "r"(start + line));
    }
#else
    __builtin_prefetch(reinterpret_cast<const void*>(start + line), 0, level == cache_level::first ? 3 : 1);
#endif
  }
}

}  // namespace detred::cpu
