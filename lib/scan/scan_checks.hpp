// SPDX-License-Identifier: BSD-3-Clause
// The argument checks every scan shares, host (scan_api.cpp) and CUDA (lib/cuda/scan_api.cpp), so that each bad
// argument gets the same message on every backend.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "core/batch_checks.hpp"
#include "core/validate.hpp"
#include "detred/catalogue.hpp"
#include "detred/options.hpp"

namespace detred::scan_checks {

/// y must be x itself (same address and type) or not overlap it.
template <class In, class Out>
void check_overlap(const In* x, std::uint64_t nx, const Out* y, std::uint64_t ny, const char* what) {
  if (nx == 0 || ny == 0) return;
  const auto xb = reinterpret_cast<std::uintptr_t>(x);
  const auto yb = reinterpret_cast<std::uintptr_t>(y);
  const bool overlap = xb < yb + ny * sizeof(Out) && yb < xb + nx * sizeof(In);
  const bool same = std::is_same_v<In, Out> && xb == yb;
  if (overlap && !same) {
    throw error(std::string(what) + ": the output overlaps the input without being it (in place, pass the same " +
                "array of the same type as both)");
  }
}

/// y must have x's length, and be x itself or not overlap it.
template <class In, class Out>
void check_buffers(const In* x, std::uint64_t nx, const Out* y, std::uint64_t ny, const char* what) {
  if (nx != ny) {
    throw error(std::string(what) + ": the output holds " + std::to_string(ny) + " elements, the input " +
                std::to_string(nx) + " (they must be equal)");
  }
  check_overlap(x, nx, y, ny, what);
}

/// The totals of a scan piece (cumsum_totals): one per leaf of its `n` elements (`leaves` of them).
inline void check_totals(std::uint64_t n, std::uint64_t leaves, std::uint64_t entries, const char* what) {
  if (entries != leaves) {
    throw error(std::string(what) + ": the totals span holds " + std::to_string(entries) + " entries, the " +
                std::to_string(n) + " elements have " + std::to_string(leaves) + " leaves");
  }
}

/// The outputs of a scan along an axis: y holds rows x cols elements packed in a's layout, and is a.data itself
/// (a packed matrix scanned in place) or does not overlap the matrix.
template <class T>
void check_axis_output(const matrix_view<T>& a, const T* y, std::uint64_t ny, const char* what) {
  const std::uint64_t total = a.rows * a.cols;
  if (ny != total) {
    throw error(std::string(what) + ": the output holds " + std::to_string(ny) + " elements, the " +
                std::to_string(a.rows) + " x " + std::to_string(a.cols) + " matrix " + std::to_string(total));
  }
  const bool row_major = a.layout == layout::row_major;
  const bool packed = a.leading_dimension == (row_major ? a.cols : a.rows);
  if (!(packed && static_cast<const void*>(a.data) == static_cast<const void*>(y))) {
    check_overlap(a.data, extent_of(a), y, ny, what);
  }
}

}  // namespace detred::scan_checks
