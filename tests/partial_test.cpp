// SPDX-License-Identifier: BSD-3-Clause
// Partial states: for every operation, mode and element type, states of random pieces (cuts inside leaves, empty
// pieces), merged in random orders and groupings, through the byte form or not, built with any thread count and
// instruction set, give the bits of the single-array call; so do streams of random chunk sizes. Then the byte
// form's errors, and the API's refusals.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "detred/cpu.hpp"
#include "detred/detred.hpp"
#include "detred/partial.hpp"
#include "partial/bytes.hpp"
#include "partial_cases.hpp"
#include "test_data.hpp"

namespace detred::testing {
namespace {

template <class T>
std::vector<T> data_of(std::uint64_t n, std::uint64_t seed, values v = values::uniform) {
  if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
    rng r(seed);
    std::vector<T> x(n);
    // Finite 16-bit floats of both signs across most exponents (0x7c00 and above would be Inf/NaN in binary16).
    for (auto& e : x) e = static_cast<T>(static_cast<std::uint16_t>(r.below(0x7800) | (r.next() & 1) << 15));
    return x;
  } else if constexpr (std::is_integral_v<T>) {
    rng r(seed);
    std::vector<T> x(n);
    for (auto& e : x) e = static_cast<T>(r.below(2001)) - static_cast<T>(std::is_signed_v<T> ? 1000 : 0);
    return x;
  } else {
    return generate<T>(v, n, seed);
  }
}

/// Cut points 0 = c_0 <= c_1 <= ... <= c_k = n: some at random, some at leaf boundaries and next to them, some
/// repeated (empty pieces).
std::vector<std::uint64_t> random_cuts(std::uint64_t n, std::uint64_t leaf, rng& r) {
  std::vector<std::uint64_t> cuts = {0, n};
  const std::uint64_t pieces = 1 + r.below(8);
  for (std::uint64_t k = 1; k < pieces; ++k) {
    std::uint64_t c = r.below(n + 1);
    switch (r.below(4)) {
      case 0:
        c = c / leaf * leaf;
        break;  // on a leaf boundary
      case 1:
        c = std::min(n, c / leaf * leaf + 1);
        break;  // just after one
      case 2:
        c = c / leaf * leaf == 0 ? c : c / leaf * leaf - 1;
        break;  // just before one
      default:
        break;  // anywhere
    }
    cuts.push_back(c);
    if (r.below(6) == 0) cuts.push_back(c);  // an empty piece
  }
  std::sort(cuts.begin(), cuts.end());
  return cuts;
}

options random_options(mode m, rng& r) {
  const std::vector<isa> isas = supported_isas();
  return {.mode = m, .threads = static_cast<int>(1 + r.below(3)), .isa = isas[r.below(isas.size())]};
}

/// States of the pieces merged in a random grouping and order, some through the byte form.
partial_state merge_randomly(std::vector<partial_state> states, rng& r) {
  while (states.size() > 1) {
    const std::size_t i = r.below(states.size());
    std::size_t j = r.below(states.size() - 1);
    if (j >= i) ++j;
    partial_state other = states[j];
    if (r.below(3) == 0) other = partial_state::deserialize(other.serialize());
    states[i].merge(other);
    states.erase(states.begin() + static_cast<std::ptrdiff_t>(j));
  }
  return states.front();
}

template <class T>
void check_splits(std::uint64_t n, std::uint64_t seed, int rounds) {
  const std::vector<T> x = data_of<T>(n, seed);
  const std::vector<T> y = data_of<T>(n, seed + 1);
  rng r(seed * 7919 + n);
  for (const op_case& c : cases_for<T>()) {
    const bool selection =
        c.op == operation::min || c.op == operation::max || c.op == operation::argmin || c.op == operation::argmax;
    if (selection && n == 0) continue;  // refused: tested below
    const std::vector<std::byte> expected = one_call_bits<T>(c.op, c.m, x, y);
    // Cuts around the leaves of 2048 elements (8-byte lanes) and of 4096 (4-byte lanes).
    const std::uint64_t leaf = r.below(2) == 0 ? 2048 : 4096;
    for (int round = 0; round < rounds; ++round) {
      const std::vector<std::uint64_t> cuts = random_cuts(n, leaf, r);
      std::vector<partial_state> states;
      for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
        states.push_back(piece_state<T>(c.op, x, y, cuts[k], cuts[k + 1], random_options(c.m, r)));
      }
      const partial_state all = merge_randomly(states, r);
      ASSERT_TRUE(all.complete()) << describe(c);
      EXPECT_EQ(all.end(), n);
      EXPECT_EQ(result_bits<T>(all), expected) << describe(c) << " n=" << n << " pieces=" << cuts.size() - 1;
      EXPECT_EQ(result_bits<T>(partial_state::deserialize(all.serialize())), expected) << describe(c);
    }

    // A stream of chunks of random sizes: small ones, ones around a leaf, large ones.
    partial_state stream = c.op == operation::dot ? partial_state::empty<T>(operation::dot, {.mode = c.m})
                                                  : partial_state::empty<T>(c.op, {.mode = c.m});
    for (std::uint64_t at = 0; at < n;) {
      const std::uint64_t scale = std::uint64_t{1} << r.below(16);
      const std::uint64_t take = std::min(n - at, r.below(scale + 1));
      if constexpr (!std::is_integral_v<T>) {
        if (c.op == operation::dot) {
          stream.append(std::span<const T>(x).subspan(at, take), std::span<const T>(y).subspan(at, take));
        } else {
          stream.append(std::span<const T>(x).subspan(at, take));
        }
      } else {
        stream.append(std::span<const T>(x).subspan(at, take));
      }
      at += take;
    }
    EXPECT_EQ(result_bits<T>(stream), expected) << describe(c) << " stream n=" << n;
  }
}

