// SPDX-License-Identifier: BSD-3-Clause
// The element types of the scans (detred/scan.hpp) with their output types: the one list that the front door, the
// CUDA backend's staged host scans and their stand-in without CUDA instantiate.
#pragma once

#include <cstdint>

#include "detred/number_types.hpp"

/// Calls X(In, Out) for every scan input type In and its output type Out.
// clang-format off
#define DETRED_EACH_SCAN_TYPE(X)  \
  X(double, double)               \
  X(float, float)                 \
  X(float16, float)               \
  X(bfloat16, float)              \
  X(std::int32_t, std::int64_t)   \
  X(std::int64_t, std::int64_t)   \
  X(std::uint32_t, std::uint64_t) \
  X(std::uint64_t, std::uint64_t)
// clang-format on
