// SPDX-License-Identifier: BSD-3-Clause
// partial_state's implementation for one operator: the runs it covers, merged and extended by the CPU engine, and
// their portable form. partial_state.cpp picks the operator; this file knows nothing of the public enums' names.
#pragma once

#include <algorithm>
#include <cstdint>
#include <exception>
#include <memory>
#include <span>
#include <string>
#include <typeindex>
#include <utility>
#include <vector>

#include <omp.h>

#include "core/integer_results.hpp"
#include "cpu/cpu_backend.hpp"
#include "cpu/prefetch.hpp"
#include "detred/order.hpp"
#include "detred/partial.hpp"
#include "node_codec.hpp"
#include "run.hpp"

namespace detred {

namespace partial {
/// One chunk of a batch append: count elements of the state's element type at data.
struct chunk_ref {
  const void* data;
  std::uint64_t count;
};
}  // namespace partial

/// What every operator's state offers the public class.
struct partial_state::impl {
  detred::operation op{};
  detred::mode mode = detred::mode::tree;
  detred::element_type type{};
  cpu::run_options how{};

  virtual ~impl() = default;
  virtual std::unique_ptr<impl> clone() const = 0;
  /// Adds other's runs (other is a state of the same operator); throws, changing nothing, if a range overlaps.
  virtual void merge_from(const impl& other) = 0;
  /// Appends count elements of each operand after the last range (at 0 for an empty state).
  virtual void append(const void* const* data, std::uint64_t count) = 0;
  /// Appends the chunks in order, as append() of each would (one operand). The canonical-order states split the
  /// list between their threads; this default (the exact states) appends them one by one.
  virtual void append_chunks(std::span<const partial::chunk_ref> chunks) {
    for (const partial::chunk_ref& c : chunks) {
      const void* data[2] = {c.data, nullptr};
      append(data, c.count);
    }
  }
  /// Adds count elements of each operand as the global elements [offset, offset + count) of a state that covers
  /// none of them.
  virtual void add(const void* const* data, std::uint64_t count, std::uint64_t offset) = 0;
  virtual std::vector<element_range> ranges() const = 0;
  /// The runs in the portable form; read() replaces this state's runs by the ones in `in`, checking them.
  virtual void write(partial::byte_writer& out) const = 0;
  virtual void read(partial::byte_reader& in) = 0;
  /// The bytes of one element and of one node in the portable form, for the header.
  virtual std::uint32_t element_bytes() const = 0;
  virtual std::uint32_t node_bytes() const = 0;
  /// Writes the result of a complete state to `out`, which holds a `want`; throws if `want` is not the result type.
  virtual void result(void* out, std::type_index want) const = 0;
};

namespace partial {

/// The result type of the single-array call for Op (the integer sums are narrowed to int64 or uint64).
template <class Op>
struct public_result {
  using type = typename Op::result;
};
template <class I>
struct public_result<order::integer_sum_op<I>> {
  using type = std::conditional_t<std::is_signed_v<I>, std::int64_t, std::uint64_t>;
};

/// The name of a result type, for messages.
template <class R>
const char* type_name() {
  if constexpr (std::is_same_v<R, double>)
    return "double";
  else if constexpr (std::is_same_v<R, float>)
    return "float";
  else if constexpr (std::is_same_v<R, std::int32_t>)
    return "std::int32_t";
  else if constexpr (std::is_same_v<R, std::int64_t>)
    return "std::int64_t";
  else if constexpr (std::is_same_v<R, std::uint32_t>)
    return "std::uint32_t";
  else if constexpr (std::is_same_v<R, std::uint64_t>)
    return "std::uint64_t";
  else if constexpr (std::is_same_v<R, statistics<double>>)
    return "detred::statistics<double>";
  else
    return "detred::statistics<float>";
}

/// Op's result over the array whose root is `root` and length n, with the single-array call's errors.
template <class Op>
typename public_result<Op>::type finished(const order::node_of<Op>& root, std::uint64_t n, operation op) {
  if constexpr (std::is_same_v<typename Op::result, order::wide_integer>) {
    return narrowed<typename public_result<Op>::type>(order::finish<Op>(root, n), "partial_state::result");
  } else {
    if (n == 0 &&
        (op == operation::min || op == operation::max || op == operation::argmin || op == operation::argmax)) {
      throw error(std::string("partial_state::result: an empty array has no ") + to_string(op) +
                  " (it needs at least 1 element)");
    }
    return order::finish<Op>(root, n);
  }
}

template <class Op>
class state_for final : public partial_state::impl {
 public:
  std::unique_ptr<impl> clone() const override { return std::make_unique<state_for>(*this); }