/// Chunks of random sizes (empty ones, ones of a few elements, ones across leaves, ones of many leaves) handed over in
/// batches of 1 to 767 (partial_state::append of a list), some copied elsewhere in memory, by states of 1, 2 or 3
/// threads: the one-call bits. Batches of 512 KiB and more are split between the threads, at chunk boundaries that
/// fall inside leaves.
template <class T>
void check_batched_stream(std::uint64_t n, std::uint64_t seed) {
  const std::vector<T> x = data_of<T>(n, seed);
  rng r(seed * 31 + n);
  for (const op_case& c : cases_for<T>()) {
    const bool selection =
        c.op == operation::min || c.op == operation::max || c.op == operation::argmin || c.op == operation::argmax;
    if (c.op == operation::dot || (selection && n == 0)) continue;  // refused: tested below
    const std::vector<std::byte> expected = one_call_bits<T>(c.op, c.m, x, x);
    for (int threads = 1; threads <= 3; ++threads) {
      partial_state batched = partial_state::empty<T>(c.op, {.mode = c.m, .threads = threads});
      std::uint64_t batches = 0;
      for (std::uint64_t at = 0; at < n; ++batches) {
        std::vector<std::span<const T>> batch;
        std::vector<std::vector<T>> copies;
        // Short batches, and long ones that reach the threads' threshold for every element size.
        const std::uint64_t chunks = r.below(2) == 0 ? 1 + r.below(16) : 256 + r.below(512);
        copies.reserve(chunks);
        for (std::uint64_t k = 0; k < chunks; ++k) {
          const std::uint64_t scale = std::uint64_t{1} << r.below(15);
          const std::uint64_t take = std::min(n - at, r.below(scale + 1));
          if (r.below(4) == 0) {
            copies.emplace_back(x.begin() + static_cast<std::ptrdiff_t>(at),
                                x.begin() + static_cast<std::ptrdiff_t>(at + take));
            batch.emplace_back(copies.back());
          } else {
            batch.push_back(std::span<const T>(x).subspan(at, take));
          }
          at += take;
        }
        batched.append(std::span<const std::span<const T>>(batch));
      }
      EXPECT_EQ(batched.end(), n);
      EXPECT_EQ(result_bits<T>(batched), expected)
          << describe(c) << " batched stream n=" << n << " threads=" << threads << " batches=" << batches;
    }
  }
}

