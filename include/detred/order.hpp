// SPDX-License-Identifier: BSD-3-Clause
// The canonical order (its version: order_version, order/shape.hpp): the one definition of which operations a
// reduction performs, in which order.
//
//   leaves     element i belongs to leaf i / L (L = leaf_size<T>); the last leaf may be ragged.
//   lanes      inside a leaf, element i belongs to lane i % W (W = lanes<T>). Each lane starts at the operator's
//              identity and accumulates its elements in increasing index order.
//   lane tree  halving: for h = W/2, W/4, ..., 1: lane[j] = combine(lane[j], lane[j + h]) for j < h.
//   leaf tree  left-perfect: T(0..m) = combine(T(0..p), T(p..m)), p the largest power of two below m.
//   finalize   the operator's rule turns the root's state into the result.
//
// detred/order/shape.hpp     W, L, D(n)
// detred/order/arithmetic.hpp identity, canonical NaN, TwoSum (scalar or SIMD)
// detred/order/lane_values.hpp widening of stored elements, |x|, fma, the total order of min and max
// detred/order/accumulation.hpp tree and compensated mode as accumulation policies
// detred/order/ops.hpp       the reduction_op concept, node helpers, and the sum-like operators (sum, dot, asum)
// detred/order/nrm2.hpp, selection_ops.hpp, moments.hpp, integer_sum.hpp   nrm2, min/max/argmin/argmax, stats,
//                            exact integer sums
// detred/order/trees.hpp     the lane tree, the pairwise fold, the left-perfect leaf tree
//
// Every backend (the scalar reference, the SIMD paths, the OpenMP driver, the CUDA kernels) calls these; none
// re-derives the order. docs/canonical-order.md states the same order in prose, with the reasons.
#pragma once

#include "detred/order/accumulation.hpp"
#include "detred/order/arithmetic.hpp"
#include "detred/order/integer_sum.hpp"
#include "detred/order/lane_values.hpp"
#include "detred/order/moments.hpp"
#include "detred/order/nrm2.hpp"
#include "detred/order/ops.hpp"
#include "detred/order/selection_ops.hpp"
#include "detred/order/shape.hpp"
#include "detred/order/trees.hpp"
