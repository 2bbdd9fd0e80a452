// SPDX-License-Identifier: BSD-3-Clause
// An operator whose result is its root node, unfinalized: an engine run with it returns the node of a subtree
// (an aligned block of leaves of a larger array), which a partial state keeps and merges later. Everything else is
// Op's own, so the engine performs exactly Op's operations.
#pragma once

#include "detred/order.hpp"

namespace detred::partial {

template <class Op>
struct unfinalized : Op {
  using result = order::node_of<Op>;
  using node = order::node_of<Op>;
  DETRED_HOST_DEVICE static constexpr result finalize(const node& root) { return root; }
};

}  // namespace detred::partial
