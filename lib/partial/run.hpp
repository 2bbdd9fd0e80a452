// SPDX-License-Identifier: BSD-3-Clause
// One contiguous range of a global array, reduced as far as the canonical order allows without its neighbours: the
// raw elements of the leaves its ends cut, and the nodes of the maximal aligned subtrees of the leaf tree between.
//
// Why this is enough (docs/partial-states.md): every aligned block of 2^k leaves inside [0, m) is a subtree of the
// left-perfect leaf tree of m leaves, whatever m is, so a range can fold its whole aligned blocks before anyone knows
// n. Two aligned blocks of 2^k leaves that are siblings (the left one starts at a multiple of 2^(k+1)) are the two
// children of a node of the tree, so joining them is the tree's merge. A leaf cut by a range's end needs the elements
// on both sides, because each lane adds its elements left to right: those stay raw until the neighbour arrives. Once
// the ranges cover [0, n), the blocks are the binary decomposition of the leaf count, and folding them from the
// right is the root (order::subtree_stack's fold).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "canonical_node.hpp"
#include "detred/options.hpp"
#include "detred/order.hpp"

namespace detred::partial {

/// An item of a run: either raw elements inside one leaf (never a whole leaf), or the node of an aligned block of a
/// power-of-two number of whole leaves. begin and end are element indices of the global array.
template <class Op>
struct item {
  using input = typename Op::input;
  using node = order::node_of<Op>;

  bool raw = false;
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
  std::vector<input> elements[Op::arity];  ///< raw items only: elements [begin, end) of each operand
  node value{};                            ///< blocks only
};

/// Elements per leaf of Op's canonical order.
template <class Op>
inline constexpr std::uint64_t leaf_elements = order::leaf_size<typename Op::value>;

/// The greedy rule of the leaf tree's decomposition: the most leaves (a power of two) of an aligned block that
/// starts at leaf `leaf` and holds at most `available` leaves (>= 1).
inline std::uint64_t aligned_block_leaves(std::uint64_t leaf, std::uint64_t available) {
  std::uint64_t leaves = 1;
  while (leaf % (2 * leaves) == 0 && 2 * leaves <= available) leaves *= 2;
  return leaves;
}

/// Where the items of the range [begin, end) lie (its normalized form): a raw head up to the first leaf boundary,
/// the greedy aligned blocks, a raw tail. Backends that compute a range's nodes elsewhere (the GPU) follow it.
struct planned_item {
  bool raw;
  std::uint64_t begin;
  std::uint64_t end;
};
template <class Op>
std::vector<planned_item> plan(std::uint64_t begin, std::uint64_t end) {
  constexpr std::uint64_t L = order::leaf_size<typename Op::value>;
  std::vector<planned_item> items;
  for (std::uint64_t at = begin; at < end;) {
    if (at % L != 0 || end - at < L) {
      const std::uint64_t take = std::min(end - at, L - at % L);
      items.push_back({true, at, at + take});
      at += take;
    } else {
      const std::uint64_t leaves = aligned_block_leaves(at / L, (end - at) / L);
      items.push_back({false, at, at + leaves * L});
      at += leaves * L;
    }
  }
  return items;
}

/// Computes the node of the elements x[0..count), which start at global index x.first: a whole aligned block of
/// 2^k leaves, or the ragged last leaf of the array (the CPU engine: cpu::reduce_to_node).
template <class Op>
using node_function = order::node_of<Op> (*)(const order::operands<Op>& x, std::uint64_t count, const void* context);

/// A contiguous range [begin(), end()) as its items, in order; always normalized: no two raw items in one leaf, no
/// raw item covering a whole leaf, no two sibling blocks side by side. The normalized items of a range are a
/// function of the range alone: the head raw item, the greedy maximal aligned blocks, the tail raw item.
template <class Op>
class run {
 public:
  using node = order::node_of<Op>;

  std::uint64_t begin() const { return items_.front().begin; }
  std::uint64_t end() const { return items_.back().end; }
  const std::vector<item<Op>>& items() const { return items_; }

