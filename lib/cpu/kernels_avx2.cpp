// The CPU lanes compiled for avx2 (target flags set in lib/CMakeLists.txt).
#define DETRED_ORDER_ABI avx2
#include <cstdint>
#include <cstring>

#include "detred/order.hpp"
#include "kernel_table.hpp"

namespace detred::cpu {
namespace avx2_lanes {

#define DETRED_KERNEL_NAME "avx2"
#define DETRED_VECTOR_BYTES 32
#define DETRED_TREE_REGISTERS 8
#define DETRED_COMPENSATED_REGISTERS 4
#include "lane_kernels.inl"

}  // namespace avx2_lanes

const kernel_table avx2_kernels = avx2_lanes::table;

}  // namespace detred::cpu
