// SPDX-License-Identifier: BSD-3-Clause
// A scan piece's leaf total (detred::scan_total, the public form of detred/scan.hpp) to and from a scan operator's
// state: the one conversion that the CPU's pieces (lib/scan/scan_api.cpp) and the GPU's (lib/cuda/scan_pieces.cu)
// share. Tree mode's state is the sum alone; its public correction is -0.0, the identity of the correction.
#pragma once

#include <type_traits>

#include "detred/config.hpp"
#include "detred/scan.hpp"

namespace detred::scan_totals {

template <class Op, class T>
DETRED_HOST_DEVICE typename Op::state state_of(const scan_total<T>& t) {
  if constexpr (std::is_same_v<typename Op::state, T>) {
    return t.sum;
  } else {
    return {t.sum, t.correction};
  }
}

template <class Op, class T>
DETRED_HOST_DEVICE scan_total<T> total_of(const typename Op::state& s) {
  if constexpr (std::is_same_v<typename Op::state, T>) {
    return {s, T(-0.0)};
  } else {
    return {s.sum, s.correction};
  }
}

}  // namespace detred::scan_totals