  /// The run of the elements x[0..count) at global indices [x.first, x.first + count), count > 0.
  static run of(const order::operands<Op>& x, std::uint64_t count, node_function<Op> nodes, const void* context) {
    run r;
    r.extend(x, count, nodes, context);
    return r;
  }

  /// Appends the elements x[0..count) that follow end() (x.first == end(), or the run is empty).
  void extend(const order::operands<Op>& x, std::uint64_t count, node_function<Op> nodes, const void* context) {
    constexpr std::uint64_t L = leaf_elements<Op>;
    std::uint64_t done = 0;
    while (done < count) {
      const std::uint64_t at = x.first + done;
      const std::uint64_t left = count - done;
      if (at % L != 0 || left < L) {
        // Up to the next leaf boundary, raw: onto the raw item this range ends with when the leaf is the same one
        // (the streaming case: a leaf filled chunk by chunk, in one buffer), else as a new raw item.
        const std::uint64_t take = std::min(left, L - at % L);
        if (!items_.empty() && items_.back().raw && items_.back().end == at && at % L != 0) {
          item<Op>& last = items_.back();
          for (unsigned a = 0; a < Op::arity; ++a)
            last.elements[a].insert(last.elements[a].end(), x.data[a] + done, x.data[a] + done + take);
          last.end += take;
          if (last.end % L == 0 && last.begin % L == 0) {
            item<Op> leaf = std::move(last);
            items_.pop_back();
            push(std::move(leaf), nodes, context);
          }
        } else {
          item<Op> piece;
          piece.raw = true;
          piece.begin = at;
          piece.end = at + take;
          for (unsigned a = 0; a < Op::arity; ++a) {
            piece.elements[a].reserve(L);
            piece.elements[a].assign(x.data[a] + done, x.data[a] + done + take);
          }
          push(std::move(piece), nodes, context);
        }
        done += take;
        continue;
      }
      // The largest aligned block of whole leaves that starts here and fits.
      const std::uint64_t leaves = aligned_block_leaves(at / L, left / L);
      item<Op> block;
      block.begin = at;
      block.end = at + leaves * L;
      block.value = nodes(x.advanced(done), leaves * L, context);
      push(std::move(block), nodes, context);
      done += leaves * L;
    }
  }

  /// Appends the run `right`, which starts at end().
  void join(run&& right, node_function<Op> nodes, const void* context) {
    for (item<Op>& it : right.items_) push(std::move(it), nodes, context);
  }

  /// The root of the canonical order over [0, end()), for a run that starts at 0: the ragged last leaf's node, then
  /// the blocks folded from the right.
  node root(node_function<Op> nodes, const void* context) const {
    std::vector<item<Op>> blocks = items_;
    if (blocks.back().raw) {
      item<Op> last = std::move(blocks.back());
      blocks.pop_back();
      last.value = leaf_node(last, nodes, context);
      last.raw = false;
      coalesce_into(blocks, std::move(last));
    }
    node acc = blocks.back().value;
    for (std::size_t k = blocks.size() - 1; k-- > 0;) acc = order::merge<Op>(blocks[k].value, acc);
    return acc;
  }

  /// Appends a normalized item that starts at end(); used by the reader and the GPU's runs, which then check
  /// normalized(). Its node is made canonical, as every node a run keeps.
  void push_unchecked(item<Op>&& it) {
    if (!it.raw) it.value = canonical_node(it.value);
    items_.push_back(std::move(it));
  }