template <class T>
class PartialStates : public ::testing::Test {};
using ElementTypes =
    ::testing::Types<double, float, float16, bfloat16, std::int32_t, std::int64_t, std::uint32_t, std::uint64_t>;
TYPED_TEST_SUITE(PartialStates, ElementTypes);

TYPED_TEST(PartialStates, RandomSplitsMergesAndStreamsGiveTheOneCallBits) {
  using T = TypeParam;
  constexpr std::uint64_t L = 4096;  // the larger leaf (float's): sizes below cover both leaf sizes
  for (std::uint64_t n : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{5}, L / 2 - 1, L / 2, L / 2 + 1, L - 1, L,
                          L + 1, 3 * L + 17, 8 * L, 21 * L + 1000}) {
    check_splits<T>(n, 100 + n, n < 100 ? 3 : 6);
  }
}

TYPED_TEST(PartialStates, BatchesOfChunksGiveTheOneCallBits) {
  using T = TypeParam;
  for (std::uint64_t n : {std::uint64_t{0}, std::uint64_t{4097}, std::uint64_t{600000} + 7}) {
    check_batched_stream<T>(n, 500 + n);
  }
}

TYPED_TEST(PartialStates, LargeArraysAcrossManySubtrees) {
  using T = TypeParam;
  check_splits<T>(std::uint64_t{300} * 4096 + 123, 9, 3);
}

/// Every class of adversarial input, double and float, sum, stats and argmax with a few random splits.
TEST(PartialStatesValues, AdversarialInputs) {
  for (values v : all_value_classes()) {
    for (std::uint64_t n : {std::uint64_t{3000}, std::uint64_t{70000}}) {
      const std::vector<double> x = generate<double>(v, n, 5);
      const std::vector<float> xf = generate<float>(v, n, 6);
      rng r(n);
      for (operation op : {operation::sum, operation::stats, operation::argmax, operation::nrm2}) {
        for (mode m : {mode::tree, mode::compensated}) {
          if (op == operation::stats && m != mode::tree) continue;
          std::vector<partial_state> states, states_f;
          const std::vector<std::uint64_t> cuts = random_cuts(n, 2048, r);
          for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
            states.push_back(piece_state<double>(op, x, x, cuts[k], cuts[k + 1], {.mode = m}));
            states_f.push_back(piece_state<float>(op, xf, xf, cuts[k], cuts[k + 1], {.mode = m}));
          }
          EXPECT_EQ(result_bits<double>(merge_randomly(states, r)), one_call_bits<double>(op, m, x, x))
              << name(v) << " " << to_string(op);
          EXPECT_EQ(result_bits<float>(merge_randomly(states_f, r)), one_call_bits<float>(op, m, xf, xf))
              << name(v) << " " << to_string(op);
        }
      }
    }
  }
}

/// A state's bytes are a function of the ranges and values alone: built in one piece, from many, or as a stream.
TEST(PartialStateFormat, EqualStatesHaveEqualBytes) {
  const std::vector<float> x = data_of<float>(50000, 3);
  const std::span<const float> xs(x);
  rng r(11);
  const partial_state whole = partial_state::of(operation::argmin, xs.subspan(1000, 40000), 1000);
  std::vector<partial_state> pieces;
  const std::vector<std::uint64_t> cuts = random_cuts(40000, 4096, r);
  for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
    pieces.push_back(
        partial_state::of(operation::argmin, xs.subspan(1000 + cuts[k], cuts[k + 1] - cuts[k]), 1000 + cuts[k]));
  }
  EXPECT_EQ(merge_randomly(pieces, r).serialize(), whole.serialize());
  const std::vector<std::byte> bytes = whole.serialize();
  EXPECT_EQ(partial_state::deserialize(bytes).serialize(), bytes);
  EXPECT_EQ(whole.ranges(), (std::vector<element_range>{{1000, 41000}}));
}

