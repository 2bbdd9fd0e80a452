// SPDX-License-Identifier: BSD-3-Clause
// The CPU engine for batches of reductions (included by lane_engine.inl, inside the instruction set's namespace):
// many lines of one array, each reduced in its own canonical order as if it were an array of its own. A line's
// result therefore never depends on the other lines of the batch.
//   lines:          contiguous lines (segments of an array, rows of a row-major matrix), each by leaf() and
//                   subtree() as a single array.
//   strided_lines:  lines whose elements are `stride` apart (columns of a row-major matrix). Adjacent lines are
//                   adjacent in memory, so a register holds one lane of VL lines side by side, and the lanes of a
//                   leaf are accumulated for a panel of lines at a time: each row of the panel is read once, in
//                   order, and every vector operation is the lane's own accumulate or combine, lane by lane.

/// Lines [first, last) of `set` (results[k] for line k), except those longer than `longest`, which the driver
/// reduces with every thread; returns how many were left to it.
template <class Op, order::leaf_shape shape = order::shape_of<typename Op::value>>
std::uint64_t lines(order::operands<Op> x, const line_set& set, std::uint64_t first, std::uint64_t last,
                    std::uint64_t longest, typename Op::result* results) {
  constexpr std::uint64_t L = shape.leaf_size;
  std::uint64_t skipped = 0;
  for (std::uint64_t k = first; k < last; ++k) {
    const std::uint64_t n = set.size(k);
    if (n > longest) {
      ++skipped;
      continue;
    }
    // A short line asks for the line's worth of bytes 4 KiB past its start (16 segments ahead for 64 floats). The
    // hardware prefetchers follow the stream too, but each short line's few loads still waited on memory: 2^20
    // segments of 64 floats on 1 thread took 17-19 ns a line without, 13-17 with 1 KiB ahead. Once the short lines'
    // lanes stayed in registers, 4 KiB gave two threads 56.6-57.8 GB/s against 48.4-51.8 with 1 KiB, in runs
    // alternating the two on a VM whose two cores stream 70-76 GB/s (docs/benchmarks.md).
    constexpr std::uint64_t ahead_bytes = 4096;
    const std::uint64_t bytes = n * sizeof(typename Op::input);
    if (bytes <= ahead_bytes) prefetch(x, set.start(k) + ahead_bytes / sizeof(typename Op::input), bytes);
    order::operands<Op> line = x.advanced(set.start(k));
    line.first = 0;  // argmin and argmax count from the line's first element
    const auto root = [&]() -> order::node_of<Op> {
      if (n == 0) return order::empty_node<Op>();
      if constexpr (order::neutral_identity<Op> && !order::locates_element<Op>) {
        // Inlined here rather than through leaf(): most of what a batch of short lines runs.
        if (n <= shape.lanes) return short_leaf<Op, shape>(line, n);
      }
      return n <= L ? leaf<Op, shape>(line, n)
                    : subtree<Op, shape>(line, n,
                                         n * sizeof(typename Op::input) * Op::arity >= ::detred::cpu::streaming_bytes);
    };
    results[k] = order::finish<Op>(root(), n);
  }
  return skipped;
}

/// The index in its line of the first element of a strided line's leaf [start, start + count) that matches the
/// leaf's root (operators that locate an element).
template <class Op>
std::uint64_t first_match_strided(const order::operands<Op>& line, std::uint64_t stride, std::uint64_t start,
                                  std::uint64_t count, const typename Op::state& root) {
  using T = typename Op::value;
  std::uint64_t i = start;
  while (i + 1 < start + count &&
         !Op::matches(root, order::widen<T, typename Op::input>(line.element(0, i * stride)))) {
    ++i;
  }
  return i;
}

/// The low `bits` bits of p in reverse order.
constexpr std::uint64_t bit_reversed(std::uint64_t p, int bits) {
  std::uint64_t r = 0;
  for (int k = 0; k < bits; ++k, p >>= 1) r = (r << 1) | (p & 1);
  return r;
}

/// Aligns p up to `a` bytes.
inline unsigned char* align_up(unsigned char* p, std::uint64_t a) {
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  return p + ((a - at % a) % a);
}

/// Bytes of scratch a panel of `blocks` values of V over lines of `leaves` leaves needs, each part 64-byte aligned:
/// the pending lane states (one panel's worth per level of the lane tree), the lane being accumulated, a lane tree,
/// and the leaf-tree stacks of its lines.
template <class Op, class V, order::leaf_shape shape>
constexpr std::uint64_t panel_bytes(std::uint64_t blocks, std::uint64_t leaves) {
  using S = typename Op::template state_of<V>;
  constexpr std::uint64_t per_value = sizeof(V) / sizeof(typename Op::value);
  constexpr std::uint64_t lane_levels = std::countr_zero(shape.lanes);
  return (lane_levels + 1) * blocks * sizeof(S) + shape.lanes * sizeof(S) +
         order::lockstep_leaf_stacks<Op>::depth_for(leaves) * blocks * per_value * sizeof(order::node_of<Op>) + 3 * 64;
}

