// SPDX-License-Identifier: BSD-3-Clause
// Portability macros shared by host and device code.
#pragma once

// Functions of the canonical order are compiled for the host and, under nvcc, for the device too, so that the CPU
// and the GPU run one definition of the order rather than two copies that could drift apart.
#if defined(__CUDACC__)
#define DETRED_HOST_DEVICE __host__ __device__
#else
#define DETRED_HOST_DEVICE
#endif

// Full unrolling of the short fixed loops of the order (the lane tree). Left as loops, their trip counts change
// from level to level, and on the CPU the resulting branch mispredictions once per leaf cost memory-level
// parallelism: about 10 % of streaming bandwidth (docs/performance.md).
#if defined(__CUDACC__)
#define DETRED_UNROLL _Pragma("unroll")
#elif defined(__clang__)
#define DETRED_UNROLL _Pragma("clang loop unroll(full)")
#elif defined(__GNUC__)
#define DETRED_UNROLL _Pragma("GCC unroll 128")
#else
#define DETRED_UNROLL
#endif
