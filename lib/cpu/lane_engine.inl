// SPDX-License-Identifier: BSD-3-Clause
// The CPU engine: one leaf, and aligned runs of leaves, of the canonical order for any reduction operator, written
// once and compiled once per instruction set (kernels_<isa>.cpp). The includer, inside a namespace of its own and
// after defining DETRED_ORDER_ABI and including <cstdint>, <cstring>, <new>, <utility>, "detred/order.hpp",
// "cpu/prefetch.hpp" and, when it compiles for AVX2 or AVX-512, <immintrin.h> (the masked loads of load_prefix),
// defines:
//   inline constexpr std::uint64_t vector_bytes          bytes per vector register (16, 32 or 64)
//   inline constexpr std::uint64_t accumulator_vectors   vector registers a pass may keep accumulators in
//
// Lanes are GCC/Clang vector-extension values: each vector element is one lane of the canonical order, and the
// operator's accumulate and combine, applied to vector states, are element-wise IEEE operations, so nothing is
// reassociated and no horizontal instruction appears. The lane tree runs order::fold_lanes on whole registers while
// h >= a register's width, then combines the halves of the first register (fold_register).

/// A vector of `bytes` / sizeof(T) lanes.
template <class T, std::uint64_t bytes>
struct sized_vector {
  typedef T type __attribute__((vector_size(bytes)));
};

/// A full register of lanes.
template <class T>
using vec = typename sized_vector<T, vector_bytes>::type;

template <class T>
inline constexpr std::uint64_t vector_lanes = vector_bytes / sizeof(T);

/// The stored elements of one register of Op's lanes (fewer bytes than a register when they are narrower than a
/// lane, as 16-bit floats and int32 are).
template <class Op>
using raw_vec = typename sized_vector<order::raw_t<typename Op::input>,
                                      vector_lanes<typename Op::value> * sizeof(typename Op::input)>::type;

template <class Op>
inline raw_vec<Op> load(const typename Op::input* p) {
  raw_vec<Op> v;
  std::memcpy(&v, p, sizeof v);  // an unaligned vector load: x may start anywhere
  return v;
}

/// A register of lane states takes the elements at `offset` of each operand; `later`: the lanes already hold an
/// element (order::accumulate_later).
template <class Op, bool later, class VS>
inline VS accumulate_row(VS acc, const order::operands<Op>& x, std::uint64_t offset) {
  if constexpr (Op::arity == 1) {
    const auto a = load<Op>(x.data[0] + offset);
    return later ? order::accumulate_later<Op>(acc, a) : Op::accumulate(acc, a);
  } else {
    const auto a = load<Op>(x.data[0] + offset);
    const auto b = load<Op>(x.data[1] + offset);
    return later ? order::accumulate_later<Op>(acc, a, b) : Op::accumulate(acc, a, b);
  }
}

/// Asks for the `bytes` bytes of each operand at element `offset` into the cache, ahead of the loads that read them
/// (cpu::prefetch_bytes: a hint that never faults, so it may point past the array's end), a line every `step` bytes.
template <class Op, ::detred::cpu::cache_level level = ::detred::cpu::cache_level::first>
inline void prefetch(const order::operands<Op>& x, std::uint64_t offset, std::uint64_t bytes, std::uint64_t step = 64) {
  for (unsigned a = 0; a < Op::arity; ++a) {
    ::detred::cpu::prefetch_bytes<level>(
        reinterpret_cast<std::uintptr_t>(x.data[a]) + offset * sizeof(typename Op::input), bytes, step);
  }
}

/// Vector accumulators per pass over a leaf: as many states as the register budget holds (rounded down to a power
/// of two, so that passes tile the row), at most a whole row of W lanes. A leaf (16 KiB) stays in L1 between passes,
/// so several passes cost cache bandwidth only.
template <class Op, std::uint64_t W>
inline constexpr std::uint64_t registers_per_pass = [] {
  using T = typename Op::value;
  constexpr std::uint64_t per_state = sizeof(typename Op::state) / sizeof(T);
  std::uint64_t r = 1;
  while (2 * r * per_state <= accumulator_vectors && 2 * r <= W / vector_lanes<T>) r *= 2;
  return r;
}();