  void merge_from(const impl& other_impl) override {
    const auto& other = static_cast<const state_for&>(other_impl);
    std::vector<run<Op>> runs = runs_;
    for (const run<Op>& r : other.runs_) insert(runs, run<Op>(r));
    runs_ = std::move(runs);
  }

  void append(const void* const* data, std::uint64_t count) override {
    if (count == 0) return;
    order::operands<Op> x{};
    for (unsigned a = 0; a < Op::arity; ++a) x.data[a] = static_cast<const typename Op::input*>(data[a]);
    x.first = runs_.empty() ? 0 : runs_.back().end();
    if (count > ~std::uint64_t{0} - x.first) throw error("partial state: the elements would end past index 2^64 - 1");
    prefetch_following(x, count);
    if (runs_.empty()) {
      runs_.push_back(run<Op>::of(x, count, &compute, &how));
    } else {
      runs_.back().extend(x, count, &compute, &how);
    }
  }

  void append_chunks(std::span<const chunk_ref> chunks) override {
    if constexpr (Op::arity != 1) {
      throw error("partial_state::append: a dot product takes x and y chunks");
    } else {
      append_chunk_list(chunks);
    }
  }

  void add(const void* const* data, std::uint64_t count, std::uint64_t offset) override {
    if (count == 0) return;
    order::operands<Op> x{};
    for (unsigned a = 0; a < Op::arity; ++a) x.data[a] = static_cast<const typename Op::input*>(data[a]);
    x.first = offset;
    insert(runs_, run<Op>::of(x, count, &compute, &how));
  }

  /// Adds a run built elsewhere (a GPU's nodes and raw ends, in plan<Op>'s form); throws if it is not normalized or
  /// overlaps this state.
  void add_run(run<Op>&& r) {
    std::string why;
    if (!r.normalized(why)) throw error("partial state: a run built elsewhere is not normalized: " + why);
    insert(runs_, std::move(r));
  }

  std::vector<element_range> ranges() const override {
    std::vector<element_range> r;
    for (const run<Op>& k : runs_) r.push_back({k.begin(), k.end()});
    return r;
  }

  void write(byte_writer& out) const override {
    out.put<std::uint64_t>(runs_.size());
    for (const run<Op>& r : runs_) {
      out.put<std::uint64_t>(r.items().size());
      for (const item<Op>& it : r.items()) {
        out.put<std::uint8_t>(it.raw ? 1 : 0);
        out.put<std::uint64_t>(it.begin);
        out.put<std::uint64_t>(it.end);
        if (it.raw) {
          for (unsigned a = 0; a < Op::arity; ++a)
            out.put_bytes(it.elements[a].data(), it.elements[a].size() * sizeof(typename Op::input));
        } else {
          encode_node(it.value, out);
        }
      }
    }
  }

  void read(byte_reader& in) override {
    std::vector<run<Op>> runs;
    const auto run_count = in.get<std::uint64_t>("run count");
    std::uint64_t previous_end = 0;
    for (std::uint64_t k = 0; k < run_count; ++k) {
      const auto items = in.get<std::uint64_t>("item count");
      // Each item takes at least 17 bytes: a count beyond what is left is corrupt, not a reason to allocate.
      if (items == 0 || items > in.remaining() / 17)
        throw error("partial state: corrupt: a run of " + std::to_string(items) + " items");
      run<Op> r;
      for (std::uint64_t i = 0; i < items; ++i) {
        item<Op> it;
        const auto raw = in.get<std::uint8_t>("item kind");
        if (raw > 1) throw error("partial state: corrupt: an item of kind " + std::to_string(raw));
        it.raw = raw == 1;
        it.begin = in.get<std::uint64_t>("item range");
        it.end = in.get<std::uint64_t>("item range");
        if (it.end <= it.begin) throw error("partial state: corrupt: an item over an empty or reversed range");
        if (it.raw) {
          const std::uint64_t count = it.end - it.begin;
          if (count >= leaf_elements<Op> || count * sizeof(typename Op::input) * Op::arity > in.remaining())
            throw error("partial state: corrupt or truncated: raw elements [" + std::to_string(it.begin) + ", " +
                        std::to_string(it.end) + ")");
          for (unsigned a = 0; a < Op::arity; ++a) {
            it.elements[a].resize(count);
            in.get_bytes(it.elements[a].data(), count * sizeof(typename Op::input), "raw elements");
          }
        } else {
          it.value = decode_node<Op>(in);
        }
        r.push_unchecked(std::move(it));
      }
      std::string why;
      if (!r.normalized(why)) throw error("partial state: corrupt: " + why);
      if (k > 0 && r.begin() <= previous_end)
        throw error("partial state: corrupt: ranges out of order, overlapping or touching");
      previous_end = r.end();
      runs.push_back(std::move(r));
    }
    runs_ = std::move(runs);
  }