/// True if `bytes` hold the bit pattern of x anywhere (the byte form packs fields without alignment).
template <class T>
bool holds_pattern(const std::vector<std::byte>& bytes, T x) {
  std::byte p[sizeof(T)];
  std::memcpy(p, &x, sizeof(T));
  return std::search(bytes.begin(), bytes.end(), std::begin(p), std::end(p)) != bytes.end();
}

template <class T, class U>
T nan_with_bits(U bits) {
  T x;
  std::memcpy(&x, &bits, sizeof(T));
  return x;
}

/// The (operation, mode) pairs whose nodes hold floating-point fields, over T.
std::vector<std::pair<operation, mode>> float_node_cases() {
  std::vector<std::pair<operation, mode>> cases;
  for (operation op : {operation::sum, operation::dot, operation::asum, operation::nrm2}) {
    cases.push_back({op, mode::tree});
    cases.push_back({op, mode::compensated});
  }
  for (operation op : {operation::stats, operation::min, operation::max, operation::argmin, operation::argmax}) {
    cases.push_back({op, mode::tree});
  }
  return cases;
}

/// NaNs with payloads (quiet and signalling, both signs) in whole leaves: the state's bytes are the same for every
/// thread count and instruction set, and hold only the canonical NaN (no payload survives into a node). Without
/// canonical nodes the SIMD joins keep one payload or the other depending on the threads (issue: x = 1.0 everywhere,
/// NaNs at 1372 and 5091, compensated sum, threads 1 against 2).
template <class T, class Bits>
void check_nan_payloads_are_canonical(Bits payload_a, Bits payload_b) {
  const std::uint64_t n = 32768;
  std::vector<T> x(n, T(1));
  x[1372] = nan_with_bits<T>(payload_a);
  x[5091] = nan_with_bits<T>(payload_b);
  const std::span<const T> xs(x);
  for (const auto& [op, m] : float_node_cases()) {
    std::vector<std::byte> first;
    for (isa i : supported_isas()) {
      for (int threads : {1, 2, 3, 4}) {
        const options opt{.mode = m, .threads = threads, .isa = i};
        const partial_state s = op == operation::dot ? partial_state::of(operation::dot, xs, xs, 0, opt)
                                                     : partial_state::of(op, xs, 0, opt);
        const std::vector<std::byte> bytes = s.serialize();
        const std::string what = std::string(to_string(op)) + " " + to_string(m) + " " + to_string(i) + " threads " +
                                 std::to_string(threads);
        EXPECT_FALSE(holds_pattern(bytes, payload_a)) << what << ": a NaN payload in the bytes";
        EXPECT_FALSE(holds_pattern(bytes, payload_b)) << what << ": a NaN payload in the bytes";
        if (first.empty()) {
          first = bytes;
        } else {
          EXPECT_EQ(bytes, first) << what << ": other bytes than the first thread count and instruction set";
        }
        EXPECT_EQ(partial_state::deserialize(bytes).serialize(), bytes) << what;
      }
    }
  }
}

TEST(PartialStateFormat, NanPayloadsNeverReachTheBytes) {
  check_nan_payloads_are_canonical<double>(std::uint64_t{0x7ff8000000000123}, std::uint64_t{0xfff4000000000456});
  check_nan_payloads_are_canonical<double>(std::uint64_t{0xfff8000000000001}, std::uint64_t{0x7ff0000000000002});
  check_nan_payloads_are_canonical<float>(std::uint32_t{0x7fc00123}, std::uint32_t{0xffa00456});
}

