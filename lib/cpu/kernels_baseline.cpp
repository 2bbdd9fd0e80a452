// The CPU lanes compiled for baseline (target flags set in lib/CMakeLists.txt).
#define DETRED_ORDER_ABI baseline
#include <cstdint>
#include <cstring>

#include "detred/order.hpp"
#include "kernel_table.hpp"

namespace detred::cpu {
namespace baseline_lanes {

#define DETRED_KERNEL_NAME "baseline"
#define DETRED_VECTOR_BYTES 16
#define DETRED_TREE_REGISTERS 8
#define DETRED_COMPENSATED_REGISTERS 4
#include "lane_kernels.inl"

}  // namespace baseline_lanes

const kernel_table baseline_kernels = baseline_lanes::table;

}  // namespace detred::cpu