// States are aggregates of values of one lane type (order/ops.hpp): a vector state is `members` vectors, so member m
// of lane j sits at byte m * sizeof(vector) + j * sizeof(T). The helpers below move lanes by that layout.

/// Op's state over vectors of `bytes`.
template <class Op, std::uint64_t bytes>
using vector_state = typename Op::template state_of<typename sized_vector<typename Op::value, bytes>::type>;

template <class Op, std::uint64_t bytes>
inline constexpr std::uint64_t members = sizeof(vector_state<Op, bytes>) / bytes;

/// Lane j of a vector state as a scalar state, and back.
template <class Op, std::uint64_t bytes>
inline typename Op::state get_lane(const vector_state<Op, bytes>& v, std::uint64_t j) {
  using T = typename Op::value;
  static_assert(sizeof(typename Op::state) == members<Op, bytes> * sizeof(T));
  typename Op::state s;
  for (std::uint64_t m = 0; m < members<Op, bytes>; ++m) {
    std::memcpy(reinterpret_cast<char*>(&s) + m * sizeof(T),
                reinterpret_cast<const char*>(&v) + m * bytes + j * sizeof(T), sizeof(T));
  }
  return s;
}
template <class Op, std::uint64_t bytes>
inline void set_lane(vector_state<Op, bytes>& v, std::uint64_t j, const typename Op::state& s) {
  using T = typename Op::value;
  for (std::uint64_t m = 0; m < members<Op, bytes>; ++m) {
    std::memcpy(reinterpret_cast<char*>(&v) + m * bytes + j * sizeof(T),
                reinterpret_cast<const char*>(&s) + m * sizeof(T), sizeof(T));
  }
}

/// Copies the first `bytes` (even, and less than `capacity`, the size of dst) of src to dst as fixed-size pieces of
/// 32, 16, 8, 4 and 2 bytes: a variable-length memcpy becomes `rep movs` here, whose start-up cost dominated segments
/// shorter than a row. Only pieces smaller than dst are emitted.
template <std::uint64_t capacity>
inline void copy_prefix(void* dst, const void* src, std::uint64_t bytes) {
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  std::uint64_t at = 0;
  const auto piece = [&](auto size) {
    constexpr std::uint64_t n = decltype(size)::value;
    if constexpr (n < capacity) {
      if (bytes & n) {
        std::memcpy(d + at, s + at, n);
        at += n;
      }
    }
  };
  piece(std::integral_constant<std::uint64_t, 32>{});
  piece(std::integral_constant<std::uint64_t, 16>{});
  piece(std::integral_constant<std::uint64_t, 8>{});
  piece(std::integral_constant<std::uint64_t, 4>{});
  piece(std::integral_constant<std::uint64_t, 2>{});
}

/// The first `count` (fewer than a register's) elements at p, the other lanes zero, without reading past them: one
/// masked load where the instruction set has it for the element size (AVX-512: 4 and 8 bytes; AVX2: the same, by
/// vpmaskmov, which does not fault on lanes it leaves out), else copy_prefix into a zeroed register. The copy cost a
/// call, pieces stored to the stack and a wide load waiting on them: most of a line shorter than a row of a ragged
/// batch (2^14 lines of 0-127 floats in cache: COPY_MEASURED).
template <class Op>
inline raw_vec<Op> load_prefix(const typename Op::input* p, std::uint64_t count) {
  constexpr std::uint64_t bytes = sizeof(raw_vec<Op>);
  constexpr std::uint64_t size = sizeof(typename Op::input);
  raw_vec<Op> v{};
#if defined(__AVX512F__)
  if constexpr (bytes == 64 && size == 4) {
    const __m512i m = _mm512_maskz_loadu_epi32(static_cast<__mmask16>((1u << count) - 1), p);
    std::memcpy(&v, &m, bytes);
    return v;
  } else if constexpr (bytes == 64 && size == 8) {
    const __m512i m = _mm512_maskz_loadu_epi64(static_cast<__mmask8>((1u << count) - 1), p);
    std::memcpy(&v, &m, bytes);
    return v;
  }
#endif
#if defined(__AVX2__)
  if constexpr (bytes == 32 && (size == 4 || size == 8)) {
    // Lane j is read when its mask element's sign bit is set: j < count.
    const __m256i lane = size == 4 ? _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7) : _mm256_setr_epi64x(0, 1, 2, 3);
    const __m256i limit =
        size == 4 ? _mm256_set1_epi32(static_cast<int>(count)) : _mm256_set1_epi64x(static_cast<long long>(count));
    const __m256i mask = size == 4 ? _mm256_cmpgt_epi32(limit, lane) : _mm256_cmpgt_epi64(limit, lane);
    const __m256i m = size == 4 ? _mm256_maskload_epi32(reinterpret_cast<const int*>(p), mask)
                                : _mm256_maskload_epi64(reinterpret_cast<const long long*>(p), mask);
    std::memcpy(&v, &m, bytes);
    return v;
  }
