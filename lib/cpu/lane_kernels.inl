// The CPU lanes, written once and compiled once per instruction set (kernels_baseline.cpp, kernels_avx2.cpp,
// kernels_avx512.cpp). The includer defines, before including this file inside its own namespace:
//   DETRED_VECTOR_BYTES             bytes per vector register (16, 32 or 64)
//   DETRED_TREE_REGISTERS           vector accumulators per pass in tree mode
//   DETRED_COMPENSATED_REGISTERS    (sum, correction) register pairs per pass in compensated mode
// and must have included <cstdint>, <cstring> and "detred/order.hpp" (with its own DETRED_ORDER_ABI).
//
// Lanes are GCC/Clang vector-extension values: each vector element is one lane of the canonical order, and vector
// `+`/`-` are element-wise IEEE operations, so no addition is reassociated. No horizontal instructions are used: the
// lane tree runs order::lane_tree_steps: whole registers while h >= a register's width, scalar code for the last
// few levels.

template <class T>
struct vector_of;
template <>
struct vector_of<double> {
  typedef double type __attribute__((vector_size(DETRED_VECTOR_BYTES)));
};
template <>
struct vector_of<float> {
  typedef float type __attribute__((vector_size(DETRED_VECTOR_BYTES)));
};

template <class T>
using vec = typename vector_of<T>::type;

template <class T>
inline constexpr std::uint64_t vector_lanes = DETRED_VECTOR_BYTES / sizeof(T);

template <class T>
inline vec<T> load(const T* p) {
  vec<T> v;
  std::memcpy(&v, p, sizeof v);  // an unaligned vector load: x may start anywhere
  return v;
}

template <class T>
inline void store(T* p, vec<T> v) {
  std::memcpy(p, &v, sizeof v);
}

template <class T>
inline vec<T> splat(T value) {
  vec<T> v;
  for (std::uint64_t i = 0; i < vector_lanes<T>; ++i) v[i] = value;
  return v;
}

/// Lanes handled per pass over a leaf: as many as fit the register budget, at most all W. A leaf (16 KiB) stays in L1
/// between passes, so several passes cost cache bandwidth only.
template <class T>
inline constexpr std::uint64_t lanes_per_pass(std::uint64_t registers) {
  const std::uint64_t g = registers * vector_lanes<T>;
  return g < order::lanes<T> ? g : order::lanes<T>;
}

// ---------------------------------------------------------------------------------------------------------------
// Tree mode.

/// The canonical value of one leaf: x[0..count), count <= L.
template <class T>
inline T tree_leaf(const T* x, std::uint64_t count) {
  constexpr std::uint64_t W = order::lanes<T>;
  constexpr std::uint64_t VL = vector_lanes<T>;
  constexpr std::uint64_t G = lanes_per_pass<T>(DETRED_TREE_REGISTERS);
  constexpr std::uint64_t R = G / VL;
  alignas(64) T lane[W];

  const std::uint64_t full_rows = count / W;
  for (std::uint64_t g = 0; g < W; g += G) {
    vec<T> acc[R];
#pragma GCC unroll 16
    for (std::uint64_t r = 0; r < R; ++r) acc[r] = splat(order::identity<T>());
    const T* row = x + g;
    for (std::uint64_t k = 0; k < full_rows; ++k, row += W) {
#pragma GCC unroll 16
      for (std::uint64_t r = 0; r < R; ++r) acc[r] += load(row + r * VL);
    }
#pragma GCC unroll 16
    for (std::uint64_t r = 0; r < R; ++r) store(lane + g + r * VL, acc[r]);
  }
  // A ragged last row: lanes past its end simply have one element fewer.
  const T* tail = x + full_rows * W;
  for (std::uint64_t j = 0; j < count - full_rows * W; ++j) lane[j] = order::accumulate(lane[j], tail[j]);

  order::lane_tree_steps(W, VL, [&lane](std::uint64_t j, std::uint64_t h, std::uint64_t group) {
    if (group == VL) {
      store(lane + j, load(lane + j) + load(lane + j + h));
    } else {
      lane[j] = order::combine(lane[j], lane[j + h]);
    }
  });
  return lane[0];
}

// ---------------------------------------------------------------------------------------------------------------
// Compensated mode.

/// TwoSum on whole registers, with the correction update: the order::accumulate sequence, lane by lane.
template <class T>
inline void vector_accumulate(vec<T>& s, vec<T>& c, vec<T> b) {
  const vec<T> t = s + b;
  const vec<T> bb = t - s;
  const vec<T> e = (s - (t - bb)) + (b - bb);
  s = t;
  c = c + e;
}