/// +Inf and -Inf in different leaves: their sum is the machine's default NaN (0xfff8... on x86-64, 0x7ff8... on
/// aarch64 and CUDA), made when two nodes merge. The bytes hold the canonical NaN instead, on every machine; so do
/// those of a stats state whose M2 overflows.
template <class T, class Bits>
void check_made_nans_are_canonical(Bits negative_default_nan) {
  std::vector<T> x(3 * 4096, T(2));
  x[10] = std::numeric_limits<T>::infinity();
  x[5000] = -std::numeric_limits<T>::infinity();
  const std::span<const T> xs(x);
  for (const auto& [op, m] : float_node_cases()) {
    const partial_state s = op == operation::dot ? partial_state::of(operation::dot, xs, xs, 0, {.mode = m})
                                                 : partial_state::of(op, xs, 0, {.mode = m});
    EXPECT_FALSE(holds_pattern(s.serialize(), negative_default_nan)) << to_string(op) << " " << to_string(m);
  }
  std::vector<T> big(3 * 4096);
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = (i % 2 ? T(-1) : T(1)) * std::numeric_limits<T>::max();
  const partial_state stats = partial_state::of(operation::stats, std::span<const T>(big), 0);
  const std::vector<std::byte> bytes = stats.serialize();
  EXPECT_FALSE(holds_pattern(bytes, negative_default_nan)) << "stats with an M2 that overflows";
}

TEST(PartialStateFormat, NansMadeByMergesAreCanonical) {
  check_made_nans_are_canonical<double>(std::uint64_t{0xfff8000000000000});
  check_made_nans_are_canonical<float>(std::uint32_t{0xffc00000});
}

/// The state's size stays within one cut leaf at each end plus the subtree nodes.
TEST(PartialStateFormat, SizeIsBounded) {
  const std::vector<double> x = data_of<double>(std::uint64_t{1} << 22, 4);
  const std::span<const double> xs(x);
  const partial_state s = partial_state::of(operation::sum, xs.subspan(1, x.size() - 2), 1);
  const std::size_t bytes = s.serialize().size();
  EXPECT_LE(bytes, 2 * 2047 * sizeof(double) + 2 * 22 * (17 + sizeof(double)) + 64);
  EXPECT_GE(bytes, 2 * 2047 * sizeof(double));
}

std::string error_of(const std::vector<std::byte>& bytes) {
  try {
    partial_state::deserialize(bytes);
  } catch (const error& e) {
    return e.what();
  }
  return "";
}

TEST(PartialStateFormat, CorruptTruncatedAndForeignStatesAreRefused) {
  const std::vector<double> x = data_of<double>(10000, 8);
  const std::vector<std::byte> good =
      partial_state::of(operation::stats, std::span<const double>(x).subspan(100, 9000), 100).serialize();
  ASSERT_EQ(error_of(good), "");

  std::vector<std::byte> bad = good;
  bad[0] = std::byte{'X'};
  EXPECT_NE(error_of(bad).find("not a detred partial state"), std::string::npos) << error_of(bad);
  EXPECT_NE(error_of({}).find("not a detred partial state"), std::string::npos);

  // Any one flipped bit, anywhere, is caught (by the checksum, or before it by the header's checks).
  rng r(1);
  for (int k = 0; k < 300; ++k) {
    bad = good;
    bad[r.below(bad.size())] ^= std::byte{static_cast<unsigned char>(1u << r.below(8))};
    EXPECT_NE(error_of(bad), "") << "flip " << k;
  }
  // Truncated anywhere.
  for (std::size_t size : {std::size_t{9}, std::size_t{20}, good.size() / 2, good.size() - 1}) {
    EXPECT_NE(error_of(std::vector<std::byte>(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(size))), "")
        << size;
  }
  // A nonzero reserved byte behind a valid checksum: refused, since serializing it again would give other bytes.
  bad = std::vector<std::byte>(good.begin(), good.end() - 8);
  bad[19] = std::byte{10};
  {
    const std::uint64_t sum = detred::partial::checksum(bad);
    const auto* p = reinterpret_cast<const std::byte*>(&sum);
    bad.insert(bad.end(), p, p + sizeof sum);
  }
  EXPECT_NE(error_of(bad).find("reserved header byte 10"), std::string::npos) << error_of(bad);
  // Another format version, another order version: named, even though the checksum would also fail.
  bad = good;
  bad[8] = std::byte{2};
  EXPECT_NE(error_of(bad).find("format version 2"), std::string::npos) << error_of(bad);
  bad = good;
  bad[12] = std::byte{9};
  EXPECT_NE(error_of(bad).find("canonical order version 9"), std::string::npos) << error_of(bad);
}