#endif
  copy_prefix<bytes>(&v, p, count * size);
  return v;
}

/// Lanes [0, count) of a register of lane states take the elements at `offset` of each operand; the other lanes
/// keep their states. The elements are copied to a buffer first, so nothing past the array is read. The lanes
/// may be empty (a segment shorter than a row), so this is accumulate, not accumulate_later.
template <class Op, class VS>
inline VS accumulate_partial_row(const VS& acc, const order::operands<Op>& x, std::uint64_t offset,
                                 std::uint64_t count) {
  using T = typename Op::value;
  using V = vec<T>;
  raw_vec<Op> loaded[Op::arity];
  for (unsigned a = 0; a < Op::arity; ++a) {
    loaded[a] = count == vector_lanes<T> ? load<Op>(x.data[a] + offset) : load_prefix<Op>(x.data[a] + offset, count);
  }

  VS taken;
  if constexpr (Op::arity == 1) {
    taken = Op::accumulate(acc, loaded[0]);
  } else {
    taken = Op::accumulate(acc, loaded[0], loaded[1]);
  }
  using M = order::rebind_t<order::signed_bits_t<T>, V>;
  M lane;
  for (std::uint64_t j = 0; j < vector_lanes<T>; ++j) lane[j] = static_cast<order::signed_bits_t<T>>(j);
  const M in_row = lane < static_cast<order::signed_bits_t<T>>(count);
  constexpr std::uint64_t m = sizeof(VS) / sizeof(V);
  static_assert(sizeof(VS) == m * sizeof(V), "a lane state is whole registers");
  V before[m];
  V after[m];
  std::memcpy(before, &acc, sizeof acc);
  std::memcpy(after, &taken, sizeof taken);
  for (std::uint64_t k = 0; k < m; ++k) after[k] = in_row ? after[k] : before[k];
  VS r;
  std::memcpy(&r, after, sizeof r);
  return r;
}

/// The low and the high half of a register's lanes.
template <class H, class V, std::size_t... I>
inline H lower_half(const V& v, std::index_sequence<I...>) {
  return __builtin_shufflevector(v, v, I...);
}
template <class H, class V, std::size_t... I>
inline H upper_half(const V& v, std::index_sequence<I...>) {
  return __builtin_shufflevector(v, v, (I + sizeof...(I))...);
}

/// The last levels of the halving lane tree, inside one register of lanes: at each level the low half of the
/// register holds lanes j < h and the high half lanes j + h, so combining the halves as vectors is the level.
/// Ends with the scalar state of lane 0.
template <class Op, std::uint64_t bytes>
inline typename Op::state fold_register(const vector_state<Op, bytes>& v) {
  using T = typename Op::value;
  if constexpr (bytes == 2 * sizeof(T)) {
    return Op::combine(get_lane<Op, bytes>(v, 0), get_lane<Op, bytes>(v, 1));
  } else {
    // The halves by shuffles of whole registers (copying bytes through memory stalls on store forwarding, a tenth
    // of the time of a segment shorter than a row).
    constexpr std::uint64_t half = bytes / 2;
    constexpr std::uint64_t m = members<Op, bytes>;
    using V = typename sized_vector<T, bytes>::type;
    using H = typename sized_vector<T, half>::type;
    constexpr auto lanes = std::make_index_sequence<half / sizeof(T)>{};
    V whole[m];
    std::memcpy(whole, &v, sizeof v);
    H low[m];
    H high[m];
    for (std::uint64_t k = 0; k < m; ++k) {
      low[k] = lower_half<H>(whole[k], lanes);
      high[k] = upper_half<H>(whole[k], lanes);
    }
    vector_state<Op, half> a;
    vector_state<Op, half> b;
    std::memcpy(&a, low, sizeof a);
    std::memcpy(&b, high, sizeof b);
    return fold_register<Op, half>(Op::combine(a, b));
  }
}

