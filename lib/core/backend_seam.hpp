// SPDX-License-Identifier: BSD-3-Clause
// The seam between the front door and a backend: the front door looks a backend up by detred::backend
// (lib/api/backends.hpp) and calls it through this table of entry points, one per operator of backend_operators, and
// one per scan input type. A backend is a folder that implements the typed calls below and builds its table with
// seam_of<Impl>(): the
// CPU (lib/cpu/seam.cpp), CUDA (lib/cuda/backend_seam.cpp, or unavailable.cpp without CUDA), and the tests'
// reference backend (tests/test_backend), which shows that a new backend (HIP, SYCL) needs no change elsewhere.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>

#include "core/line_set.hpp"
#include "core/operators.hpp"
#include "core/scan_types.hpp"
#include "detred/batched.hpp"
#include "detred/catalogue.hpp"
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

  /// The scans (detred/scan.hpp), the input type erased to its element_type (DETRED_EACH_SCAN_TYPE's inputs; the
  /// output type is the one that list pairs with it). x and y hold n elements each (y may be x); `matrix` points at
  /// a matrix_view of the input type, y holds ny elements. The arguments are checked by the front door. Null where a
  /// backend has no scans (the tests' reference backend), and scan_axis for the types without an axis scan.
  static constexpr std::size_t element_types = static_cast<std::size_t>(element_type::uint64) + 1;
  using scan_fn = void (*)(const void* x, std::uint64_t n, void* y, bool exclusive, const options& opt);
  using scan_segments_fn = void (*)(const void* x, std::uint64_t n, const segments& s, void* y, bool exclusive,
                                    const options& opt);
  using scan_axis_fn = void (*)(const void* matrix, int axis, void* y, std::uint64_t ny, const options& opt);
  std::array<scan_fn, element_types> scan{};
  std::array<scan_segments_fn, element_types> scan_segments{};
  std::array<scan_axis_fn, element_types> scan_axis{};
};

/// The declarations of a backend's three scan calls, in the struct it names `scans` (the CPU's cpu::backend_scans,
/// CUDA's cuda_backend::staged_scans): one array, its segments, the lines of a matrix axis (float and double), on
/// arguments the front door has checked; y may be x. Each backend defines them for the types of DETRED_EACH_SCAN_TYPE.
#define DETRED_BACKEND_SCAN_CALLS()                                                                                   \
  template <class In, class Out>                                                                                      \
  static void scan(std::span<const In> x, std::span<Out> y, bool exclusive, const options& opt);                      \
  template <class In, class Out>                                                                                      \
  static void scan_segments(std::span<const In> x, segments s, std::span<Out> y, bool exclusive, const options& opt); \
  template <class T>                                                                                                  \
  static void scan_axis(matrix_view<T> a, int axis, std::span<T> y, const options& opt);

/// The entries of one scan input type In (output Out) from Scans::scan<In, Out>(x, y, exclusive, opt),
/// Scans::scan_segments<In, Out>(x, s, y, exclusive, opt) and, for float and double, Scans::scan_axis<In>(a, axis, y,
/// opt), all on spans as detred/scan.hpp has them.
template <class Scans, class In, class Out>
void add_scan_entries(backend_seam& s) {
  constexpr std::size_t k = static_cast<std::size_t>(element_type_of<In>());
  s.scan[k] = [](const void* x, std::uint64_t n, void* y, bool exclusive, const options& opt) {
    Scans::template scan<In, Out>(std::span(static_cast<const In*>(x), n), std::span(static_cast<Out*>(y), n),
                                  exclusive, opt);
  };
  s.scan_segments[k] = [](const void* x, std::uint64_t n, const segments& g, void* y, bool exclusive,
                          const options& opt) {
    Scans::template scan_segments<In, Out>(std::span(static_cast<const In*>(x), n), g,
                                           std::span(static_cast<Out*>(y), n), exclusive, opt);
  };
  if constexpr (std::is_same_v<In, double> || std::is_same_v<In, float>) {
    s.scan_axis[k] = [](const void* matrix, int axis, void* y, std::uint64_t ny, const options& opt) {
      Scans::template scan_axis<In>(*static_cast<const matrix_view<In>*>(matrix), axis,
                                    std::span(static_cast<In*>(y), ny), opt);
    };
  }
}

/// The table of a backend whose typed calls are Impl::reduce<Op>(x, n, opt) -> Op::result for every operator of
/// backend_operators, Impl::reduce_lines<Op>(x, extent, lines, count, results, opt) and
/// Impl::reduce_strided_lines<Op>(x, extent, length, stride, count, results, opt) for those of batch_entries (the
/// strided form for one-array operators only), and, where Impl names a type `scans`, the scans of add_scan_entries.
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
  if constexpr (requires { typename Impl::scans; }) {
#define DETRED_ADD_SCAN_ENTRIES(In, Out) add_scan_entries<typename Impl::scans, In, Out>(s);
    DETRED_EACH_SCAN_TYPE(DETRED_ADD_SCAN_ENTRIES)
#undef DETRED_ADD_SCAN_ENTRIES
  }
  return s;
}

}  // namespace detred
