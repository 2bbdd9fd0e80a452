// SPDX-License-Identifier: BSD-3-Clause
// The one choice of a kernel table by instruction set, for every family of per-ISA tables (the lane engine's,
// lib/cpu/isa_selection.cpp; the exact drivers', lib/exact/driver.cpp; the scans', lib/scan/scan_driver.cpp): the
// resolved ISA's table when this build compiled it, else the baseline's.
#pragma once

#include "detred/options.hpp"

// A table of a family, or nullptr where this build has no kernels for that instruction set (the name is then never
// mentioned, so it need not exist).
#if DETRED_HAVE_X86_KERNELS
#define DETRED_X86_TABLE(name) (&(name))
#else
#define DETRED_X86_TABLE(name) nullptr
#endif
#if DETRED_HAVE_NEON_KERNELS
#define DETRED_NEON_TABLE(name) (&(name))
#else
#define DETRED_NEON_TABLE(name) nullptr
#endif

namespace detred::cpu {

/// A family's tables, one per instruction set; only the baseline's is always there.
template <class Table>
struct isa_tables {
  const Table* baseline;
  const Table* avx2;
  const Table* avx512;
  const Table* neon;
};

/// The table of `resolved` (an ISA resolve() returned), or the baseline's where the build has none for it.
template <class Table>
const Table& table_of_isa(isa resolved, const isa_tables<Table>& tables) {
  const Table* chosen = nullptr;
  switch (resolved) {
    case isa::avx512:
      chosen = tables.avx512;
      break;
    case isa::avx2:
      chosen = tables.avx2;
      break;
    case isa::neon:
      chosen = tables.neon;
      break;
    case isa::automatic:
    case isa::baseline:
      break;
  }
  return chosen != nullptr ? *chosen : *tables.baseline;
}

}  // namespace detred::cpu