/// True if any lane of a comparison mask is set.
template <class M>
inline bool any_lane(const M& mask) {
  std::uint64_t words[sizeof(M) / 8];
  std::memcpy(words, &mask, sizeof mask);
  std::uint64_t any = 0;
  for (std::uint64_t w : words) any |= w;
  return any != 0;
}

/// order::first_match on registers: a register whose lanes cannot match (no lane equal to the root's value, none
/// NaN) is skipped whole; within a register that may, Op::matches decides lane by lane, in index order. Same result
/// as the scalar search (the reference's), a register at a time.
template <class Op>
inline std::uint64_t first_match_in_leaf(const order::operands<Op>& x, std::uint64_t count,
                                         const typename Op::state& root) {
  using T = typename Op::value;
  static_assert(std::is_same_v<T, typename Op::input>, "locating operators read their lane type");
  constexpr std::uint64_t VL = vector_lanes<T>;
  const vec<T> target = order::splat<vec<T>>(root);
  std::uint64_t i = 0;
  for (; i + VL <= count; i += VL) {
    const vec<T> v = load<Op>(x.data[0] + i);
    if (any_lane((v == target) | (v != v))) {
      for (std::uint64_t j = 0; j < VL; ++j) {
        if (Op::matches(root, v[j])) return x.first + i + j;
      }
    }
  }
  return order::first_match<Op>(x.advanced(i), count - i, root);
}

/// order::fold_live_lanes over registers of which the first `live` hold elements, from level h down, unrolled when
/// compiling: level h joins regs[j] and regs[j + h] for j + h < live (never more than h pairs, as live <= 2 h).
template <class Op, std::uint64_t h, std::uint64_t live, class VS>
inline void fold_live_registers(VS* regs) {
  if constexpr (h >= 1) {
    [&]<std::size_t... j>(std::index_sequence<j...>) { ((regs[j] = Op::combine(regs[j], regs[j + h])), ...); }
    (std::make_index_sequence<(live > h ? live - h : 0)>{});
    fold_live_registers<Op, h / 2, (live > h ? h : live)>(regs);
  }
}

/// short_leaf with the number of registers that hold elements known when compiling (live: whole registers R, and
/// one more when the row is ragged): the registers stay registers, the joins of fold_live_lanes unroll, and nothing
/// goes through the stack. With a runtime count the register array lived in memory, and each line of a batch of
/// short lines waited on store forwarding (about 8 ns a line of 64 floats in cache, against 4.6 for a plain loop).
template <class Op, order::leaf_shape shape, std::uint64_t live>
inline order::node_of<Op> short_leaf_of(const order::operands<Op>& x, std::uint64_t count) {
  using T = typename Op::value;
  using VS = typename Op::template state_of<vec<T>>;
  constexpr std::uint64_t VL = vector_lanes<T>;
  constexpr std::uint64_t registers = shape.lanes / VL;
  static_assert(live >= 1 && live <= registers);
  VS regs[live];
#pragma GCC unroll 64
  for (std::uint64_t v = 0; v + 1 < live; ++v) {
    regs[v] = accumulate_row<Op, false>(Op::template identity<vec<T>>(), x, v * VL);
  }
  constexpr std::uint64_t last = (live - 1) * VL;
  regs[live - 1] = count == live * VL
                       ? accumulate_row<Op, false>(Op::template identity<vec<T>>(), x, last)
                       : accumulate_partial_row<Op>(Op::template identity<vec<T>>(), x, last, count - last);
  fold_live_registers<Op, registers / 2, live>(regs);
  return order::leaf_node<Op>(fold_register<Op, vector_bytes>(regs[0]), x, count);
}

