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

/// One panel of strided lines: `blocks` values of V side by side (V a register of VL lanes, or a scalar for lines
/// left over), lines [line0, line0 + blocks * lanes of V).
template <class Op, class V, order::leaf_shape shape>
void strided_panel(const order::operands<Op>& x, std::uint64_t length, std::uint64_t stride, std::uint64_t line0,
                   std::uint64_t blocks, typename Op::result* results) {
  using T = typename Op::value;
  using S = typename Op::template state_of<V>;
  using N = order::node_of<Op>;
  constexpr std::uint64_t W = shape.lanes;
  constexpr std::uint64_t L = shape.leaf_size;
  constexpr std::uint64_t per_value = sizeof(V) / sizeof(T);
  const std::uint64_t width = blocks * per_value;
  const std::uint64_t leaves = order::leaf_count(shape, length);

  // lanes[b * W + l]: lane l of the leaf for block b. nodes[c * leaves + f]: leaf f of line line0 + c.
  std::vector<S> lanes(blocks * W);
  std::vector<N> nodes(width * leaves);
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

  for (std::uint64_t f = 0; f < leaves; ++f) {
    const std::uint64_t r0 = f * L;
    const std::uint64_t count = length - r0 < L ? length - r0 : L;
    for (S& s : lanes) s = Op::template identity<V>();
    // Lane by lane, so that a lane's states stay in L1 while its rows stream in; each row of the panel is one
    // contiguous read.
    for (std::uint64_t l = 0; l < W && l < count; ++l) {
      for (std::uint64_t i = r0 + l; i < r0 + count; i += W) {
        const std::uint64_t row = i * stride + line0;
        const bool later = i != r0 + l;
        for (std::uint64_t b = 0; b < blocks; ++b)
          lanes[b * W + l] = take(lanes[b * W + l], row + b * per_value, later);
      }
    }
    for (std::uint64_t b = 0; b < blocks; ++b) {
      order::fold_lanes<Op>(&lanes[b * W], W);
      for (std::uint64_t j = 0; j < per_value; ++j) {
        typename Op::state root;
        if constexpr (per_value == 1) {
          root = lanes[b * W];
        } else {
          root = get_lane<Op, sizeof(V)>(lanes[b * W], j);
        }
        const std::uint64_t c = b * per_value + j;
        if constexpr (order::locates_element<Op>) {
          order::operands<Op> line = x.advanced(line0 + c);
          line.first = 0;
          nodes[c * leaves + f] = order::to_node<Op>(root, first_match_strided<Op>(line, stride, r0, count, root));
        } else {
          nodes[c * leaves + f] = order::to_node<Op>(root, 0);
        }
      }
    }
  }
  for (std::uint64_t c = 0; c < width; ++c) {
    order::subtree_stack<Op> tree;
    for (std::uint64_t f = 0; f < leaves; ++f) tree.push(nodes[c * leaves + f], 1);
    results[line0 + c] = Op::finalize(tree.root());
  }
}

/// Lines [first, last) whose elements are `stride` apart: line t is x[t], x[t + stride], ... (`length` elements).
template <class Op, order::leaf_shape shape = order::shape_of<typename Op::value>>
void strided_lines(order::operands<Op> x, std::uint64_t length, std::uint64_t stride, std::uint64_t first,
                   std::uint64_t last, typename Op::result* results) {
  using T = typename Op::value;
  using S = typename Op::template state_of<vec<T>>;
  constexpr std::uint64_t VL = vector_lanes<T>;
  // A panel's lane states take about 256 KiB (half of L2): wide enough that each row read is several cache lines.
  constexpr std::uint64_t budget = std::uint64_t{256} << 10;
  constexpr std::uint64_t fit = budget / (shape.lanes * sizeof(S));
  constexpr std::uint64_t panel_blocks = fit > 0 ? fit : 1;
  std::uint64_t t = first;
  while (last - t >= VL) {
    const std::uint64_t blocks = (last - t) / VL < panel_blocks ? (last - t) / VL : panel_blocks;
    strided_panel<Op, vec<T>, shape>(x, length, stride, t, blocks, results);
    t += blocks * VL;
  }
  if (t < last) strided_panel<Op, T, shape>(x, length, stride, t, last - t, results);
}
