// The test build's fault injection, chosen by DETRED_VERIFY_INJECT_FAULT:
//   mismatch   flips the lowest bit of the last path's result (status 1)
//   bound      moves every path's result far from the exact sum by flipping an exponent bit (status 3)
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
  if (kind == "bound") {
    const std::uint64_t exponent_bit =
        runs[0].bits.type == dtype::float32 ? std::uint64_t{1} << 29 : std::uint64_t{1} << 61;
    for (path_result& p : runs) p.bits.bits ^= exponent_bit;  // scales |result| by 2^(+-half the exponent range)
  }
  if (kind == "internal") throw detred::device_error("CUDA (injected fault) failed: cudaErrorLaunchFailure");
}

}  // namespace detred::verify::cli
