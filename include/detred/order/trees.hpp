// SPDX-License-Identifier: BSD-3-Clause
// The trees of the canonical order, for any operator: the halving lane tree inside a leaf, and the left-perfect
// leaf tree over the leaves (in streaming form, and as pairwise folds of aligned groups). These decide which
// states are combined, in which order; the operator decides what combining means.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

#include "detred/config.hpp"
#include "detred/order/ops.hpp"

namespace detred::order {
inline namespace DETRED_ORDER_ABI {

/// The arrays a reduction reads, Op::arity of them, all of the same length, and the index in the whole array of
/// their element 0 (argmin and argmax report indices in the whole array).
template <class Op>
struct operands {
  const typename Op::input* data[Op::arity];
  std::uint64_t first = 0;

  /// The same arrays from element k on.
  DETRED_HOST_DEVICE constexpr operands advanced(std::uint64_t k) const {
    operands r = *this;
    for (unsigned a = 0; a < Op::arity; ++a) r.data[a] += k;
    r.first += k;
    return r;
  }
  /// Element i of array a, as stored (the bits of a 16-bit float).
  DETRED_HOST_DEVICE raw_t<typename Op::input> element(unsigned a, std::uint64_t i) const {
    raw_t<typename Op::input> r;
    std::memcpy(&r, data[a] + i, sizeof r);
    return r;
  }
};

/// A scalar lane state takes element i of the operands.
template <class Op>
DETRED_HOST_DEVICE typename Op::state accumulate_element(const typename Op::state& s, const operands<Op>& x,
                                                         std::uint64_t i) {
  if constexpr (Op::arity == 1) {
    return Op::accumulate(s, x.element(0, i));
  } else {
    return Op::accumulate(s, x.element(0, i), x.element(1, i));
  }
}

/// Op's accumulate for a lane state that already holds an element: Op::accumulate_later where the operator has one
/// (a lane's first element may need work that later ones do not, as moments' shift), Op::accumulate otherwise.
/// Engines may call it for the rows after a leaf's first; it gives the same state as accumulate.
template <class Op, class S, class... X>
DETRED_HOST_DEVICE S accumulate_later(const S& s, const X&... x) {
  if constexpr (requires { Op::accumulate_later(s, x...); }) {
    return Op::accumulate_later(s, x...);
  } else {
    return Op::accumulate(s, x...);
  }
}

/// The index in the whole array of the first element of the leaf x[0..count) that matches the root of the leaf's
/// lane tree (operators that locate an element); the root came from one of them, so there always is one.
template <class Op>
DETRED_HOST_DEVICE std::uint64_t first_match(const operands<Op>& x, std::uint64_t count,
                                             const typename Op::state& root) {
  std::uint64_t i = 0;
  while (i + 1 < count && !Op::matches(root, widen<typename Op::value, typename Op::input>(x.element(0, i)))) ++i;
  return x.first + i;
}

/// A leaf's node from the root of its lane tree.
template <class Op>
DETRED_HOST_DEVICE node_of<Op> leaf_node(const typename Op::state& root, const operands<Op>& x, std::uint64_t count) {
  if constexpr (locates_element<Op>) {
    return to_node<Op>(root, first_match<Op>(x, count, root));
  } else {
    return to_node<Op>(root, 0);
  }
}

/// The halving lane tree: for h = width/2, width/4, ..., 1, lane j takes lane j + h for every j < h; afterwards
/// lane 0 holds the leaf's value. Lanes may be held `per_value` to a value (SIMD registers of lanes): values[k]
/// holds lanes [k * per_value, (k + 1) * per_value). Only the levels with h >= per_value run here, on whole values;
/// the caller finishes the last log2(per_value) levels inside values[0] by calling fold_lanes again on its lanes,
/// one per value. per_value = 1 runs the whole tree.
template <class Op, class S>
DETRED_HOST_DEVICE constexpr void fold_lanes(S* values, std::uint64_t width, std::uint64_t per_value = 1) {
  DETRED_UNROLL
  for (std::uint64_t h = width / 2; h >= per_value; h /= 2) {
    DETRED_UNROLL
    for (std::uint64_t j = 0; j < h; j += per_value) {
      values[j / per_value] = Op::combine(values[j / per_value], values[(j + h) / per_value]);
    }
  }
}

/// fold_lanes when only lanes [0, live) took elements and the others hold Op's identity, for an operator whose
/// identity is neutral (neutral_identity<Op>): a join with an identity lane leaves the left lane as it is, so only
/// the joins of two live lanes are made. Same root as fold_lanes(values, width); values[live..width) are not read.
template <class Op, class S>
DETRED_HOST_DEVICE constexpr void fold_live_lanes(S* values, std::uint64_t width, std::uint64_t live) {
  static_assert(neutral_identity<Op>, "lanes without elements can be skipped only when the identity is neutral");
  for (std::uint64_t h = width / 2; h >= 1; h /= 2) {
    for (std::uint64_t j = 0; j < h && j + h < live; ++j) values[j] = Op::combine(values[j], values[j + h]);
    if (live > h) live = h;
  }
}

/// fold_lanes when only lanes [0, live), live >= 1, took elements and the others hold Op's identity (lanes held as
/// scalar states), for any operator: the
/// joins fold_lanes makes with lanes past `live` still happen, but their right sides are computed instead of read,
/// since every lane at or past `live` holds the same state at each level (the identity, then the identity joined
/// with itself, ...). Same root as fold_lanes(values, width); values[live..width) are neither read nor written, so
/// a lane tree over few live lanes costs about `live` joins per level instead of width.
template <class Op, class S>
DETRED_HOST_DEVICE constexpr void fold_lanes_before_identity(S* values, std::uint64_t width, std::uint64_t live) {
  S rest = Op::template identity<typename Op::value>();  // the state of every lane at or past `live`
  for (std::uint64_t h = width / 2; h >= 1; h /= 2) {
    for (std::uint64_t j = 0; j < h && j < live; ++j) {
      values[j] = Op::combine(values[j], j + h < live ? values[j + h] : rest);
    }
    rest = Op::combine(rest, rest);
    if (live > h) live = h;
  }
}

/// fold_live_lanes over lanes [0, live), live <= N, held in an array whose every index is known at compile time once
/// the loops unroll, so that a GPU thread keeps the lanes in registers (fold_live_lanes' runtime indices put them in
/// local memory). The same joins in the same order; values[live..N) are not read.
template <class Op, std::uint64_t Width, class S, unsigned N>
DETRED_HOST_DEVICE constexpr void fold_live_lanes_unrolled(S (&values)[N], std::uint64_t live) {
  static_assert(neutral_identity<Op>, "lanes without elements can be skipped only when the identity is neutral");
  DETRED_UNROLL
  for (std::uint64_t h = Width / 2; h >= 1; h /= 2) {
    DETRED_UNROLL
    for (unsigned j = 0; j < N; ++j) {
      // j + h < N first: a constant once unrolled, it removes the joins no line of N lanes can make.
      if (j + h < N && j < h && j + h < live) values[j] = Op::combine(values[j], values[j + h < N ? j + h : j]);
    }
    if (live > h) live = h;
  }
}

/// fold_lanes_before_identity over lanes [0, live), 1 <= live <= N, held as in fold_live_lanes_unrolled: the same
/// joins in the same order, the lanes at or past `live` computed, not read.
template <class Op, std::uint64_t Width, class S, unsigned N>
DETRED_HOST_DEVICE constexpr void fold_lanes_before_identity_unrolled(S (&values)[N], std::uint64_t live) {
  S rest = Op::template identity<typename Op::value>();  // the state of every lane at or past `live`
  DETRED_UNROLL
  for (std::uint64_t h = Width / 2; h >= 1; h /= 2) {
    DETRED_UNROLL
    for (unsigned j = 0; j < N; ++j) {
      if (j < h && j < live) {
        values[j] = Op::combine(values[j], j + h < N && j + h < live ? values[j + h < N ? j + h : j] : rest);
      }
    }
    rest = Op::combine(rest, rest);
    if (live > h) live = h;
  }
}

/// The left-perfect tree over the nodes v[0..count), count <= N, N a power of two, by pairing neighbours level by
/// level (an unpaired last value moves up unchanged); the root lands in v[0]. After level l the live values are the
/// roots of aligned blocks of 2^l values with one ragged last block: exactly the subtrees subtree_stack combines. Used
/// for aligned groups of full leaves on the CPU and for the values a GPU thread holds.
template <class Op, class S, unsigned N>
DETRED_HOST_DEVICE constexpr S fold_pairwise(S (&v)[N], std::uint64_t count) {
  static_assert((N & (N - 1)) == 0, "N must be a power of two");
  DETRED_UNROLL
  for (unsigned s = 1; s < N; s *= 2) {
    DETRED_UNROLL
    for (unsigned i = 0; i + s < N; i += 2 * s) {
      if (i + s < count) v[i] = merge<Op>(v[i], v[i + s]);
    }
  }
  return v[0];
}

/// The left-perfect leaf tree T(0..m) = T(0..p) (+) T(p..m), p the largest power of two below m, in streaming form:
/// a stack of perfect subtrees kept like a binary counter. Push subtrees left to right; each push names how many
/// leaves the subtree covers. Pushing single leaves, or aligned blocks of 2^k leaves followed by one ragged last
/// block, builds exactly T(0..m).
template <class Op>
class subtree_stack {
 public:
  using node = node_of<Op>;

  DETRED_HOST_DEVICE constexpr void push(node value, std::uint64_t leaves) {
    while (depth_ > 0 && leaves_[depth_ - 1] == leaves) {
      --depth_;
      value = merge<Op>(values_[depth_], value);
      leaves *= 2;
    }
    values_[depth_] = value;
    leaves_[depth_] = leaves;
    ++depth_;
  }

  /// Folds the stack from the top (smallest, rightmost subtree) down: the root of the left-perfect tree.
  DETRED_HOST_DEVICE constexpr node root() const {
    if (depth_ == 0) return empty_node<Op>();
    node acc = values_[depth_ - 1];
    for (int k = depth_ - 2; k >= 0; --k) acc = merge<Op>(values_[k], acc);
    return acc;
  }

 private:
  // A binary counter of up to 2^64 leaves has at most 65 entries. Left uninitialized: entries at and above depth_
  // are never read, and zeroing 65 entries on every call would cost more than summing a small array.
  node values_[65];
  std::uint64_t leaves_[65];
  int depth_ = 0;
};

/// `width` subtree_stacks pushed single leaves in lockstep (the lines of a panel of strided lines, which all have
/// the same length): one copy of the bookkeeping, stack c's entry d at nodes[d * width + c]. Each stack ends as
/// subtree_stack would from the same pushes: pushing leaf number p (from 0) merges as many entries as p has trailing
/// one bits, the binary counter subtree_stack keeps. Host only; the memory is the caller's.
template <class Op>
class lockstep_leaf_stacks {
 public:
  using node = node_of<Op>;

  /// Entries a stack needs for `leaves` pushes (its depth is the number of one bits of the pushes so far).
  static constexpr std::uint64_t depth_for(std::uint64_t leaves) { return leaves == 0 ? 1 : std::bit_width(leaves); }

  /// nodes: room for depth_for(leaves) * width nodes.
  lockstep_leaf_stacks(node* nodes, std::uint64_t width) : nodes_(nodes), width_(width) {}

  /// Pushes leaf(c) onto stack c, for every c < width.
  template <class Leaf>
  void push(Leaf&& leaf) {
    const int merges = std::countr_one(pushed_);
    const int top = depth_ - merges;
    for (std::uint64_t c = 0; c < width_; ++c) {
      node value = leaf(c);
      for (int d = depth_ - 1; d >= top; --d)
        value = merge<Op>(nodes_[static_cast<std::uint64_t>(d) * width_ + c], value);
      nodes_[static_cast<std::uint64_t>(top) * width_ + c] = value;
    }
    depth_ = top + 1;
    ++pushed_;
  }

  /// The root of stack c, folded from the top down as subtree_stack::root does.
  node root(std::uint64_t c) const {
    if (depth_ == 0) return empty_node<Op>();
    node acc = nodes_[static_cast<std::uint64_t>(depth_ - 1) * width_ + c];
    for (int d = depth_ - 2; d >= 0; --d) acc = merge<Op>(nodes_[static_cast<std::uint64_t>(d) * width_ + c], acc);
    return acc;
  }

 private:
  node* nodes_;
  std::uint64_t width_;
  std::uint64_t pushed_ = 0;
  int depth_ = 0;
};

}  // namespace DETRED_ORDER_ABI
}  // namespace detred::order