/// short_leaf_of for the live register count of `count` (a chain of comparisons the compiler inlines, where a table
/// of pointers would be an indirect call per line).
template <class Op, order::leaf_shape shape, std::size_t... live>
inline order::node_of<Op> short_leaf_dispatch(const order::operands<Op>& x, std::uint64_t count,
                                              std::index_sequence<live...>) {
  constexpr std::uint64_t VL = vector_lanes<typename Op::value>;
  const std::uint64_t used = count == 0 ? 1 : (count + VL - 1) / VL;
  order::node_of<Op> node{};
  static_cast<void>(((used == live + 1 ? (node = short_leaf_of<Op, shape, live + 1>(x, count), true) : false) || ...));
  return node;
}

/// The node of a leaf of at most one row (count <= W: a short segment of a batch, or a short array), for an
/// operator whose identity is neutral: only the registers that hold elements are filled, and the lane tree joins only
/// those (order::fold_live_lanes over whole registers; a join with a register of identity lanes would leave the left
/// one as it is). Same node as the general path, with none of its work on the empty lanes.
template <class Op, order::leaf_shape shape>
inline order::node_of<Op> short_leaf(const order::operands<Op>& x, std::uint64_t count) {
  using T = typename Op::value;
  constexpr std::uint64_t registers = shape.lanes / vector_lanes<T>;
  return short_leaf_dispatch<Op, shape>(x, count, std::make_index_sequence<registers>{});
}

/// The node of one leaf x[0..count), count <= L, of the leaf shape `shape` (the canonical one in the library).
/// streaming: the leaf is part of a call of at least streaming_bytes (kernel_table.hpp: the prefetches it makes).
template <class Op, order::leaf_shape shape = order::shape_of<typename Op::value>>
inline order::node_of<Op> leaf(const order::operands<Op>& x, std::uint64_t count, bool streaming = false) {
  using T = typename Op::value;
  using VS = typename Op::template state_of<vec<T>>;
  constexpr std::uint64_t W = shape.lanes;
  constexpr std::uint64_t VL = vector_lanes<T>;
  constexpr std::uint64_t R = registers_per_pass<Op, W>;
  static_assert(W % (R * VL) == 0);
  if constexpr (order::neutral_identity<Op> && !order::locates_element<Op>) {
    if (count <= W) return short_leaf<Op, shape>(x, count);
  }

  VS regs[W / VL];
  const std::uint64_t full_rows = count / W;
  for (std::uint64_t g = 0; g < W / VL; g += R) {
    VS acc[R];
#pragma GCC unroll 16
    for (std::uint64_t r = 0; r < R; ++r) acc[r] = Op::template identity<vec<T>>();
    std::uint64_t row = g * VL;
    // Several passes read a leaf as columns of R registers, a pattern the hardware prefetchers follow badly (stats
    // ran at half the memory bandwidth). So the passes also ask for the next leaf in order, R registers of it per
    // row: over all passes, the whole of it. A single pass of a state wider than one value a lane (compensated
    // mode's pair) asks too: its longer work per row leaves fewer loads in flight than the memory needs (2^27
    // doubles, 2 threads, AVX-512: 7.1-7.3 -> 8.4-9.4 Gelem/s; tree mode's one value a lane gained nothing). So do
    // the selections (min, max, argmin, argmax), whose lanes' key arithmetic takes four instructions a vector: on
    // an Intel Xeon host (2 threads, 2^27 doubles) min and max went from 0.72-0.79x to 0.94-1.02x the fast-math
    // OpenMP loop, on an AMD EPYC host from 0.87-0.92x to 0.99-1.00x; tree sums asking too gained nothing there.
    // Streaming calls also ask for the leaf three ahead into the second-level cache: on an Intel Xeon host (Emerald
    // Rapids, 2 threads, 2^27 elements) compensated sums went from 0.77-0.83x to 0.94-0.98x the fastest loop, stats
    // from 0.85 to 0.94-1.03x and min/max from 0.90-0.95 to 1.00-1.13x the fast-math OpenMP loops (a farther
    // first-level prefetch alone, two or four leaves ahead, lost; tree sums asking for both ran in-cache sizes at half
    // speed).
    constexpr bool selects = requires { typename Op::rules; };
    constexpr bool ask_for_next_leaf = W / VL > R || sizeof(typename Op::state) > sizeof(T) || selects;
    constexpr std::uint64_t second_level_leaves = 3;
    const auto prefetch_ahead = [&](std::uint64_t k) {
      const std::uint64_t at = ((g / R) * full_rows + k) * R * VL;
      constexpr std::uint64_t bytes = R * VL * sizeof(typename Op::input);
      prefetch(x, shape.leaf_size + at, bytes);
      if (streaming) {
        prefetch<Op, ::detred::cpu::cache_level::second>(x, second_level_leaves * shape.leaf_size + at, bytes);
      }
    };
    if (full_rows > 0) {
      if constexpr (ask_for_next_leaf) prefetch_ahead(0);
#pragma GCC unroll 16
      for (std::uint64_t r = 0; r < R; ++r) acc[r] = accumulate_row<Op, false>(acc[r], x, row + r * VL);
      row += W;
    }
    for (std::uint64_t k = 1; k < full_rows; ++k, row += W) {
      if constexpr (ask_for_next_leaf) prefetch_ahead(k);
#pragma GCC unroll 16
      for (std::uint64_t r = 0; r < R; ++r) acc[r] = accumulate_row<Op, true>(acc[r], x, row + r * VL);
    }
#pragma GCC unroll 16
    for (std::uint64_t r = 0; r < R; ++r) regs[g + r] = acc[r];
  }
  // A ragged last row (the last leaf only): lanes past its end have one element fewer.
  const std::uint64_t tail = count - full_rows * W;
  for (std::uint64_t v = 0; v * VL < tail; ++v) {
    regs[v] = accumulate_partial_row<Op>(regs[v], x, full_rows * W + v * VL, tail - v * VL < VL ? tail - v * VL : VL);
  }
  // The lane tree: whole registers while h >= VL, then the halves of the first register.
  order::fold_lanes<Op>(regs, W, VL);
  const typename Op::state root = fold_register<Op, vector_bytes>(regs[0]);
  if constexpr (order::locates_element<Op>) {
    return order::to_node<Op>(root, first_match_in_leaf<Op>(x, count, root));
  } else {
    return order::leaf_node<Op>(root, x, count);
  }
}

