// SPDX-License-Identifier: BSD-3-Clause
// Which kind of leaf-tree node an operator keeps, for the code that handles nodes field by field: their canonical
// NaNs (canonical_node.hpp) and their portable bytes (node_codec.hpp).
#pragma once

#include "detred/order.hpp"

namespace detred::partial {

/// A compensated (sum, correction) pair.
template <class T>
inline constexpr bool is_pair_node = false;
template <class T>
inline constexpr bool is_pair_node<order::pair<T>> = true;

/// A value with its index (argmin, argmax).
template <class T>
inline constexpr bool is_located_node = false;
template <class T>
inline constexpr bool is_located_node<order::located<T>> = true;

}  // namespace detred::partial
