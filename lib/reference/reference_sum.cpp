// The scalar reference: each element goes to its lane, each lane adds in index order, the halving lane tree makes a
// leaf, the left-perfect leaf tree makes the root. No intrinsics, no blocking, no cleverness: this is the spec.
#include <cstdint>
#include <span>

#include "detred/order.hpp"
#include "detred/reference.hpp"
#include "validate.hpp"

namespace detred::reference {
namespace {

// V is T in tree mode and order::pair<T> in compensated mode.
template <class T, class V>
V leaf_value(const T* leaf, std::uint64_t count) {
  constexpr std::uint64_t W = order::lanes<T>;
  V lane[W];
  for (std::uint64_t j = 0; j < W; ++j) lane[j] = order::accumulator_identity<V>::value;
  for (std::uint64_t i = 0; i < count; ++i) lane[i % W] = order::accumulate(lane[i % W], leaf[i]);
  order::fold_lanes(lane, W);
  return lane[0];
}

template <class T, class V>
T canonical_sum(std::span<const T> x) {
  constexpr std::uint64_t L = order::leaf_size<T>;
  order::subtree_stack<V> tree;
  for (std::uint64_t start = 0; start < x.size(); start += L) {
    const std::uint64_t count = x.size() - start < L ? x.size() - start : L;
    tree.push(leaf_value<T, V>(x.data() + start, count), 1);
  }
  return order::finalize(tree.root());
}

template <class T>
T sum_any(std::span<const T> x, mode m) {
  switch (validated(m)) {
    case mode::tree:
      return canonical_sum<T, T>(x);
    case mode::compensated:
      return canonical_sum<T, order::pair<T>>(x);
  }
  return order::canonical_nan<T>();  // unreachable: validated() rejects other values
}

}  // namespace

double sum(std::span<const double> x, mode m) { return sum_any(x, m); }
float sum(std::span<const float> x, mode m) { return sum_any(x, m); }

}  // namespace detred::reference
