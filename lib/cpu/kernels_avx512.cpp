// The CPU lanes compiled for avx512 (target flags set in lib/CMakeLists.txt).
#define DETRED_ORDER_ABI avx512
#include <cstdint>
#include <cstring>

#include "detred/order.hpp"
#include "kernel_table.hpp"

namespace detred::cpu {
namespace avx512_lanes {

#define DETRED_KERNEL_NAME "avx512"
#define DETRED_VECTOR_BYTES 64
#define DETRED_TREE_REGISTERS 8
#define DETRED_COMPENSATED_REGISTERS 8
#include "lane_kernels.inl"

}  // namespace avx512_lanes

const kernel_table avx512_kernels = avx512_lanes::table;

}  // namespace detred::cpu
