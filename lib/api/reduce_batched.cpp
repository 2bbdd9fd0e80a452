// SPDX-License-Identifier: BSD-3-Clause
// detred::reduce's batched cores (detred/reduce.hpp): find the operation and the element type among the catalogue's,
// then take the batched front door (batch_front_door.hpp) as the named batched calls do.
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "batch_front_door.hpp"
#include "detred/reduce.hpp"

namespace detred {
namespace {

/// True if some row of the catalogue offers O over T in call shape s (on any backend, in any mode).
template <operation O, class T>
constexpr bool offers(call_shape s) {
  for (const catalogue::entry& e : catalogue::entries) {
    if (e.op == O && catalogue::in(e.types, element_type_of<T>()) && catalogue::in(e.shapes, s)) return true;
  }
  return false;
}

template <class T, std::size_t K = 0, class F>
void for_operation(operation op, call_shape s, F&& f) {
  if constexpr (K < catalogue::operations.size()) {
    constexpr operation O = catalogue::operations[K];
    if constexpr (has_operator<O, T> && (offers<O, T>(call_shape::segments) || offers<O, T>(call_shape::axis))) {
      if (op == O) return f.template operator()<O>();
    }
    for_operation<T, K + 1>(op, s, std::forward<F>(f));
  } else {
    throw error(std::string("detred::reduce: ") + to_string(element_type_of<T>()) + " elements have no batched " +
                to_string(op) + " (" + to_string(s) + ")");
  }
}

}  // namespace

void reduce(operation op, element_type t, const void* x, std::uint64_t n, const void* y, std::uint64_t ny, segments s,
            void* results, std::uint64_t count, const options& opt) {
  with_type(t, [&]<class T>() {
    for_operation<T>(op, call_shape::segments, [&]<operation O>() {
      if constexpr (offers<O, T>(call_shape::segments)) {
        segments_front_door<O, T>(static_cast<const T*>(x), n, static_cast<const T*>(y), ny, s, results, count, opt);
      } else {
        throw error(call_name(O) + ": " + to_string(t) + " elements have no segments (docs/operations.md)");
      }
    });
  });
}

void reduce(operation op, element_type t, const void* data, std::uint64_t rows, std::uint64_t cols,
            std::uint64_t leading_dimension, layout l, int axis, void* results, std::uint64_t count,
            const options& opt) {
  with_type(t, [&]<class T>() {
    for_operation<T>(op, call_shape::axis, [&]<operation O>() {
      if constexpr (offers<O, T>(call_shape::axis) && catalogue::arity(O) == 1) {
        const matrix_view<T> a{static_cast<const T*>(data), rows, cols, leading_dimension, l};
        axis_front_door<O, T>(a, axis, results, count, opt);
      } else {
        throw error(call_name(O) + ": " + to_string(t) + " elements have no reduction along an axis " +
                    "(docs/operations.md)");
      }
    });
  });
}

}  // namespace detred