/// Leaves per group: aligned groups of 8 full leaves are perfect subtrees of the leaf tree, folded pairwise and
/// pushed onto the stack once. Pushing every leaf instead makes the stack's merge loop run a data-dependent number
/// of times per leaf; its branch mispredictions cost about 10 % of streaming bandwidth.
inline constexpr unsigned leaves_per_group = 8;

/// The root of the left-perfect leaf tree over x[0..n): x starts on a leaf boundary of the whole array; n may end
/// mid-leaf.
template <class Op, order::leaf_shape shape = order::shape_of<typename Op::value>>
order::node_of<Op> subtree(order::operands<Op> x, std::uint64_t n, bool streaming) {
  using N = order::node_of<Op>;
  constexpr std::uint64_t L = shape.leaf_size;
  constexpr unsigned G = leaves_per_group;
  order::subtree_stack<Op> tree;
  std::uint64_t start = 0;
  for (; n - start >= G * L; start += G * L) {
    N group[G];
#pragma GCC unroll 8
    for (unsigned g = 0; g < G; ++g) group[g] = leaf<Op, shape>(x.advanced(start + g * L), L, streaming);
    tree.push(order::fold_pairwise<Op>(group, G), G);
  }
  for (; start < n; start += L) {
    tree.push(leaf<Op, shape>(x.advanced(start), n - start < L ? n - start : L, streaming), 1);
  }
  return tree.root();
}

#include "batch_engine.inl"

/// The batch kernels, for the operators of the batched entry points only (each costs build time).
template <class Op>
constexpr void set_batch_kernels(kernel_entry<Op>& e) {
  if constexpr (listed<Op, batch_operators>) {
    e.lines = &lines<Op>;
    e.strided_lines = &strided_lines<Op>;
  }
}

/// This instruction set's kernel table: the kernels of every operator of the CPU backend.
template <class... Ops>
constexpr kernel_table_of<Ops...> make_table(const char* name, op_list<Ops...>) {
  kernel_table_of<Ops...> t{};
  t.name = name;
  ((static_cast<kernel_entry<Ops>&>(t).subtree = &subtree<Ops>), ...);
  (set_batch_kernels<Ops>(static_cast<kernel_entry<Ops>&>(t)), ...);
  return t;
}
