// SPDX-License-Identifier: BSD-3-Clause
// The test build's fault injection, chosen by DETRED_VERIFY_INJECT_FAULT:
//   mismatch   flips the lowest bit of the last path's result (status 1)
//   bound      moves every path's result far from the exact result by flipping an exponent bit, or bit 3 of an
//              integer result (status 3)
//   ulp        flips the lowest bit of every path's result: still within the bounds of tree and compensated
//              mode for well-conditioned data, but not exact mode's correctly rounded result (status 3)
//   internal   throws detred::device_error, as a failing GPU would (status 4)
#include <cstdint>
#include <cstdlib>
#include <string>

#include "detred/options.hpp"
#include "fault_hook.hpp"

namespace detred::verify::cli {

void inject_fault(std::vector<path_result>& runs) {
  const char* fault = std::getenv("DETRED_VERIFY_INJECT_FAULT");
  if (fault == nullptr || runs.empty()) return;
  const std::string kind(fault);
  if (kind == "mismatch") runs.back().bits.bits ^= 1;
  if (kind == "ulp") {
    for (path_result& p : runs) p.bits.bits ^= 1;
  }
  if (kind == "bound") {
    std::uint64_t bit = std::uint64_t{1} << 3;
    if (runs[0].bits.type == dtype::float32) bit = std::uint64_t{1} << 29;
    if (runs[0].bits.type == dtype::float64) bit = std::uint64_t{1} << 61;
    for (path_result& p : runs) p.bits.bits ^= bit;  // a float's magnitude scaled by 2^(+-half the exponent range)
  }
  if (kind == "internal") throw detred::device_error("CUDA (injected fault) failed: cudaErrorLaunchFailure");
}

}  // namespace detred::verify::cli