TEST(PartialStateApi, RefusalsNameTheProblem) {
  const std::vector<double> x = data_of<double>(5000, 2);
  const std::span<const double> xs(x);
  partial_state a = partial_state::of(operation::sum, xs.subspan(0, 3000), 0);
  const partial_state overlapping = partial_state::of(operation::sum, xs.subspan(2000, 2000), 2000);
  EXPECT_THROW(a.merge(overlapping), error);
  const std::vector<std::byte> before = a.serialize();
  try {
    a.merge(overlapping);
  } catch (const error& e) {
    EXPECT_NE(std::string(e.what()).find("overlap"), std::string::npos) << e.what();
  }
  EXPECT_EQ(a.serialize(), before) << "a refused merge changes nothing";

  EXPECT_THROW(a.merge(partial_state::of(operation::sum, xs.subspan(3000, 10), 3000, {.mode = mode::compensated})),
               error);
  EXPECT_THROW(a.merge(partial_state::of(operation::max, xs.subspan(3000, 10), 3000)), error);
  EXPECT_THROW(a.append(std::span<const float>()), error);
  EXPECT_THROW(a.append(std::span<const std::span<const float>>()), error);
  partial_state dot = partial_state::empty<double>(operation::dot);
  EXPECT_THROW(dot.append(std::span<const std::span<const double>>()), error);  // x and y chunks
  EXPECT_THROW((void)a.result<float>(), error);                                 // the wrong result type

  partial_state gap = partial_state::of(operation::sum, xs.subspan(4000, 10), 4000);
  gap.merge(a);
  EXPECT_FALSE(gap.complete());
  try {
    (void)gap.result<double>();
    ADD_FAILURE() << "an incomplete state gave a result";
  } catch (const error& e) {
    EXPECT_NE(std::string(e.what()).find("elements [3000, 4000) are missing"), std::string::npos) << e.what();
  }
  EXPECT_EQ(gap.ranges(), (std::vector<element_range>{{0, 3000}, {4000, 4010}}));

  EXPECT_THROW(partial_state::of(operation::nrm2, std::span<const std::int32_t>(), 0), error);
  EXPECT_THROW(partial_state::of(operation::stats, xs, 0, {.mode = mode::compensated}), error);
  EXPECT_THROW(partial_state::of(operation::sum, xs, 0, {.threads = -1}), error);
  EXPECT_THROW(partial_state::of(operation::asum, std::span<const float16>(), 0), error);
  EXPECT_THROW(partial_state::of(operation::dot, xs, 0), error);
  EXPECT_THROW(partial_state::of(operation::dot, xs, xs.subspan(1), 0), error);
  EXPECT_THROW(partial_state::of(operation::sum, xs, ~std::uint64_t{0} - 10), error);
  EXPECT_THROW((void)partial_state::empty<double>(operation::min).result<double>(), error);
  EXPECT_EQ(bytes_of(partial_state::empty<double>(operation::sum).result<double>()), bytes_of(-0.0));

  // An integer sum that does not fit: the single-array call's overflow_error.
  const std::vector<std::int64_t> big = {INT64_MAX, 1};
  partial_state s = partial_state::of(operation::sum, std::span<const std::int64_t>(big).first(1), 0);
  s.merge(partial_state::of(operation::sum, std::span<const std::int64_t>(big).subspan(1), 1));
  EXPECT_THROW((void)s.result<std::int64_t>(), overflow_error);
}

}  // namespace
}  // namespace detred::testing
