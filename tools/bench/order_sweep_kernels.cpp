// Compiled with -mavx512f -mprefer-vector-width=512 and the library's strict floating-point flags, no fast-math
// (CMakeLists.txt), like lib/cpu/kernels_avx512.cpp. The loops follow lib/cpu/lane_kernels.inl, with the register
// budget per pass of lib/cpu/kernels_avx512.cpp (8 tree registers, 8 compensated register pairs; keep them in
// step), so a shape's speed here predicts its speed in the library. Only full leaves are handled: the sweep's sizes
// are multiples of every L.
#define DETRED_ORDER_ABI order_sweep_avx512
#include "order_sweep_kernels.hpp"

#include <cstring>
#include <utility>

#include "detred/order.hpp"

namespace detred::bench {
namespace {

constexpr std::uint64_t vector_bytes = 64;
constexpr std::uint64_t tree_registers = 8;
constexpr std::uint64_t compensated_registers = 8;

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
  std::memcpy(&v, p, sizeof v);
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

template <class T>
constexpr std::uint64_t lanes_per_pass(std::uint64_t registers, std::uint64_t W) {
  const std::uint64_t g = registers * vector_lanes<T>;
  return g < W ? g : W;
}

template <class T, std::uint64_t W, std::uint64_t L>
T tree_leaf(const T* x) {
  constexpr std::uint64_t VL = vector_lanes<T>;
  constexpr std::uint64_t G = lanes_per_pass<T>(tree_registers, W);
  constexpr std::uint64_t R = G / VL;
  alignas(64) T lane[W];
  for (std::uint64_t g = 0; g < W; g += G) {
    vec<T> acc[R];
#pragma GCC unroll 16
    for (std::uint64_t r = 0; r < R; ++r) acc[r] = splat(order::identity<T>());
    const T* row = x + g;
    for (std::uint64_t k = 0; k < L / W; ++k, row += W) {
#pragma GCC unroll 16
      for (std::uint64_t r = 0; r < R; ++r) acc[r] += load(row + r * VL);
    }
#pragma GCC unroll 16
    for (std::uint64_t r = 0; r < R; ++r) store(lane + g + r * VL, acc[r]);
  }
  order::lane_tree_steps(W, VL, [&lane](std::uint64_t j, std::uint64_t h, std::uint64_t group) {
    if (group == VL) {
      store(lane + j, load(lane + j) + load(lane + j + h));
    } else {
      lane[j] = order::combine(lane[j], lane[j + h]);
    }
  });
  return lane[0];
}

template <class T>
inline void vector_two_sum(vec<T>& s, vec<T>& e, vec<T> a, vec<T> b) {
  s = a + b;
  const vec<T> bb = s - a;
  e = (a - (s - bb)) + (b - bb);
}

template <class T, std::uint64_t W, std::uint64_t L>
order::pair<T> compensated_leaf(const T* x) {
  constexpr std::uint64_t VL = vector_lanes<T>;
  constexpr std::uint64_t G = lanes_per_pass<T>(compensated_registers, W);
  constexpr std::uint64_t R = G / VL;
  alignas(64) T lane_sum[W];
  alignas(64) T lane_correction[W];
  for (std::uint64_t g = 0; g < W; g += G) {
    vec<T> s[R];
    vec<T> c[R];
#pragma GCC unroll 16
    for (std::uint64_t r = 0; r < R; ++r) s[r] = c[r] = splat(order::identity<T>());
    const T* row = x + g;
    for (std::uint64_t k = 0; k < L / W; ++k, row += W) {
#pragma GCC unroll 16
      for (std::uint64_t r = 0; r < R; ++r) {
        vec<T> e;
        vector_two_sum<T>(s[r], e, s[r], load(row + r * VL));
        c[r] = c[r] + e;
      }
    }
#pragma GCC unroll 16
    for (std::uint64_t r = 0; r < R; ++r) {
      store(lane_sum + g + r * VL, s[r]);
      store(lane_correction + g + r * VL, c[r]);
    }
  }
  order::lane_tree_steps(W, VL, [&](std::uint64_t j, std::uint64_t h, std::uint64_t group) {
    if (group == VL) {
      vec<T> s;
      vec<T> e;
      vector_two_sum<T>(s, e, load(lane_sum + j), load(lane_sum + j + h));
      store(lane_sum + j, s);
      store(lane_correction + j, (load(lane_correction + j) + load(lane_correction + j + h)) + e);
    } else {
      const order::pair<T> p = order::combine(order::pair<T>{lane_sum[j], lane_correction[j]},
                                              order::pair<T>{lane_sum[j + h], lane_correction[j + h]});
      lane_sum[j] = p.sum;
      lane_correction[j] = p.correction;
    }
  });
  return {lane_sum[0], lane_correction[0]};
}

/// Leaves pushed one at a time onto the left-perfect leaf tree, as a single thread of the library does.
template <class T, class V, std::uint64_t L, V (*leaf)(const T*)>
T sweep_sum(const T* x, std::uint64_t n) {
  order::subtree_stack<V> tree;
  for (std::uint64_t start = 0; start + L <= n; start += L) tree.push(leaf(x + start), 1);
  return order::finalize(tree.root());
}

template <class T, std::uint64_t W, std::uint64_t... PerLane>
void add_lane_count(std::vector<sweep_kernel<T>>& out, std::integer_sequence<std::uint64_t, PerLane...>) {
  (out.push_back({W, W * PerLane, false, sweep_sum<T, T, W * PerLane, tree_leaf<T, W, W * PerLane>>}), ...);
  (out.push_back(
       {W, W * PerLane, true, sweep_sum<T, order::pair<T>, W * PerLane, compensated_leaf<T, W, W * PerLane>>}),
   ...);
}

using per_lane = std::integer_sequence<std::uint64_t, 8, 16, 32, 64>;

}  // namespace

std::vector<sweep_kernel<double>> sweep_kernels_f64() {
  std::vector<sweep_kernel<double>> k;
  add_lane_count<double, 32>(k, per_lane{});
  add_lane_count<double, 64>(k, per_lane{});
  add_lane_count<double, 128>(k, per_lane{});
  add_lane_count<double, 256>(k, per_lane{});
  return k;
}

std::vector<sweep_kernel<float>> sweep_kernels_f32() {
  std::vector<sweep_kernel<float>> k;
  add_lane_count<float, 64>(k, per_lane{});
  add_lane_count<float, 128>(k, per_lane{});
  add_lane_count<float, 256>(k, per_lane{});
  return k;
}

}  // namespace detred::bench
