// SPDX-License-Identifier: BSD-3-Clause
// Datasets whose bits are the same on every machine (the `detred gen` command, the benchmarks): our own PRNG
// (xoshiro256** seeded by splitmix64) and our own transforms built from exactly rounded IEEE operations, never
// std::*_distribution (whose output differs between standard libraries) and never libm (whose last bit may differ
// between platforms).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace detred::generators {

enum class distribution {
  uniform,          ///< [-1, 1)
  normal,           ///< approximately standard normal: Irwin-Hall, the sum of 12 uniforms on [0, 1) minus 6
  ill_conditioned,  ///< small terms plus pairs of large terms that cancel: sum |x_i| / |sum x_i| is huge
  dynamic_range,    ///< random sign, exponents spread over half the finite range, sums stay finite
  subnormal,        ///< subnormals only, both signs
  same_sign,        ///< [0, 1)
};

std::optional<distribution> parse_distribution(const std::string& name);

/// Fills chunk number `index` of a dataset (every chunk but the last has chunk_size elements). Chunks depend only
/// on (distribution, seed, index), so a dataset of any size is generated in bounded memory, and the same on every
/// machine.
inline constexpr std::uint64_t chunk_size = std::uint64_t{1} << 20;
void generate_chunk(distribution d, std::uint64_t seed, std::uint64_t index, std::span<double> out);
void generate_chunk(distribution d, std::uint64_t seed, std::uint64_t index, std::span<float> out);

}  // namespace detred::generators
