// SPDX-License-Identifier: BSD-3-Clause
// partial_state in exact mode: the ranges covered and one superaccumulator (include/detred/exact). Exact mode's
// result does not depend on the order of the terms, so a piece needs no raw ends and no tree: its terms go straight
// into the accumulator, and states merge by adding accumulators (docs/exact.md, docs/partial-states.md).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <typeindex>
#include <vector>

#include "bytes.hpp"
#include "detred/exact/exact_ops.hpp"
#include "detred/exact/superaccumulator.hpp"
#include "detred/partial.hpp"
#include "exact/exact_operators.hpp"
#include "state.hpp"

namespace detred::partial {

/// Op: an exact operator (detred/exact/exact_ops.hpp), whose terms the pieces add (x, |x|, x * y, x^2) and whose
/// finish makes the result (rounded, or the square root rounded).
template <class Op>
class exact_state final : public partial_state::impl {
  using T = typename Op::input;
  using R = typename Op::result;

 public:
  exact_state() : acc_(exact::empty_superaccumulator()) {}

  std::unique_ptr<impl> clone() const override { return std::make_unique<exact_state>(*this); }

  void merge_from(const impl& other_impl) override {
    const auto& other = static_cast<const exact_state&>(other_impl);
    std::vector<element_range> ranges = ranges_;
    for (const element_range& r : other.ranges_) insert(ranges, r);
    ranges_ = std::move(ranges);
    exact::merge(acc_, other.acc_);
  }

  void append(const void* const* data, std::uint64_t count) override {
    add(data, count, ranges_.empty() ? 0 : ranges_.back().end);
  }

  void add(const void* const* data, std::uint64_t count, std::uint64_t offset) override {
    if (count == 0) return;
    if (count > ~std::uint64_t{0} - offset) throw error("partial state: the elements would end past index 2^64 - 1");
    std::vector<element_range> ranges = ranges_;
    insert(ranges, {offset, offset + count});
    order::operands<Op> x{};
    for (unsigned a = 0; a < Op::arity; ++a) x.data[a] = static_cast<const T*>(data[a]);
    exact::merge(acc_, exact_cpu::state_of<Op>(x, count, how));
    ranges_ = std::move(ranges);
  }

  /// Adds the terms of elements [offset, offset + count), already summed into `piece` elsewhere (by a GPU).
  void add_accumulated(std::uint64_t offset, std::uint64_t count, const exact::superaccumulator& piece) {
    if (count == 0) return;
    if (count > ~std::uint64_t{0} - offset) throw error("partial state: the elements would end past index 2^64 - 1");
    std::vector<element_range> ranges = ranges_;
    insert(ranges, {offset, offset + count});
    exact::merge(acc_, piece);
    ranges_ = std::move(ranges);
  }

  std::vector<element_range> ranges() const override { return ranges_; }

  void write(byte_writer& out) const override {
    out.put<std::uint64_t>(ranges_.size());
    for (const element_range& r : ranges_) {
      out.put(r.begin);
      out.put(r.end);
    }
    exact::superaccumulator a = acc_;
    exact::normalize(a);  // the canonical form: equal sums give equal bytes
    for (std::int64_t w : a.word) out.put(w);
    out.put(a.flags);
  }

  void read(byte_reader& in) override {
    const auto count = in.get<std::uint64_t>("range count");
    if (count > in.remaining() / 16) throw error("partial state: corrupt: " + std::to_string(count) + " ranges");
    std::vector<element_range> ranges;
    for (std::uint64_t k = 0; k < count; ++k) {
      element_range r;
      r.begin = in.get<std::uint64_t>("range");
      r.end = in.get<std::uint64_t>("range");
      if (r.end <= r.begin || (k > 0 && r.begin <= ranges.back().end)) {
        throw error("partial state: corrupt: ranges empty, out of order, overlapping or touching");
      }
      ranges.push_back(r);
    }
    exact::superaccumulator a = exact::empty_superaccumulator();
    for (std::int64_t& w : a.word) w = in.get<std::int64_t>("superaccumulator");
    a.flags = in.get<std::uint32_t>("superaccumulator");
    for (int k = 0; k + 1 < exact::superaccumulator::words; ++k) {
      if (a.word[k] < 0 || a.word[k] >= (std::int64_t{1} << exact::superaccumulator::digit_bits)) {
        throw error("partial state: corrupt: a superaccumulator digit out of range");
      }
    }
    if (a.flags > 15) throw error("partial state: corrupt: superaccumulator flags " + std::to_string(a.flags));
    ranges_ = std::move(ranges);
    acc_ = a;
  }

  std::uint32_t element_bytes() const override { return sizeof(T); }
  std::uint32_t node_bytes() const override { return exact::superaccumulator::words * 8 + 4; }

  void result(void* out, std::type_index want) const override {
    if (want != std::type_index(typeid(R))) {
      throw error(std::string("partial_state::result: the result of ") + to_string(op) + " over " + to_string(type) +
                  " elements is " + type_name<R>() + ", not the type asked for");
    }
    if (!(ranges_.empty() || (ranges_.size() == 1 && ranges_.front().begin == 0))) {
      const std::uint64_t gap_begin = ranges_.front().begin == 0 ? ranges_.front().end : 0;
      const std::uint64_t gap_end = ranges_.front().begin == 0 ? ranges_[1].begin : ranges_.front().begin;
      throw error("partial_state::result: the state does not cover [0, n): elements [" + std::to_string(gap_begin) +
                  ", " + std::to_string(gap_end) + ") are missing");
    }
    *static_cast<R*>(out) = Op::finalize(acc_, ranges_.empty() ? 0 : ranges_.front().end);
  }

 private:
  std::vector<element_range> ranges_;  // sorted, disjoint, never touching
  exact::superaccumulator acc_;

  /// Adds r to the sorted ranges, joining touching neighbours; throws if it overlaps one.
  static void insert(std::vector<element_range>& ranges, element_range r) {
    auto at = std::lower_bound(ranges.begin(), ranges.end(), r.begin,
                               [](const element_range& k, std::uint64_t b) { return k.begin < b; });
    const bool overlaps_left = at != ranges.begin() && std::prev(at)->end > r.begin;
    const bool overlaps_right = at != ranges.end() && r.end > at->begin;
    if (overlaps_left || overlaps_right) {
      const element_range other = overlaps_left ? *std::prev(at) : *at;
      throw error("partial_state::merge: elements [" + std::to_string(r.begin) + ", " + std::to_string(r.end) +
                  ") overlap the state's [" + std::to_string(other.begin) + ", " + std::to_string(other.end) + ")");
    }
    at = ranges.insert(at, r);
    if (std::next(at) != ranges.end() && at->end == std::next(at)->begin) {
      at->end = std::next(at)->end;
      ranges.erase(std::next(at));
    }
    if (at != ranges.begin() && std::prev(at)->end == at->begin) {
      std::prev(at)->end = at->end;
      ranges.erase(at);
    }
  }
};

}  // namespace detred::partial