  std::uint32_t element_bytes() const override { return sizeof(typename Op::input); }
  std::uint32_t node_bytes() const override { return encoded_node_bytes<Op>(); }

  void result(void* out, std::type_index want) const override {
    using R = typename public_result<Op>::type;
    if (want != std::type_index(typeid(R))) throw error(wrong_type_message());
    std::uint64_t n = 0;
    if (!runs_.empty()) {
      if (runs_.size() > 1 || runs_.front().begin() != 0) throw error(missing_message());
      n = runs_.front().end();
    }
    const order::node_of<Op> root = runs_.empty() ? order::empty_node<Op>() : runs_.front().root(&compute, &how);
    *static_cast<R*>(out) = finished<Op>(root, n, op);
  }

 private:
  std::vector<run<Op>> runs_;  // sorted, disjoint, never touching (touching runs are joined)

  /// How far past a chunk append asks for memory when the caller walks an array: a chunk's first cache lines are
  /// otherwise read cold (the hardware prefetchers stop at page boundaries), which cost chunks of 4 KiB a third of
  /// their speed on one core. Two pages: 8 KiB measured faster than 4 and 16 KiB (docs/partial-states.md).
  static constexpr std::uint64_t follow_bytes = 8192;
  /// Per operand: where the last appended chunk ended, and how far the prefetches have reached.
  std::uintptr_t chunk_end_[Op::arity] = {};
  std::uintptr_t prefetched_[Op::arity] = {};

  /// When this chunk starts where the last one ended (a caller walking an array, not refilling one buffer), asks
  /// for the follow_bytes after it that no earlier call asked for: the next chunk's, most likely. A hint only: it
  /// never faults and changes no result (it may reach past the caller's memory), and a caller that refills one
  /// buffer never triggers it.
  void prefetch_following(const order::operands<Op>& x, std::uint64_t count) {
    for (unsigned a = 0; a < Op::arity; ++a) {
      const auto begin = reinterpret_cast<std::uintptr_t>(x.data[a]);
      const std::uintptr_t end = begin + count * sizeof(typename Op::input);
      if (begin == chunk_end_[a]) {
        const std::uintptr_t from = std::max(end, prefetched_[a]);
        const std::uintptr_t to = end + follow_bytes;
        if (to > from) cpu::prefetch_bytes(from, to - from);
        prefetched_[a] = to;
      } else {
        prefetched_[a] = 0;  // a new walk: what was asked for belongs to another one
      }
      chunk_end_[a] = end;
    }
  }

