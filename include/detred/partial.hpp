// SPDX-License-Identifier: BSD-3-Clause
// Partial states: the reduction of a piece of a global array, to be merged with the states of the other pieces in
// any order and grouping, here or in another process, into the bits of one call over the whole array.
//
//   // rank r holds elements [offset, offset + local.size()) of the global array
//   auto s = detred::partial_state::of(detred::operation::sum, std::span(local), offset);
//   std::vector<std::byte> bytes = s.serialize();          // send it anywhere
//   ...
//   detred::partial_state all = detred::partial_state::deserialize(bytes_of_piece_0);
//   all.merge(detred::partial_state::deserialize(bytes_of_piece_1));  // any order, any grouping
//   double total = all.result<double>();                   // == detred::sum(whole array), bit for bit
//
//   detred::partial_state stream = detred::partial_state::empty<double>(detred::operation::sum);
//   while (read(chunk)) stream.append(chunk);                // consecutive chunks of any sizes
//
// docs/partial-states.md has the layout, the byte format and the guarantee.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "detred/catalogue.hpp"
#include "detred/number_types.hpp"
#include "detred/options.hpp"
#include "detred/statistics.hpp"

// Exported from a shared libdetred, whose other symbols are hidden (cmake/DetredShared.cmake); function templates
// also each with [[gnu::visibility("default")]], which their explicit instantiations in lib/ need.
#pragma GCC visibility push(default)

namespace detred {

/// A half-open range of element indices of the global array.
struct element_range {
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
  friend bool operator==(const element_range&, const element_range&) = default;
};

/// The state of one operation (with its mode and element type) over a set of disjoint ranges of a global array.
///
/// Guarantee: once the merged states cover [0, n) exactly, result() has the bits of the single-array call (for
/// example detred::sum(x, {.mode = m})) on the n elements, whatever the pieces, their sizes (empty ones too, and cuts
/// inside a leaf), the order and grouping of the merges, the threads and instruction sets that built each state,
/// and the machine that built it (its serialized form is portable between little-endian machines).
///
/// Size: a state of one contiguous range holds the raw elements of the two leaves its ends cut (at most L - 1 each,
/// L = 2048 for double and 4096 for the others; twice for dot) and at most 2 log2(leaves) subtree nodes: at most
/// 32 KiB of elements plus 128 nodes for sum of double. Merging adjacent ranges joins their cut leaf; states of
/// ranges that do not touch are kept side by side until the ranges between them arrive.
// Inside the class, the types operation, mode and element_type are named detred::...: the member functions of the same
// names hide them there, which nvcc (unlike GCC and Clang) enforces at the declarations before them too.
class partial_state {
 public:
  /// The state of `op` over the piece x of a global array: its elements [offset, offset + x.size()).
  /// options.mode applies to sum, dot, asum and nrm2; threads and isa only decide who computes (as everywhere).
  /// Throws detred::error for an operation the element type does not have (as the single-array call has it),
  /// invalid options, or offset + x.size() beyond 2^64 - 1.
  template <class T>
  static partial_state of(detred::operation op, std::span<const T> x, std::uint64_t offset, const options& opt = {});
  /// The state of `op`, an operation of two arrays (dot), over the pieces x and y: the same elements
  /// [offset, offset + size) of both, which must have one length.
  template <class T>
  static partial_state of(detred::operation op, std::span<const T> x, std::span<const T> y, std::uint64_t offset,
                          const options& opt = {});
  /// A state that covers nothing yet: the start of a stream (append) or of a merge.
  template <class T>
  static partial_state empty(detred::operation op, const options& opt = {});

  partial_state(const partial_state& other);
  partial_state& operator=(const partial_state& other);
  partial_state(partial_state&&) noexcept;
  partial_state& operator=(partial_state&&) noexcept;
  ~partial_state();

  /// Adds the ranges of `other` (a state of the same operation, mode and element type, over ranges that do not
  /// overlap this one's). Throws detred::error otherwise, leaving this state unchanged.
  void merge(const partial_state& other);

  /// Streaming: the next elements of the array, placed right after the last range covered (at 0 for an empty
  /// state). Equivalent to merging of(op, chunk, end()), but cheaper. Throws detred::error for a chunk of another
  /// element type.
  template <class T>
  void append(std::span<const T> chunk);
  /// The dot product's next elements.
  template <class T>
  void append(std::span<const T> x_chunk, std::span<const T> y_chunk);
  /// Streaming in batches: the chunks, in order, as append() of each would place them (the same bits). The state's
  /// threads (options.threads of of() or empty()) share the batch, each a contiguous part of the list, and chunks
  /// that follow each other in memory are read as one range. A chunk appended alone is read by one thread below the
  /// engine's parallel threshold (512 KiB; 256 KiB for the compensated and wider states), so small chunks stream at
  /// about one core's speed; handed over together they stream at up to the speed of one call (docs/partial-states.md
  /// has the figures). The chunks may lie anywhere in memory and need to stay valid only during the call. Throws
  /// detred::error for chunks of another element type or for a dot product's state.
  template <class T>
  void append(std::span<const std::span<const T>> chunks);

  detred::operation operation() const;
  detred::mode mode() const;  ///< tree for the operations without a mode
  detred::element_type element_type() const;

  /// The disjoint ranges covered, in increasing order; adjacent ranges are always joined.
  std::vector<element_range> ranges() const;
  /// One past the last element covered (0 when nothing is).
  std::uint64_t end() const;
  /// True when the ranges covered are exactly [0, n) for some n >= 0 (n = end()).
  bool complete() const;

  /// The result over [0, n): R is the single-array call's result type (double or float for sum, dot, asum, nrm2,
  /// min and max of floats; float for the 16-bit floats; int64/uint64 for the integer sums and the integer min and
  /// max; int32/uint32 min/max of 32-bit integers; uint64 for argmin and argmax; statistics<T> for stats).
  /// Throws detred::error if the state is not complete (naming the missing elements), if R is not that type, or for
  /// the single-array call's own errors (min of an empty array, an integer sum that does not fit:
  /// detred::overflow_error).
  template <class R>
  R result() const;

  /// The portable byte form (docs/partial-states.md): versioned, holds the order version, the operation, mode and
  /// element type, and a checksum.
  std::vector<std::byte> serialize() const;
  /// The state a serialize() produced. Throws detred::error, saying what is wrong, for bytes that are not such a
  /// state: another format or order version, a truncated or corrupt one (checksum, inconsistent ranges).
  static partial_state deserialize(std::span<const std::byte> bytes);

  struct impl;
  /// The library's backends build states from parts computed elsewhere (lib/partial/access.hpp).
  friend struct partial_state_access;

 private:
  explicit partial_state(std::unique_ptr<impl> state);
  std::unique_ptr<impl> state_;
};

}  // namespace detred

#pragma GCC visibility pop