/// One panel of strided lines: `blocks` values of V side by side (V a register of VL lanes, or a scalar for lines
/// left over), lines [line0, line0 + blocks * lanes of V). `scratch` holds panel_bytes(blocks, leaves). (The kernels
/// allocate nothing: a standard container instantiated here would be a weak symbol shared with the other instruction
/// sets' objects, and the linker may keep any one of them.)
template <class Op, class V, order::leaf_shape shape>
void strided_panel(const order::operands<Op>& x, std::uint64_t length, std::uint64_t stride, std::uint64_t line0,
                   std::uint64_t blocks, typename Op::result* results, unsigned char* scratch) {
  using T = typename Op::value;
  using S = typename Op::template state_of<V>;
  constexpr std::uint64_t W = shape.lanes;
  constexpr std::uint64_t L = shape.leaf_size;
  constexpr std::uint64_t per_value = sizeof(V) / sizeof(T);
  constexpr int lane_levels = std::countr_zero(W);
  const std::uint64_t width = blocks * per_value;
  const std::uint64_t leaves = order::leaf_count(shape, length);

  // states + k * blocks: lane states of the panel, one block after another (lane_levels + 1 of them, handed
  // around as the lane tree proceeds); tree: one block's lanes for lines of at most W elements; nodes: the leaf-tree
  // stacks of the panel's lines.
  auto* const states = reinterpret_cast<S*>(align_up(scratch, 64));
  auto* const tree =
      reinterpret_cast<S*>(align_up(reinterpret_cast<unsigned char*>(states + (lane_levels + 1) * blocks), 64));
  auto* const nodes = reinterpret_cast<order::node_of<Op>*>(align_up(reinterpret_cast<unsigned char*>(tree + W), 64));
  const auto take = [&](const S& s, std::uint64_t offset, bool later) -> S {
    if constexpr (per_value == 1) {
      if constexpr (Op::arity == 1) {
        return later ? order::accumulate_later<Op>(s, x.element(0, offset)) : Op::accumulate(s, x.element(0, offset));
      } else {
        return later ? order::accumulate_later<Op>(s, x.element(0, offset), x.element(1, offset))
                     : Op::accumulate(s, x.element(0, offset), x.element(1, offset));
      }
    } else {
      if constexpr (Op::arity == 1) {
        const auto a = load<Op>(x.data[0] + offset);
        return later ? order::accumulate_later<Op>(s, a) : Op::accumulate(s, a);
      } else {
        const auto a = load<Op>(x.data[0] + offset);
        const auto b = load<Op>(x.data[1] + offset);
        return later ? order::accumulate_later<Op>(s, a, b) : Op::accumulate(s, a, b);
      }
    }
  };
  const auto lane_of = [&](const S& value, std::uint64_t j) -> typename Op::state {
    if constexpr (per_value == 1) {
      return value;
    } else {
      return get_lane<Op, sizeof(V)>(value, j);
    }
  };

  if constexpr (order::neutral_identity<Op> && !order::locates_element<Op>) {
    if (length >= 1 && length <= W) {
      // Lines of at most W elements (the sums over ranks of an element-wise MPI sum: a handful of rows): one
      // element per lane, no leaf tree. Only the lanes that took an element are joined (fold_live_lanes), and each
      // line's leaf root is its result.
      for (std::uint64_t b = 0; b < blocks; ++b) {
        for (std::uint64_t i = 0; i < length; ++i) {
          tree[i] = take(Op::template identity<V>(), i * stride + line0 + b * per_value, false);
        }
        order::fold_live_lanes<Op>(tree, W, length);
        for (std::uint64_t j = 0; j < per_value; ++j) {
          results[line0 + b * per_value + j] = order::finish<Op>(order::to_node<Op>(lane_of(tree[0], j), 0), length);
        }
      }
      return;
    }
  }
  // Lane by lane, each lane's rows in order (lane l of a leaf takes rows r0 + l, r0 + l + W, ...): one lane's
  // states for the panel stay in L1 while its rows are added, however wide the panel. Lanes are taken in
  // bit-reversed order, in which the halving lane tree (order::fold_lanes) joins neighbours: lane p's states wait
  // at level k of `pending` until their right neighbour at that level is done, a binary counter like the leaf
  // tree's, so only lane_levels + 1 panels of states exist at once. Rows are a leading dimension apart, a stride
  // the hardware prefetchers lose across pages: the first line of each page of the panel's part of the row `ahead`
  // visits later is asked for into the second level, which walks its page table early and starts the page's stream.
  // Asking for every line instead (512 prefetches a row, each holding a first-level fill buffer that the loads of
  // the current row need) was slower on an Intel Xeon than no prefetch at all: 2^14 x 2^14 floats, 2 threads,
  // 0.79-0.92x the baseline against 0.93-0.97 without and 0.96-0.99 with a line a page (docs/benchmarks.md).
  constexpr std::uint64_t ahead = 8;
  constexpr std::uint64_t page_bytes = 4096;
  S* pending[lane_levels];
  for (int k = 0; k < lane_levels; ++k) pending[k] = states + static_cast<std::uint64_t>(k) * blocks;
  S* lane = states + static_cast<std::uint64_t>(lane_levels) * blocks;
  order::lockstep_leaf_stacks<Op> stacks(nodes, width);
  for (std::uint64_t f = 0; f < leaves; ++f) {
    const std::uint64_t r0 = f * L;
    const std::uint64_t count = length - r0 < L ? length - r0 : L;
    const auto lane_at = [](std::uint64_t p) { return bit_reversed(p, lane_levels); };
    const auto rows_of_lane = [&](std::uint64_t l) { return l < count ? (count - l + W - 1) / W : 0; };
    for (std::uint64_t p = 0; p < W; ++p) {
      const std::uint64_t l = lane_at(p);
      const std::uint64_t rows = rows_of_lane(l);
      for (std::uint64_t b = 0; b < blocks; ++b) lane[b] = Op::template identity<V>();
      for (std::uint64_t k = 0; k < rows; ++k) {
        // The row `ahead` visits later: in this lane, or early in the next one (none past the leaf's last lane).
        const bool same = k + ahead < rows;
        if (same || p + 1 < W) {
          const std::uint64_t next_lane = same ? l : lane_at(p + 1);
          const std::uint64_t next_k = same ? k + ahead : k + ahead - rows;
          if (next_k < rows_of_lane(next_lane)) {
            prefetch<Op, ::detred::cpu::cache_level::second>(x, (r0 + next_lane + next_k * W) * stride + line0,
                                                             width * sizeof(typename Op::input), page_bytes);
          }
        }
        const std::uint64_t row = (r0 + l + k * W) * stride + line0;
        for (std::uint64_t b = 0; b < blocks; ++b) lane[b] = take(lane[b], row + b * per_value, k > 0);
      }
      int level = 0;
      for (std::uint64_t q = p; q & 1; q >>= 1, ++level) {
        for (std::uint64_t b = 0; b < blocks; ++b) lane[b] = Op::combine(pending[level][b], lane[b]);
      }
      // The joined states wait at `level`, and the buffer they leave is the next lane's; after the last lane
      // (level == lane_levels) `lane` holds the lane tree's roots.
      if (level < lane_levels) std::swap(pending[level], lane);
    }
    const S* const roots = lane;
    stacks.push([&](std::uint64_t c) {
      const typename Op::state root = lane_of(roots[c / per_value], c % per_value);
      if constexpr (order::locates_element<Op>) {
        order::operands<Op> line = x.advanced(line0 + c);
        line.first = 0;
        return order::to_node<Op>(root, first_match_strided<Op>(line, stride, r0, count, root));
      } else {
        return order::to_node<Op>(root, 0);
      }
    });
  }
  for (std::uint64_t c = 0; c < width; ++c) results[line0 + c] = order::finish<Op>(stacks.root(c), length);
}