  /// append_chunks of a one-operand state.
  void append_chunk_list(std::span<const chunk_ref> chunks) {
    std::uint64_t total = 0;
    const std::uint64_t first = runs_.empty() ? 0 : runs_.back().end();
    std::vector<std::uint64_t> starts(chunks.size() + 1, first);  // global index of each chunk's first element
    for (std::size_t c = 0; c < chunks.size(); ++c) {
      if (chunks[c].count > ~std::uint64_t{0} - first - total)
        throw error("partial state: the elements would end past index 2^64 - 1");
      total += chunks[c].count;
      starts[c + 1] = first + total;
    }
    const int threads = cpu::thread_count(how.threads);
    const std::uint64_t threshold = how.parallel_threshold_bytes == ~std::uint64_t{0}
                                        ? cpu::default_parallel_threshold<Op>()
                                        : how.parallel_threshold_bytes;
    const int team = static_cast<int>(std::min<std::uint64_t>(static_cast<std::uint64_t>(threads), chunks.size()));
    if (team <= 1 || total * sizeof(typename Op::input) < threshold) {
      impl::append_chunks(chunks);  // one by one, on the calling thread
      return;
    }
    // Each thread builds the run of a contiguous part of the list (its chunks one after another, with one thread's
    // engine), then the runs join in order: what merging states of adjacent pieces does, so the bits are the
    // one-call bits whatever the split. A part boundary may fall inside a leaf; the join completes that leaf.
    std::vector<run<Op>> parts(static_cast<std::size_t>(team));
    std::vector<std::exception_ptr> failures(static_cast<std::size_t>(team));
    cpu::run_options one = how;
    one.threads = 1;
#pragma omp parallel num_threads(team)
    {
      const auto t = static_cast<std::size_t>(omp_get_thread_num());
      const auto size = static_cast<std::size_t>(omp_get_num_threads());
      // Part t: the chunks whose first element lies in [total * t / size, total * (t + 1) / size) of the batch.
      const auto part_of = [&](std::size_t k) {
        const std::uint64_t at = first + total / size * k + total % size * k / size;
        return static_cast<std::size_t>(std::lower_bound(starts.begin(), starts.end() - 1, at) - starts.begin());
      };
      try {
        const std::size_t end = t + 1 == size ? chunks.size() : part_of(t + 1);
        for (std::size_t c = t == 0 ? 0 : part_of(t); c < end; ++c) {
          if (chunks[c].count == 0) continue;
          // The next chunk's first lines, asked for while this one is read (the prefetchers stop at page ends).
          if (c + 1 < end) {
            cpu::prefetch_bytes(
                reinterpret_cast<std::uintptr_t>(chunks[c + 1].data),
                std::min<std::uint64_t>(follow_bytes, chunks[c + 1].count * sizeof(typename Op::input)));
          }
          order::operands<Op> x{};
          x.data[0] = static_cast<const typename Op::input*>(chunks[c].data);
          x.first = starts[c];
          if (parts[t].items().empty()) {
            parts[t] = run<Op>::of(x, chunks[c].count, &compute, &one);
          } else {
            parts[t].extend(x, chunks[c].count, &compute, &one);
          }
        }
      } catch (...) {
        failures[t] = std::current_exception();
      }
    }
    for (const std::exception_ptr& f : failures) {
      if (f) std::rethrow_exception(f);
    }
    for (run<Op>& part : parts) {
      if (!part.items().empty()) insert(runs_, std::move(part));
    }
  }

  static order::node_of<Op> compute(const order::operands<Op>& x, std::uint64_t count, const void* context) {
    return cpu::reduce_to_node<Op>(x, count, *static_cast<const cpu::run_options*>(context));
  }

  void insert(std::vector<run<Op>>& runs, run<Op>&& r) const {
    auto at = std::lower_bound(runs.begin(), runs.end(), r.begin(),
                               [](const run<Op>& k, std::uint64_t b) { return k.begin() < b; });
    const bool overlaps_left = at != runs.begin() && std::prev(at)->end() > r.begin();
    const bool overlaps_right = at != runs.end() && r.end() > at->begin();
    if (overlaps_left || overlaps_right) {
      const run<Op>& other = overlaps_left ? *std::prev(at) : *at;
      throw error("partial_state::merge: elements [" + std::to_string(r.begin()) + ", " + std::to_string(r.end()) +
                  ") overlap the state's [" + std::to_string(other.begin()) + ", " + std::to_string(other.end()) + ")");
    }
    at = runs.insert(at, std::move(r));
    if (std::next(at) != runs.end() && at->end() == std::next(at)->begin()) {
      at->join(std::move(*std::next(at)), &compute, &how);
      runs.erase(std::next(at));
    }
    if (at != runs.begin() && std::prev(at)->end() == at->begin()) {
      std::prev(at)->join(std::move(*at), &compute, &how);
      runs.erase(at);
    }
  }

  std::string missing_message() const {
    std::string covered;
    for (const run<Op>& k : runs_) {
      covered += (covered.empty() ? "[" : ", [") + std::to_string(k.begin()) + ", " + std::to_string(k.end()) + ")";
    }
    const std::uint64_t gap_begin = runs_.front().begin() == 0 ? runs_.front().end() : 0;
    const std::uint64_t gap_end = runs_.front().begin() == 0 ? runs_[1].begin() : runs_.front().begin();
    return "partial_state::result: the state covers " + covered + ", not [0, n): elements [" +
           std::to_string(gap_begin) + ", " + std::to_string(gap_end) + ") are missing";
  }

  std::string wrong_type_message() const {
    return std::string("partial_state::result: the result of ") + to_string(op) + " over " + to_string(type) +
           " elements is " + type_name<typename public_result<Op>::type>() + ", not the type asked for";
  }
};

}  // namespace partial
}  // namespace detred
