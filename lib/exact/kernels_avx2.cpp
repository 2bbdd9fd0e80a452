// Exact mode's kernel compiled for avx2 (target flags in lib/exact/CMakeLists.txt).
#define DETRED_ORDER_ABI exact_avx2
#include <cstdint>
#include <cstring>

#include "detred/exact/superaccumulator.hpp"
#include "detred/order/lane_values.hpp"
#include "exact_kernels.hpp"

namespace detred::exact_cpu {
namespace avx2_exact {

using namespace detred::exact;
inline constexpr std::uint64_t vector_bytes = 32;
#include "block_kernel.inl"

}  // namespace avx2_exact

constinit const exact_kernels avx2_kernels = avx2_exact::make_exact_kernels("avx2");

}  // namespace detred::exact_cpu