/// Lines [first, last) whose elements are `stride` apart: line t is x[t], x[t + stride], ... (`length` elements).
/// `scratch` holds `scratch_bytes` (at least strided_scratch_bytes). Panels are as wide as reads of 32 KiB per row
/// (eight 4 KiB pages, whose page-table entries share a cache line: narrower panels cost a page walk that misses
/// the caches per row read), or as the scratch allows.
template <class Op, order::leaf_shape shape = order::shape_of<typename Op::value>>
void strided_lines(order::operands<Op> x, std::uint64_t length, std::uint64_t stride, std::uint64_t first,
                   std::uint64_t last, typename Op::result* results, void* scratch, std::uint64_t scratch_bytes) {
  using T = typename Op::value;
  constexpr std::uint64_t VL = vector_lanes<T>;
  constexpr std::uint64_t row_bytes = std::uint64_t{32} << 10;
  const std::uint64_t leaves = order::leaf_count(shape, length);
  std::uint64_t panel_blocks = 1;
  while (2 * panel_blocks * VL * sizeof(typename Op::input) <= row_bytes &&
         panel_bytes<Op, vec<T>, shape>(2 * panel_blocks, leaves) <= scratch_bytes) {
    panel_blocks *= 2;
  }
  auto* const memory = static_cast<unsigned char*>(scratch);
  std::uint64_t t = first;
  while (last - t >= VL) {
    const std::uint64_t blocks = (last - t) / VL < panel_blocks ? (last - t) / VL : panel_blocks;
    strided_panel<Op, vec<T>, shape>(x, length, stride, t, blocks, results, memory);
    t += blocks * VL;
  }
  if (t < last) strided_panel<Op, T, shape>(x, length, stride, t, last - t, results, memory);
}
