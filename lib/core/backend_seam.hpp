// SPDX-License-Identifier: BSD-3-Clause
// The seam between the front door and a backend: the front door looks a backend up by detred::backend
// (lib/api/backends.hpp) and calls it through this table of entry points, one per operator of backend_operators. A
// backend is a folder that implements the three typed calls below and builds its table with seam_of<Impl>(): the
// CPU (lib/cpu/seam.cpp), CUDA (lib/cuda/backend_seam.cpp, or unavailable.cpp without CUDA), and the tests'
// reference backend (tests/test_backend), which shows that a new backend (HIP, SYCL) needs no change elsewhere.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "core/line_set.hpp"
#include "core/operators.hpp"
#include "detred/options.hpp"
#include "detred/order.hpp"

namespace detred {

/// The position of Op in the op_list List.
template <class Op, class List>
struct index_in;
template <class Op, class... Ops>
struct index_in<Op, op_list<Ops...>> {
  static constexpr std::size_t value = [] {
    constexpr bool matches[] = {std::is_same_v<Op, Ops>...};
    for (std::size_t k = 0; k < sizeof...(Ops); ++k) {
      if (matches[k]) return k;
    }
    return sizeof...(Ops);
  }();
  static_assert(value < sizeof...(Ops), "the operator is not in the list");
};

template <class List>
inline constexpr std::size_t size_of_list = 0;
template <class... Ops>
inline constexpr std::size_t size_of_list<op_list<Ops...>> = sizeof...(Ops);

/// A backend's entry points, the operator erased to its index in backend_operators (the canonical order's operators,
/// then the exact ones). Operands point at an
/// order::operands<Op>, results at Op::result (one, or one per line).
struct backend_seam {
  static constexpr std::size_t operators = size_of_list<backend_operators>;
  using reduce_fn = void (*)(const void* operands, std::uint64_t n, void* result, const options& opt);
  using lines_fn = void (*)(const void* operands, std::uint64_t extent, const line_set& lines, std::uint64_t count,
                            void* results, const options& opt);
  using strided_fn = void (*)(const void* operands, std::uint64_t extent, std::uint64_t length, std::uint64_t stride,
                              std::uint64_t count, void* results, const options& opt);

  std::array<reduce_fn, operators> reduce{};
  /// Only the operators of batch_entries have these; the others' entries are null.
  std::array<lines_fn, operators> reduce_lines{};
  std::array<strided_fn, operators> reduce_strided_lines{};
};

/// The table of a backend whose typed calls are Impl::reduce<Op>(x, n, opt) -> Op::result for every operator of
/// backend_operators, Impl::reduce_lines<Op>(x, extent, lines, count, results, opt) and
/// Impl::reduce_strided_lines<Op>(x, extent, length, stride, count, results, opt) for those of batch_entries (the
/// strided form for one-array operators only).
template <class Impl>
backend_seam seam_of() {
  backend_seam s;
  [&]<class... Ops>(op_list<Ops...>) {
    ((s.reduce[index_in<Ops, backend_operators>::value] =
          [](const void* x, std::uint64_t n, void* result, const options& opt) {
            *static_cast<typename Ops::result*>(result) =
                Impl::template reduce<Ops>(*static_cast<const order::operands<Ops>*>(x), n, opt);
          }),
     ...);
  }(backend_operators{});
  [&]<class... Ops>(op_list<Ops...>) {
    ((s.reduce_lines[index_in<Ops, backend_operators>::value] =
          [](const void* x, std::uint64_t extent, const line_set& lines, std::uint64_t count, void* results,
             const options& opt) {
            Impl::template reduce_lines<Ops>(*static_cast<const order::operands<Ops>*>(x), extent, lines, count,
                                             static_cast<typename Ops::result*>(results), opt);
          }),
     ...);
    ((s.reduce_strided_lines[index_in<Ops, backend_operators>::value] =
          [](const void* x, std::uint64_t extent, std::uint64_t length, std::uint64_t stride, std::uint64_t count,
             void* results, const options& opt) {
            Impl::template reduce_strided_lines<Ops>(*static_cast<const order::operands<Ops>*>(x), extent, length,
                                                     stride, count, static_cast<typename Ops::result*>(results), opt);
          }),
     ...);
  }(batch_entries{});
  return s;
}

}  // namespace detred
