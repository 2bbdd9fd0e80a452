// SPDX-License-Identifier: BSD-3-Clause
// A node of the leaf tree in the partial state's portable form: its fields' bytes in declaration order, without
// the padding a struct may hold (argmin's located<float> has 4 bytes of it), so equal states give equal bytes.
#pragma once

#include <cstdint>

#include "bytes.hpp"
#include "detred/order.hpp"
#include "node_kinds.hpp"

namespace detred::partial {

/// Bytes of Op's node in the portable form.
template <class Op>
constexpr std::uint32_t encoded_node_bytes() {
  using N = order::node_of<Op>;
  if constexpr (is_located_node<N>) {
    return sizeof(N{}.value) + sizeof(N{}.index);
  } else {
    return sizeof(N);
  }
}

template <class N>
void encode_node(const N& node, byte_writer& out) {
  if constexpr (is_located_node<N>) {
    out.put(node.value);
    out.put(node.index);
  } else {
    // Every other node is a struct of fields of one size, or a 64-bit count followed by fields that fill whole
    // 8-byte units (moments), so it has no padding.
    static_assert(std::is_trivially_copyable_v<N>);
    out.put(node);
  }
}

template <class Op>
order::node_of<Op> decode_node(byte_reader& in) {
  using N = order::node_of<Op>;
  N node{};
  if constexpr (is_located_node<N>) {
    node.value = in.get<decltype(node.value)>("node");
    node.index = in.get<std::uint64_t>("node");
  } else {
    node = in.get<N>("node");
  }
  return node;
}

}  // namespace detred::partial