/// The order::combine sequence on whole registers: (s, e) = TwoSum(s1, s2); c = (c1 + c2) + e.
template <class T>
inline void vector_combine(vec<T>& s1, vec<T>& c1, vec<T> s2, vec<T> c2) {
  const vec<T> t = s1 + s2;
  const vec<T> bb = t - s1;
  const vec<T> e = (s1 - (t - bb)) + (s2 - bb);
  s1 = t;
  c1 = (c1 + c2) + e;
}

template <class T>
inline order::pair<T> compensated_leaf(const T* x, std::uint64_t count) {
  constexpr std::uint64_t W = order::lanes<T>;
  constexpr std::uint64_t VL = vector_lanes<T>;
  constexpr std::uint64_t G = lanes_per_pass<T>(DETRED_COMPENSATED_REGISTERS);
  constexpr std::uint64_t R = G / VL;
  alignas(64) T lane_sum[W];
  alignas(64) T lane_correction[W];

  const std::uint64_t full_rows = count / W;
  for (std::uint64_t g = 0; g < W; g += G) {
    vec<T> s[R];
    vec<T> c[R];
#pragma GCC unroll 16
    for (std::uint64_t r = 0; r < R; ++r) s[r] = c[r] = splat(order::identity<T>());
    const T* row = x + g;
    for (std::uint64_t k = 0; k < full_rows; ++k, row += W) {
#pragma GCC unroll 16
      for (std::uint64_t r = 0; r < R; ++r) vector_accumulate<T>(s[r], c[r], load(row + r * VL));
    }
#pragma GCC unroll 16
    for (std::uint64_t r = 0; r < R; ++r) {
      store(lane_sum + g + r * VL, s[r]);
      store(lane_correction + g + r * VL, c[r]);
    }
  }
  const T* tail = x + full_rows * W;
  for (std::uint64_t j = 0; j < count - full_rows * W; ++j) {
    const order::pair<T> p = order::accumulate(order::pair<T>{lane_sum[j], lane_correction[j]}, tail[j]);
    lane_sum[j] = p.sum;
    lane_correction[j] = p.correction;
  }

  order::lane_tree_steps(W, VL, [&](std::uint64_t j, std::uint64_t h, std::uint64_t group) {
    if (group == VL) {
      vec<T> s = load(lane_sum + j);
      vec<T> c = load(lane_correction + j);
      vector_combine<T>(s, c, load(lane_sum + j + h), load(lane_correction + j + h));
      store(lane_sum + j, s);
      store(lane_correction + j, c);
    } else {
      const order::pair<T> p = order::combine(order::pair<T>{lane_sum[j], lane_correction[j]},
                                              order::pair<T>{lane_sum[j + h], lane_correction[j + h]});
      lane_sum[j] = p.sum;
      lane_correction[j] = p.correction;
    }
  });
  return order::pair<T>{lane_sum[0], lane_correction[0]};
}

// ---------------------------------------------------------------------------------------------------------------
// Subtrees of leaves.

/// Leaves per group: aligned groups of 8 full leaves are perfect subtrees of the leaf tree, folded with a fixed
/// pattern and pushed onto the stack once. Pushing every leaf instead makes the stack's merge loop run a
/// data-dependent number of times per leaf; its branch mispredictions cost about 10 % of streaming bandwidth.
inline constexpr std::uint64_t leaves_per_group = 8;

template <class T, class V, V (*leaf)(const T*, std::uint64_t)>
V subtree(const T* x, std::uint64_t n) {
  constexpr std::uint64_t L = order::leaf_size<T>;
  constexpr std::uint64_t G = leaves_per_group;
  order::subtree_stack<V> tree;
  std::uint64_t start = 0;
  for (; n - start >= G * L; start += G * L) {
    V group[G];
#pragma GCC unroll 8
    for (std::uint64_t g = 0; g < G; ++g) group[g] = leaf(x + start + g * L, L);
#pragma GCC unroll 8
    for (std::uint64_t h = 1; h < G; h *= 2) {
#pragma GCC unroll 8
      for (std::uint64_t j = 0; j < G; j += 2 * h) group[j] = order::combine(group[j], group[j + h]);
    }
    tree.push(group[0], G);
  }
  for (; start < n; start += L) tree.push(leaf(x + start, n - start < L ? n - start : L), 1);
  return tree.root();
}

inline const kernel_table table = {
    DETRED_KERNEL_NAME,
    subtree<double, double, tree_leaf<double>>,
    subtree<double, order::pair<double>, compensated_leaf<double>>,
    subtree<float, float, tree_leaf<float>>,
    subtree<float, order::pair<float>, compensated_leaf<float>>,
};