  /// True if the items are what the range's own construction gives (the reader's structural check); otherwise
  /// `why` says what is wrong.
  bool normalized(std::string& why) const {
    constexpr std::uint64_t L = leaf_elements<Op>;
    for (std::size_t k = 0; k < items_.size(); ++k) {
      const item<Op>& it = items_[k];
      if (it.end <= it.begin) return (why = "an empty item"), false;
      if (k > 0 && items_[k - 1].end != it.begin) return (why = "items that do not follow each other"), false;
      if (it.raw) {
        if ((it.end - 1) / L != it.begin / L) return (why = "raw elements across a leaf boundary"), false;
        if (it.end - it.begin == L) return (why = "a whole leaf kept raw"), false;
        if (k > 0 && k + 1 < items_.size()) return (why = "raw elements inside a range"), false;
      } else {
        const std::uint64_t leaves = (it.end - it.begin) / L;
        if (it.begin % L != 0 || it.end % L != 0 || (leaves & (leaves - 1)) != 0 || (it.begin / L) % leaves != 0)
          return (why = "a block that is not an aligned power of two of leaves"), false;
        if (k > 0 && !items_[k - 1].raw && siblings(items_[k - 1], it))
          return (why = "two sibling blocks not joined"), false;
      }
    }
    for (std::size_t k = 0; k + 1 < items_.size(); ++k) {
      if (items_[k].raw && items_[k + 1].raw && items_[k].begin / L == items_[k + 1].begin / L)
        return (why = "two raw items in one leaf"), false;
      // A block followed by a smaller-aligned position that could have been larger: the greedy decomposition takes
      // the largest aligned block at each position.
      if (!items_[k].raw) {
        const std::uint64_t leaves = (items_[k].end - items_[k].begin) / L;
        const std::uint64_t leaf = items_[k].begin / L;
        const std::uint64_t full_end = whole_leaves_end();
        if (leaf % (2 * leaves) == 0 && (leaf + 2 * leaves) * L <= full_end)
          return (why = "a block smaller than the largest aligned block at its position"), false;
      }
    }
    return true;
  }

 private:
  std::vector<item<Op>> items_;

  static bool siblings(const item<Op>& left, const item<Op>& right) {
    constexpr std::uint64_t L = leaf_elements<Op>;
    const std::uint64_t leaves = (left.end - left.begin) / L;
    return right.begin == left.end && right.end - right.begin == left.end - left.begin &&
           (left.begin / L) % (2 * leaves) == 0;
  }

  /// End of the last whole leaf of the run.
  std::uint64_t whole_leaves_end() const {
    return items_.back().raw ? items_.back().begin - items_.back().begin % leaf_elements<Op> : items_.back().end;
  }

  static node leaf_node(const item<Op>& piece, node_function<Op> nodes, const void* context) {
    order::operands<Op> x{};
    for (unsigned a = 0; a < Op::arity; ++a) x.data[a] = piece.elements[a].data();
    x.first = piece.begin;
    return nodes(x, piece.end - piece.begin, context);
  }

  /// Pushes a block, joining it with its sibling on the left as long as there is one.
  /// Every node it keeps is canonical (canonical_node.hpp): a leaf's node, a merge's, one built elsewhere.
  static void coalesce_into(std::vector<item<Op>>& items, item<Op>&& block) {
    block.value = canonical_node(block.value);
    while (!items.empty() && !items.back().raw && siblings(items.back(), block)) {
      block.value = canonical_node(order::merge<Op>(items.back().value, block.value));
      block.begin = items.back().begin;
      items.pop_back();
    }
    items.push_back(std::move(block));
  }

  void push(item<Op>&& it, node_function<Op> nodes, const void* context) {
    constexpr std::uint64_t L = leaf_elements<Op>;
    if (it.raw && !items_.empty() && items_.back().raw && items_.back().end == it.begin && it.begin % L != 0) {
      // The two sides of a cut leaf meet: one raw item.
      item<Op> joined = std::move(items_.back());
      items_.pop_back();
      for (unsigned a = 0; a < Op::arity; ++a)
        joined.elements[a].insert(joined.elements[a].end(), it.elements[a].begin(), it.elements[a].end());
      joined.end = it.end;
      it = std::move(joined);
    }
    if (it.raw && it.begin % L == 0 && it.end - it.begin == L) {
      it.value = leaf_node(it, nodes, context);
      it.raw = false;
      for (unsigned a = 0; a < Op::arity; ++a) std::vector<typename Op::input>().swap(it.elements[a]);
    }
    if (it.raw) {
      items_.push_back(std::move(it));
    } else {
      coalesce_into(items_, std::move(it));
    }
  }
};

}  // namespace detred::partial
