// SPDX-License-Identifier: BSD-3-Clause
// The scan kernels: one leaf of the canonical scan order (detred/order/scan.hpp) on SIMD registers, compiled once
// per instruction set. Included by kernels_<isa>.cpp after lane_engine.inl, inside the same namespace (it uses vec,
// raw_vec, load, get_lane and set_lane from there).
//
// A register holds vl = vector_lanes<T> of the order's lanes. Lane j owns the R contiguous positions
// [j R, (j + 1) R) of a leaf, so the vl lanes of a register own a contiguous block of vl x R elements: the block
// is read as vl x vl tiles (row k of a tile is lane k's next vl elements), each tile transposed in registers
// (column c becomes one register: position c of each lane), and then every lane steps through its positions with
// the operator's own element-wise add. The outputs are transposed back and stored. Nothing is reassociated: each
// register lane runs exactly the additions of order::leaf_lane_offsets and order::leaf_outputs for its lane, which
// the ragged last leaf of an array (count < L) calls directly.

/// The low and high halves of the pairs of h-blocks of two registers: off-diagonal blocks swapped (one stage of the
/// block transpose).
template <std::uint64_t h, class RV, std::size_t... I>
inline RV tile_low(const RV& a, const RV& b, std::index_sequence<I...>) {
  return __builtin_shufflevector(a, b, ((I & h) == 0 ? I : I - h + sizeof...(I))...);
}
template <std::uint64_t h, class RV, std::size_t... I>
inline RV tile_high(const RV& a, const RV& b, std::index_sequence<I...>) {
  return __builtin_shufflevector(a, b, ((I & h) == 0 ? I + h : I + sizeof...(I))...);
}

/// Transposes the n x n tile a (a[k][i] becomes a[i][k]) by swapping off-diagonal blocks of h = n/2, n/4, ..., 1.
template <std::uint64_t h, class RV, std::uint64_t n>
inline void transpose_from(RV (&a)[n]) {
  constexpr auto index = std::make_index_sequence<n>{};
  for (std::uint64_t k = 0; k < n; ++k) {
    if ((k & h) == 0) {
      const RV low = tile_low<h>(a[k], a[k + h], index);
      const RV high = tile_high<h>(a[k], a[k + h], index);
      a[k] = low;
      a[k + h] = high;
    }
  }
  if constexpr (h > 1) transpose_from<h / 2>(a);
}
template <class RV, std::uint64_t n>
inline void transpose(RV (&a)[n]) {
  if constexpr (n > 1) transpose_from<n / 2>(a);
}

/// Tile c0 of register group g: the vl raw elements of each of the group's lanes from position c0, transposed.
template <class Op>
inline void load_tile(const typename Op::input* x, std::uint64_t group, std::uint64_t c0,
                      raw_vec<Op> (&tile)[vector_lanes<typename Op::value>]) {
  using T = typename Op::value;
  constexpr std::uint64_t vl = vector_lanes<T>;
  constexpr std::uint64_t R = order::scan_lane_length<T>;
  for (std::uint64_t k = 0; k < vl; ++k) tile[k] = load<Op>(x + (group * vl + k) * R + c0);
  transpose(tile);
}

/// order::leaf_lane_offsets on registers for a full leaf.
template <class Op>
typename Op::state scan_lane_offsets(const typename Op::input* x, std::uint64_t count, typename Op::state* e) {
  using T = typename Op::value;
  constexpr std::uint64_t W = order::lanes<T>;
  constexpr std::uint64_t R = order::scan_lane_length<T>;
  constexpr std::uint64_t vl = vector_lanes<T>;
  static_assert(R % vl == 0 && W % vl == 0, "a register's lanes tile the leaf");
  if (count < order::leaf_size<T>) return order::leaf_lane_offsets<Op>(x, count, e);
  using VS = typename Op::template state_of<vec<T>>;
  for (std::uint64_t g = 0; g < W / vl; ++g) {
    // The tiles read a group's block as columns of cache lines, which the hardware prefetchers follow badly: the
    // same block of the next leaf is asked for ahead (a hint; it may lie past the array).
    ::detred::cpu::prefetch_bytes(reinterpret_cast<std::uintptr_t>(x + order::leaf_size<T> + g * vl * R),
                                  vl * R * sizeof(typename Op::input));
    VS p = Op::template identity<vec<T>>();
    for (std::uint64_t c0 = 0; c0 < R; c0 += vl) {
      raw_vec<Op> tile[vl];
      load_tile<Op>(x, g, c0, tile);
      for (std::uint64_t c = 0; c < vl; ++c) p = Op::template accumulate<vec<T>>(p, tile[c]);
    }
    for (std::uint64_t k = 0; k < vl; ++k) e[g * vl + k] = get_lane<Op, vector_bytes>(p, k);
  }
  return order::lane_scan<Op>(e, W);
}

/// order::leaf_outputs on registers for a full leaf.
template <class Op>
void scan_outputs(const typename Op::input* x, std::uint64_t count, const typename Op::state* b,
                  typename Op::result* y) {
  using T = typename Op::value;
  constexpr std::uint64_t W = order::lanes<T>;
  constexpr std::uint64_t R = order::scan_lane_length<T>;
  constexpr std::uint64_t vl = vector_lanes<T>;
  static_assert(std::is_same_v<typename Op::result, T>, "outputs are lane values");
  if (count < order::leaf_size<T>) return order::leaf_outputs<Op>(x, count, b, y);
  using VS = typename Op::template state_of<vec<T>>;
  for (std::uint64_t g = 0; g < W / vl; ++g) {
    VS base;
    for (std::uint64_t k = 0; k < vl; ++k) set_lane<Op, vector_bytes>(base, k, b[g * vl + k]);
    VS p = Op::template identity<vec<T>>();
    for (std::uint64_t c0 = 0; c0 < R; c0 += vl) {
      raw_vec<Op> tile[vl];
      load_tile<Op>(x, g, c0, tile);
      vec<T> out[vl];
      for (std::uint64_t c = 0; c < vl; ++c) {
        p = Op::template accumulate<vec<T>>(p, tile[c]);
        out[c] = order::scan_value(Op::combine(base, p));
      }
      transpose(out);
      for (std::uint64_t k = 0; k < vl; ++k) std::memcpy(y + (g * vl + k) * R + c0, &out[k], sizeof out[k]);
    }
  }
}

template <class... Ops>
constexpr ::detred::cpu::scan_table make_scan_table(const char* name, ::detred::cpu::scan_op_list<Ops...>) {
  ::detred::cpu::scan_table table;
  ((static_cast<::detred::cpu::scan_entry<Ops>&>(table) =
        ::detred::cpu::scan_entry<Ops>{&scan_lane_offsets<Ops>, &scan_outputs<Ops>}),
   ...);
  table.name = name;
  return table;
}
