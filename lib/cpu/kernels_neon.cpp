// The CPU lanes compiled for neon: AArch64 Advanced SIMD, 16-byte vectors (built only on aarch64, where NEON is part
// of the base architecture, so no target flags are needed; lib/CMakeLists.txt). The register budget follows the
// 32 vector registers of AArch64: 8 accumulators cover 4 add pipes x 2 cycles of latency (Neoverse V1/V2) in tree
// mode, and 8 (sum, correction) pairs plus TwoSum's temporaries fit in compensated mode. Not measured on Arm
// hardware yet; the result bits never depend on these numbers.
#define DETRED_ORDER_ABI neon
#include <cstdint>
#include <cstring>

#include "detred/order.hpp"
#include "kernel_table.hpp"

namespace detred::cpu {
namespace neon_lanes {

#define DETRED_KERNEL_NAME "neon"
#define DETRED_VECTOR_BYTES 16
#define DETRED_TREE_REGISTERS 8
#define DETRED_COMPENSATED_REGISTERS 8
#include "lane_kernels.inl"

}  // namespace neon_lanes

const kernel_table neon_kernels = neon_lanes::table;

}  // namespace detred::cpu
