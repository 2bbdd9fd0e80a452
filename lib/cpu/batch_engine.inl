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
/// reduces with every thread.
template <class Op, order::leaf_shape shape = order::shape_of<typename Op::value>>
void lines(order::operands<Op> x, const line_set& set, std::uint64_t first, std::uint64_t last, std::uint64_t longest,
           typename Op::result* results) {
  constexpr std::uint64_t L = shape.leaf_size;
  for (std::uint64_t k = first; k < last; ++k) {
    const std::uint64_t n = set.size(k);
    if (n > longest) continue;
    order::operands<Op> line = x.advanced(set.start(k));
    line.first = 0;  // argmin and argmax count from the line's first element
    const order::node_of<Op> root =
        n == 0 ? order::empty_node<Op>() : (n <= L ? leaf<Op, shape>(line, n) : subtree<Op, shape>(line, n));
    results[k] = Op::finalize(root);
  }
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

/// Aligns p up to `a` bytes.
inline unsigned char* align_up(unsigned char* p, std::uint64_t a) {
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  return p + ((a - at % a) % a);
}

/// Bytes of scratch a panel of `blocks` values of V needs: its lane states, a lane tree, a leaf-tree stack per line,
/// each 64-byte aligned.
template <class Op, class V, order::leaf_shape shape>
constexpr std::uint64_t panel_bytes(std::uint64_t blocks) {
  using S = typename Op::template state_of<V>;
  constexpr std::uint64_t per_value = sizeof(V) / sizeof(typename Op::value);
  return (blocks + 1) * shape.lanes * sizeof(S) + blocks * per_value * sizeof(order::subtree_stack<Op>) + 3 * 64;
}

/// One panel of strided lines: `blocks` values of V side by side (V a register of VL lanes, or a scalar for lines
/// left over), lines [line0, line0 + blocks * lanes of V). `scratch` holds panel_bytes(blocks). (The kernels allocate
/// nothing: a standard container instantiated here would be a weak symbol shared with the other instruction sets'
/// objects, and the linker may keep any one of them.)
template <class Op, class V, order::leaf_shape shape>
void strided_panel(const order::operands<Op>& x, std::uint64_t length, std::uint64_t stride, std::uint64_t line0,
                   std::uint64_t blocks, typename Op::result* results, unsigned char* scratch) {
  using T = typename Op::value;
  using S = typename Op::template state_of<V>;
  constexpr std::uint64_t W = shape.lanes;
  constexpr std::uint64_t L = shape.leaf_size;
  constexpr std::uint64_t per_value = sizeof(V) / sizeof(T);
  const std::uint64_t width = blocks * per_value;
  const std::uint64_t leaves = order::leaf_count(shape, length);

  // lanes[l * blocks + b]: lane l of the leaf for block b, the blocks of one lane side by side (a lane's states for
  // the whole panel are one contiguous run, which a row's loads walk in order; all lanes stay in L2); tree: one
  // block's lanes for the lane tree; stacks[c]: the leaf tree of line line0 + c.
  auto* const lanes = reinterpret_cast<S*>(align_up(scratch, 64));
  auto* const tree = reinterpret_cast<S*>(align_up(reinterpret_cast<unsigned char*>(lanes + blocks * W), 64));
  auto* const stacks =
      reinterpret_cast<order::subtree_stack<Op>*>(align_up(reinterpret_cast<unsigned char*>(tree + W), 64));
  for (std::uint64_t c = 0; c < width; ++c) new (&stacks[c]) order::subtree_stack<Op>();
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
          typename Op::state root;
          if constexpr (per_value == 1) {
            root = tree[0];
          } else {
            root = get_lane<Op, sizeof(V)>(tree[0], j);
          }
          results[line0 + b * per_value + j] = Op::finalize(order::to_node<Op>(root, 0));
        }
      }
      return;
    }
  }
  for (std::uint64_t f = 0; f < leaves; ++f) {
    const std::uint64_t r0 = f * L;
    const std::uint64_t count = length - r0 < L ? length - r0 : L;
    for (std::uint64_t i = 0; i < blocks * W; ++i) lanes[i] = Op::template identity<V>();
    // Row by row: row i of the leaf goes to lane (i - r0) % W. Rows are a leading dimension apart, a stride the
    // hardware prefetchers lose across pages, so the panel's part of a row a few rows ahead is asked for here.
    constexpr std::uint64_t ahead = 8;
    for (std::uint64_t i = r0; i < r0 + count; ++i) {
      S* const lane = &lanes[((i - r0) % W) * blocks];
      const std::uint64_t row = i * stride + line0;
      if (i + ahead < length) prefetch(x, (i + ahead) * stride + line0, width * sizeof(typename Op::input));
      const bool later = i - r0 >= W;
      for (std::uint64_t b = 0; b < blocks; ++b) lane[b] = take(lane[b], row + b * per_value, later);
    }
    for (std::uint64_t b = 0; b < blocks; ++b) {
      for (std::uint64_t l = 0; l < W; ++l) tree[l] = lanes[l * blocks + b];
      order::fold_lanes<Op>(tree, W);
      for (std::uint64_t j = 0; j < per_value; ++j) {
        typename Op::state root;
        if constexpr (per_value == 1) {
          root = tree[0];
        } else {
          root = get_lane<Op, sizeof(V)>(tree[0], j);
        }
        const std::uint64_t c = b * per_value + j;
        if constexpr (order::locates_element<Op>) {
          order::operands<Op> line = x.advanced(line0 + c);
          line.first = 0;
          stacks[c].push(order::to_node<Op>(root, first_match_strided<Op>(line, stride, r0, count, root)), 1);
        } else {
          stacks[c].push(order::to_node<Op>(root, 0), 1);
        }
      }
    }
  }
  for (std::uint64_t c = 0; c < width; ++c) results[line0 + c] = Op::finalize(stacks[c].root());
}

/// Lines [first, last) whose elements are `stride` apart: line t is x[t], x[t + stride], ... (`length` elements).
/// `scratch` holds `scratch_bytes` (at least strided_scratch_bytes): panels as wide as it allows, up to about
/// 512 KiB of lane states (half of L2), so that each row read is a whole page of a float matrix (fewer TLB misses).
template <class Op, order::leaf_shape shape = order::shape_of<typename Op::value>>
void strided_lines(order::operands<Op> x, std::uint64_t length, std::uint64_t stride, std::uint64_t first,
                   std::uint64_t last, typename Op::result* results, void* scratch, std::uint64_t scratch_bytes) {
  using T = typename Op::value;
  using S = typename Op::template state_of<vec<T>>;
  constexpr std::uint64_t VL = vector_lanes<T>;
  constexpr std::uint64_t budget = std::uint64_t{512} << 10;
  std::uint64_t panel_blocks = 1;
  while (2 * panel_blocks * shape.lanes * sizeof(S) <= budget &&
         panel_bytes<Op, vec<T>, shape>(2 * panel_blocks) <= scratch_bytes) {
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
