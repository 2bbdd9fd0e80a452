// The CPU engine: one leaf, and aligned runs of leaves, of the canonical order for any reduction operator, written
// once and compiled once per instruction set (kernels_<isa>.cpp). The includer, inside a namespace of its own and
// after defining DETRED_ORDER_ABI and including <cstdint>, <cstring> and "detred/order.hpp", defines:
//   inline constexpr std::uint64_t vector_bytes          bytes per vector register (16, 32 or 64)
//   inline constexpr std::uint64_t accumulator_vectors   vector registers a pass may keep accumulators in
//
// Lanes are GCC/Clang vector-extension values: each vector element is one lane of the canonical order, and the
// operator's accumulate and combine, applied to vector states, are element-wise IEEE operations, so nothing is
// reassociated and no horizontal instruction appears. The lane tree runs order::fold_lanes on whole registers while
// h >= a register's width, then on the first register's lanes as scalars.

template <class T>
struct vector_of;
template <>
struct vector_of<double> {
  typedef double type __attribute__((vector_size(vector_bytes)));
};
template <>
struct vector_of<float> {
  typedef float type __attribute__((vector_size(vector_bytes)));
};

template <class T>
using vec = typename vector_of<T>::type;

template <class T>
inline constexpr std::uint64_t vector_lanes = vector_bytes / sizeof(T);

template <class T>
inline vec<T> load(const T* p) {
  vec<T> v;
  std::memcpy(&v, p, sizeof v);  // an unaligned vector load: x may start anywhere
  return v;
}

/// Vector accumulators per pass over a leaf: as many states as the register budget holds, at most a whole row of
/// W lanes. A leaf (16 KiB) stays in L1 between passes, so several passes cost cache bandwidth only.
template <class Op, std::uint64_t W>
inline constexpr std::uint64_t registers_per_pass = [] {
  using T = typename Op::input;
  constexpr std::uint64_t per_state = sizeof(typename Op::state) / sizeof(T);
  constexpr std::uint64_t budget = accumulator_vectors / per_state > 0 ? accumulator_vectors / per_state : 1;
  return budget < W / vector_lanes<T> ? budget : W / vector_lanes<T>;
}();

/// Lane j of a vector state as a scalar state. States are aggregates of values of one lane type (order/ops.hpp),
/// so member m of lane j sits at byte m * sizeof(vec<T>) + j * sizeof(T).
template <class Op>
inline typename Op::state lane_of(const typename Op::template state_of<vec<typename Op::input>>& v, std::uint64_t j) {
  using T = typename Op::input;
  using S = typename Op::state;
  constexpr std::uint64_t members = sizeof(S) / sizeof(T);
  static_assert(sizeof(S) == members * sizeof(T) && sizeof(v) == members * sizeof(vec<T>));
  S s;
  for (std::uint64_t m = 0; m < members; ++m) {
    std::memcpy(reinterpret_cast<char*>(&s) + m * sizeof(T),
                reinterpret_cast<const char*>(&v) + m * sizeof(vec<T>) + j * sizeof(T), sizeof(T));
  }
  return s;
}

/// The state of one leaf x[0..count), count <= L, of the leaf shape `shape` (the canonical one in the library).
template <class Op, order::leaf_shape shape = order::shape_of<typename Op::input>>
inline typename Op::state leaf(const typename Op::input* x, std::uint64_t count) {
  using T = typename Op::input;
  using S = typename Op::state;
  using VS = typename Op::template state_of<vec<T>>;
  constexpr std::uint64_t W = shape.lanes;
  constexpr std::uint64_t VL = vector_lanes<T>;
  constexpr std::uint64_t R = registers_per_pass<Op, W>;
  static_assert(W % (R * VL) == 0);

  VS regs[W / VL];
  const std::uint64_t full_rows = count / W;
  for (std::uint64_t g = 0; g < W / VL; g += R) {
    VS acc[R];
#pragma GCC unroll 16
    for (std::uint64_t r = 0; r < R; ++r) acc[r] = Op::template identity<vec<T>>();
    const T* row = x + g * VL;
    for (std::uint64_t k = 0; k < full_rows; ++k, row += W) {
#pragma GCC unroll 16
      for (std::uint64_t r = 0; r < R; ++r) acc[r] = Op::accumulate(acc[r], load(row + r * VL));
#ifdef DETRED_PREFETCH_BYTES
#pragma GCC unroll 16
      for (std::uint64_t r = 0; r < R * VL * sizeof(T); r += 64) {
        __builtin_prefetch(reinterpret_cast<const char*>(row) + DETRED_PREFETCH_BYTES + r);
      }
#endif
    }
#pragma GCC unroll 16
    for (std::uint64_t r = 0; r < R; ++r) regs[g + r] = acc[r];
  }

  const std::uint64_t tail = count - full_rows * W;
  if (tail == 0) {
    order::fold_lanes<Op>(regs, W, VL);
    S first[VL];
#pragma GCC unroll 16
    for (std::uint64_t j = 0; j < VL; ++j) first[j] = lane_of<Op>(regs[0], j);
    order::fold_lanes<Op>(first, VL);
    return first[0];
  }
  // A ragged last row (the last leaf only): lanes past its end have one element fewer. Scalar from here.
  S lane[W];
  for (std::uint64_t j = 0; j < W; ++j) lane[j] = lane_of<Op>(regs[j / VL], j % VL);
  for (std::uint64_t j = 0; j < tail; ++j) lane[j] = Op::accumulate(lane[j], x[full_rows * W + j]);
  order::fold_lanes<Op>(lane, W);
  return lane[0];
}

/// Leaves per group: aligned groups of 8 full leaves are perfect subtrees of the leaf tree, folded pairwise and
/// pushed onto the stack once. Pushing every leaf instead makes the stack's merge loop run a data-dependent number
/// of times per leaf; its branch mispredictions cost about 10 % of streaming bandwidth.
inline constexpr unsigned leaves_per_group = 8;

/// The root of the left-perfect leaf tree over x[0..n): x starts on a leaf boundary of the whole array; n may end
/// mid-leaf.
template <class Op, order::leaf_shape shape = order::shape_of<typename Op::input>>
typename Op::state subtree(const typename Op::input* x, std::uint64_t n) {
  using S = typename Op::state;
  constexpr std::uint64_t L = shape.leaf_size;
  constexpr unsigned G = leaves_per_group;
  order::subtree_stack<Op> tree;
  std::uint64_t start = 0;
  for (; n - start >= G * L; start += G * L) {
    S group[G];
#pragma GCC unroll 8
    for (unsigned g = 0; g < G; ++g) group[g] = leaf<Op, shape>(x + start + g * L, L);
    tree.push(order::fold_pairwise<Op>(group, G), G);
  }
  for (; start < n; start += L) tree.push(leaf<Op, shape>(x + start, n - start < L ? n - start : L), 1);
  return tree.root();
}

/// This instruction set's kernel table: subtree<Op> for every operator of the CPU backend.
template <class... Ops>
constexpr kernel_table_of<Ops...> make_table(const char* name, op_list<Ops...>) {
  kernel_table_of<Ops...> t{};
  t.name = name;
  ((static_cast<kernel_entry<Ops>&>(t).subtree = &subtree<Ops>), ...);
  return t;
}
