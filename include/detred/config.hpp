// Portability macros shared by host and device code.
#pragma once

// Functions of the canonical order are compiled for the host and, under nvcc, for the device too, so that the CPU
// and the GPU run one definition of the order rather than two copies that could drift apart.
#if defined(__CUDACC__)
#define DETRED_HOST_DEVICE __host__ __device__
#else
#define DETRED_HOST_DEVICE
#endif
