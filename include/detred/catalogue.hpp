// SPDX-License-Identifier: BSD-3-Clause
// The catalogue: every operation, element type, mode, backend and call shape of detred, and which combinations
// exist, declared once in the table `entries` below. Every interface asks it instead of deciding for itself: the
// front door's and the backends' refusals (lib/core/catalogue_checks.hpp), partial states, the verify tool's
// operation list and modes, and the support table of docs/operations.md (rendered from this table by
// `detred catalogue --markdown`; a test fails when the document is stale).
//
//   static_assert(detred::catalogue::supports(detred::operation::sum, detred::element_type::float32,
//                                             detred::mode::exact, detred::backend::cpu, detred::call_shape::axis));
//
// Plain constexpr C++ (no CUDA header, no library call), usable in host and device translation units alike.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "detred/bounds.hpp"
#include "detred/number_types.hpp"
#include "detred/options.hpp"

// Exported from a shared libdetred, whose other symbols are hidden (cmake/DetredShared.cmake).
#pragma GCC visibility push(default)

namespace detred {

/// The reductions of the single-array API, then the scans (detred/scan.hpp: one output per element). The codes are
/// stored in partial states' headers: new operations go at the end.
enum class operation : std::uint8_t {
  sum,
  dot,
  asum,
  nrm2,
  min,
  max,
  argmin,
  argmax,
  stats,
  cumsum,
  exclusive_cumsum,
  sumsq,
  mean,
};

/// The element types of the arrays a reduction reads, as stored.
enum class element_type : std::uint8_t { float64, float32, float16, bfloat16, int32, int64, uint32, uint64 };

/// How a call presents its data.
enum class call_shape : std::uint8_t {
  array,          ///< one array (detred/sum.hpp ... stats.hpp; cuda::sum ...)
  segments,       ///< the segments of an array, CSR offsets (detred/batched.hpp)
  axis,           ///< the rows or the columns of a matrix (detred/batched.hpp)
  by_key,         ///< values grouped by key: scatter-add (detred/batched.hpp)
  partial_state,  ///< pieces reduced apart, merged anywhere: streaming, MPI (detred/partial.hpp, detred/mpi.hpp);
                  ///< for cumsum, the pieces' leaf totals (cumsum_totals, cumsum_piece in detred/scan.hpp)
  pieces,         ///< one array spread over several GPUs or streams (cuda::sum(pieces))
};

/// Lower-case names, as the verify tool, the bindings and error messages spell them.
const char* to_string(operation op);
const char* to_string(element_type t);
const char* to_string(call_shape s);

/// The element_type of T (double, float, float16, bfloat16, int32_t, int64_t, uint32_t, uint64_t).
template <class T>
constexpr element_type element_type_of() {
  if constexpr (std::is_same_v<T, double>)
    return element_type::float64;
  else if constexpr (std::is_same_v<T, float>)
    return element_type::float32;
  else if constexpr (std::is_same_v<T, float16>)
    return element_type::float16;
  else if constexpr (std::is_same_v<T, bfloat16>)
    return element_type::bfloat16;
  else if constexpr (std::is_same_v<T, std::int32_t>)
    return element_type::int32;
  else if constexpr (std::is_same_v<T, std::int64_t>)
    return element_type::int64;
  else if constexpr (std::is_same_v<T, std::uint32_t>)
    return element_type::uint32;
  else {
    static_assert(std::is_same_v<T, std::uint64_t>, "not an element type of detred");
    return element_type::uint64;
  }
}

/// f.template operator()<T>() with T the C++ type of t (double, float, float16, bfloat16, int32_t, int64_t, uint32_t,
/// uint64_t): from a run-time element type to the typed API.
template <class F>
constexpr decltype(auto) with_type(element_type t, F&& f) {
  switch (t) {
    case element_type::float64:
      return f.template operator()<double>();
    case element_type::float32:
      return f.template operator()<float>();
    case element_type::float16:
      return f.template operator()<float16>();
    case element_type::bfloat16:
      return f.template operator()<bfloat16>();
    case element_type::int32:
      return f.template operator()<std::int32_t>();
    case element_type::int64:
      return f.template operator()<std::int64_t>();
    case element_type::uint32:
      return f.template operator()<std::uint32_t>();
    case element_type::uint64:
      break;
  }
  return f.template operator()<std::uint64_t>();
}

namespace catalogue {

inline constexpr std::array operations = {operation::sum,
                                          operation::dot,
                                          operation::asum,
                                          operation::nrm2,
                                          operation::min,
                                          operation::max,
                                          operation::argmin,
                                          operation::argmax,
                                          operation::stats,
                                          operation::cumsum,
                                          operation::exclusive_cumsum,
                                          operation::sumsq,
                                          operation::mean};
inline constexpr std::array element_types = {element_type::float64,  element_type::float32, element_type::float16,
                                             element_type::bfloat16, element_type::int32,   element_type::int64,
                                             element_type::uint32,   element_type::uint64};
inline constexpr std::array modes = {mode::tree, mode::compensated, mode::exact};
/// The backends that compute (backend::automatic picks one of them: the CPU for host memory).
inline constexpr std::array backends = {backend::cpu, backend::cuda};
inline constexpr std::array call_shapes = {call_shape::array,  call_shape::segments,      call_shape::axis,
                                           call_shape::by_key, call_shape::partial_state, call_shape::pieces};

/// The names of the operations, in the order of their values: what the verify tool's --op, the bindings' function
/// names and the error messages say (detred::to_string).
inline constexpr std::array<const char*, operations.size()> operation_names = {
    "sum",   "dot", "asum", "nrm2", "min", "max", "argmin", "argmax", "stats", "cumsum", "exclusive_cumsum",
    "sumsq", "mean"};

/// One line on each operation: the start of a binding's help where it has no hand-written text (Python's
/// docstrings of the operations the extension defines from the catalogue).
inline constexpr std::array<const char*, operations.size()> operation_summaries = {
    "the sum of the elements",
    "the dot product of two arrays: the sum of x_i * y_i",
    "the sum of the magnitudes |x_i|",
    "the 2-norm sqrt(sum x_i^2), without overflow or underflow in between",
    "the smallest element",
    "the largest element",
    "the index of the smallest element",
    "the index of the largest element",
    "count, sum, mean, variances, standard deviations, min and max",
    "the inclusive prefix sums",
    "the exclusive prefix sums",
    "the sum of squares sum x_i^2 (RMSNorm's statistic), bit for bit dot(x, x)",
    "the arithmetic mean: the sum divided by the count, bit for bit stats' mean in tree mode"};

/// What a sum of one term per element adds (the operations with modes, whose exact value is such a sum).
enum class terms : std::uint8_t {
  values,      ///< x[i]
  magnitudes,  ///< |x[i]|
  products,    ///< x[i] * y[i] (two arrays)
  squares,     ///< x[i] * x[i]
};
/// How the exact value of the terms' sum becomes the result.
enum class finish : std::uint8_t {
  rounded,      ///< the sum, rounded once
  square_root,  ///< its square root, rounded once
  quotient,     ///< divided by the count of elements, rounded once (the mean; NaN for no element)
};

/// The mathematics of an operation with modes: its terms, its finish, and the documented bound its tree and
/// compensated results keep (detred::bound; docs/error-bounds.md). From it come exact mode's operator
/// (detred/exact/exact_ops.hpp), the verify tool's oracle and its bound check.
struct form {
  terms adds;
  finish finishes;
  bounded_op bound;
};

/// The form of `op`, for the operations whose modes choose the arithmetic (sum, dot, asum, nrm2); has_form() says
/// which those are.
constexpr bool has_form(operation op) {
  return op == operation::sum || op == operation::dot || op == operation::asum || op == operation::nrm2 ||
         op == operation::sumsq || op == operation::mean;
}
constexpr form form_of(operation op) {
  switch (op) {
    case operation::dot:
      return {terms::products, finish::rounded, bounded_op::dot};
    case operation::asum:
      return {terms::magnitudes, finish::rounded, bounded_op::asum};
    case operation::nrm2:
      return {terms::squares, finish::square_root, bounded_op::nrm2};
    case operation::sumsq:  // computed as dot(x, x), so dot's bound with y = x
      return {terms::squares, finish::rounded, bounded_op::dot};
    case operation::mean:
      return {terms::values, finish::quotient, bounded_op::mean};
    default:
      return {terms::values, finish::rounded, bounded_op::sum};
  }
}

/// A set of values of one of the enums above, as bits (bit k: the value k).
using set = std::uint32_t;
template <class E, class... Es>
constexpr set of(E first, Es... rest) {
  return ((set{1} << static_cast<unsigned>(first)) | ... | (set{1} << static_cast<unsigned>(rest)));
}
template <class E>
constexpr bool in(set s, E value) {
  return ((s >> static_cast<unsigned>(value)) & 1U) != 0;
}

inline constexpr set floats = of(element_type::float64, element_type::float32);
inline constexpr set halves = of(element_type::float16, element_type::bfloat16);
inline constexpr set integers =
    of(element_type::int32, element_type::int64, element_type::uint32, element_type::uint64);
inline constexpr set every_type = floats | halves | integers;

inline constexpr set host_batches = of(call_shape::segments, call_shape::axis, call_shape::by_key);
inline constexpr set both_backends = of(backend::cpu, backend::cuda);
inline constexpr set cpu_only = of(backend::cpu);
inline constexpr set cuda_only = of(backend::cuda);
inline constexpr set rounding_modes = of(mode::tree, mode::compensated);  ///< the modes of the canonical order
inline constexpr set every_mode = of(mode::tree, mode::compensated, mode::exact);

/// Exact mode of the CUDA batched calls (segments, axes, groups by key: lib/cuda/exact_batch.cu; 16-bit floats widened
/// on the device first). Like every GPU path
/// it is listed once its tests (tests/cuda/cuda_exact_batched_test.cpp) have passed on a GPU; false would take its
/// rows off the GPU, and the calls would be refused with the catalogue's message.
inline constexpr bool exact_gpu_batches_listed = true;
inline constexpr set exact_gpu_batches = exact_gpu_batches_listed ? cuda_only : set{};

/// What the mode of a call means for an operation.
enum class mode_rule : std::uint8_t {
  chosen,     ///< the mode chooses the arithmetic: tree, compensated, and exact where an entry offers it
  tree_only,  ///< only tree mode exists (stats); the others are refused
  exact,      ///< the result is exact in any order (selections, integer sums): every mode is accepted, none applies
};

/// One row of the catalogue: `op` over the element types `types`, in the call shapes `shapes`, on the backends
/// `backends`, accepts the modes `modes`. A combination is supported when some row contains it.
struct entry {
  operation op;
  set types;
  set shapes;
  set backends;
  set modes;
};

// clang-format off
/// Every supported combination. An operation's element types are the union of its rows' (has() below); the modes
/// tree and compensated reach every shape of the canonical order, exact mode (the correctly rounded result,
/// docs/exact.md) only the shapes listed in its own rows.
inline constexpr std::array entries = {
  //    operation          element types        call shapes                                              backends       modes
  entry{operation::sum,    floats | halves,     of(call_shape::array),                                   both_backends, every_mode},
  entry{operation::sum,    floats | halves,     of(call_shape::partial_state),                           cpu_only,      rounding_modes},
  entry{operation::sum,    floats,              host_batches,                                            both_backends, rounding_modes},
  entry{operation::sum,    halves,              of(call_shape::segments, call_shape::axis),              both_backends, rounding_modes},
  entry{operation::sum,    halves,              of(call_shape::partial_state),                           cpu_only,      every_mode},
  entry{operation::sum,    floats,              host_batches | of(call_shape::partial_state),            cpu_only,      every_mode},
  entry{operation::sum,    halves,              of(call_shape::segments, call_shape::axis),              cpu_only,      every_mode},
  entry{operation::sum,    floats,              of(call_shape::partial_state, call_shape::pieces),       cuda_only,     every_mode},
  entry{operation::sum,    floats,              host_batches,                                            exact_gpu_batches, every_mode},
  entry{operation::sum,    halves,              of(call_shape::segments, call_shape::axis),              exact_gpu_batches, every_mode},
  entry{operation::sum,    integers,            of(call_shape::array),                                   both_backends, every_mode},
  entry{operation::sum,    integers,            of(call_shape::partial_state),                           cpu_only,      every_mode},
  entry{operation::dot,    floats | halves,     of(call_shape::array),                                   both_backends, every_mode},
  entry{operation::dot,    floats | halves,     of(call_shape::partial_state),                           cpu_only,      rounding_modes},
  entry{operation::dot,    floats | halves,     of(call_shape::segments),                                both_backends, rounding_modes},
  entry{operation::dot,    floats | halves,     of(call_shape::segments),                                cpu_only,      every_mode},
  entry{operation::dot,    floats | halves,     of(call_shape::segments),                                exact_gpu_batches, every_mode},
  entry{operation::dot,    halves,              of(call_shape::partial_state),                           cpu_only,      every_mode},
  entry{operation::dot,    floats,              of(call_shape::partial_state),                           cpu_only,      every_mode},
  entry{operation::asum,   floats,              of(call_shape::array, call_shape::segments, call_shape::axis), both_backends, rounding_modes},
  entry{operation::asum,   floats,              of(call_shape::partial_state),                           cpu_only,      rounding_modes},
  entry{operation::asum,   floats,              of(call_shape::array),                                   both_backends, every_mode},
  entry{operation::asum,   floats,              of(call_shape::segments, call_shape::axis),              cpu_only,      every_mode},
  entry{operation::asum,   floats,              of(call_shape::segments, call_shape::axis),              exact_gpu_batches, every_mode},
  entry{operation::asum,   floats,              of(call_shape::partial_state),                           cpu_only,      every_mode},
  entry{operation::nrm2,   floats,              of(call_shape::array, call_shape::segments, call_shape::axis), both_backends, rounding_modes},
  entry{operation::nrm2,   floats,              of(call_shape::partial_state),                           cpu_only,      rounding_modes},
  entry{operation::nrm2,   floats,              of(call_shape::array),                                   both_backends, every_mode},
  entry{operation::nrm2,   floats,              of(call_shape::partial_state),                           cpu_only,      every_mode},
  entry{operation::nrm2,   floats,              of(call_shape::segments, call_shape::axis),              cpu_only,      every_mode},
  entry{operation::nrm2,   floats,              of(call_shape::segments, call_shape::axis),              exact_gpu_batches, every_mode},
  entry{operation::min,    floats | integers,   of(call_shape::array),                                   both_backends, every_mode},
  entry{operation::min,    floats,              of(call_shape::segments, call_shape::axis),              both_backends, every_mode},
  entry{operation::min,    floats | integers,   of(call_shape::partial_state),                           cpu_only,      every_mode},
  entry{operation::max,    floats | integers,   of(call_shape::array),                                   both_backends, every_mode},
  entry{operation::max,    floats,              of(call_shape::segments, call_shape::axis),              both_backends, every_mode},
  entry{operation::max,    floats | integers,   of(call_shape::partial_state),                           cpu_only,      every_mode},
  entry{operation::argmin, floats | integers,   of(call_shape::array),                                   both_backends, every_mode},
  entry{operation::argmin, floats,              of(call_shape::segments),                                both_backends, every_mode},
  entry{operation::argmin, floats | integers,   of(call_shape::partial_state),                           cpu_only,      every_mode},
  entry{operation::argmax, floats | integers,   of(call_shape::array),                                   both_backends, every_mode},
  entry{operation::argmax, floats,              of(call_shape::segments),                                both_backends, every_mode},
  entry{operation::argmax, floats | integers,   of(call_shape::partial_state),                           cpu_only,      every_mode},
  entry{operation::stats,  floats,              of(call_shape::array, call_shape::segments, call_shape::axis, call_shape::by_key), both_backends, of(mode::tree)},
  entry{operation::stats,  floats,              of(call_shape::partial_state),                           cpu_only,      of(mode::tree)},
  entry{operation::sumsq,  floats | halves,     of(call_shape::array),                                   both_backends, every_mode},
  entry{operation::sumsq,  floats | halves,     of(call_shape::partial_state),                           cpu_only,      every_mode},
  entry{operation::sumsq,  floats | halves,     of(call_shape::segments, call_shape::axis),              both_backends, rounding_modes},
  entry{operation::sumsq,  floats | halves,     of(call_shape::segments, call_shape::axis),              cpu_only,      every_mode},
  entry{operation::sumsq,  floats | halves,     of(call_shape::segments, call_shape::axis),              exact_gpu_batches, every_mode},
  // The mean: the sum's rows but pieces and groups by key, each result the sum divided by its count.
  entry{operation::mean,   floats | halves,     of(call_shape::array),                                   both_backends, every_mode},
  entry{operation::mean,   floats | halves,     of(call_shape::partial_state),                           cpu_only,      rounding_modes},
  entry{operation::mean,   floats | halves,     of(call_shape::segments, call_shape::axis),              both_backends, rounding_modes},
  entry{operation::mean,   halves,              of(call_shape::partial_state),                           cpu_only,      every_mode},
  entry{operation::mean,   floats | halves,     of(call_shape::segments, call_shape::axis),              cpu_only,      every_mode},
  entry{operation::mean,   floats | halves,     of(call_shape::segments, call_shape::axis),              exact_gpu_batches, every_mode},
  entry{operation::mean,   floats,              of(call_shape::partial_state),                           cpu_only,      every_mode},
  // The scans (detred/scan.hpp, detred/cuda_scan.hpp): exact mode is refused for floating point (docs/scan.md says
  // why); integer scans are exact in every mode. In place is the array shape with the output the input.
  entry{operation::cumsum, floats | halves,     of(call_shape::array, call_shape::segments),             both_backends, rounding_modes},
  entry{operation::cumsum, floats | halves,     of(call_shape::partial_state),                           both_backends, rounding_modes},
  entry{operation::cumsum, floats,              of(call_shape::axis),                                    both_backends, rounding_modes},
  entry{operation::cumsum, integers,            of(call_shape::array, call_shape::segments),             both_backends, every_mode},
  entry{operation::exclusive_cumsum, floats | halves, of(call_shape::array, call_shape::segments),       both_backends, rounding_modes},
  entry{operation::exclusive_cumsum, integers,  of(call_shape::array, call_shape::segments),             both_backends, every_mode},
};
// clang-format on

namespace detail {

/// The modes of every (operation, element type, backend, call shape), the union of the rows that contain it: the
/// table `entries` unrolled at compile time, so that a call's check is one lookup rather than a scan of the rows.
struct mode_table {
  static constexpr std::size_t backend_count = 3;  // automatic, cpu, cuda (the first has no rows)
  std::array<set, operations.size() * element_types.size() * backend_count * call_shapes.size()> modes{};

  static constexpr std::size_t index(operation op, element_type t, backend b, call_shape s) {
    return ((static_cast<std::size_t>(op) * element_types.size() + static_cast<std::size_t>(t)) * backend_count +
            static_cast<std::size_t>(b)) *
               call_shapes.size() +
           static_cast<std::size_t>(s);
  }
  static constexpr bool valid(operation op, element_type t, backend b, call_shape s) {
    return static_cast<std::size_t>(op) < operations.size() && static_cast<std::size_t>(t) < element_types.size() &&
           static_cast<std::size_t>(b) < backend_count && static_cast<std::size_t>(s) < call_shapes.size();
  }
};

constexpr mode_table unrolled() {
  mode_table table;
  for (const entry& e : entries) {
    for (element_type t : element_types) {
      for (backend b : backends) {
        for (call_shape s : call_shapes) {
          if (in(e.types, t) && in(e.backends, b) && in(e.shapes, s)) {
            table.modes[mode_table::index(e.op, t, b, s)] |= e.modes;
          }
        }
      }
    }
  }
  return table;
}

inline constexpr mode_table modes_of = unrolled();

}  // namespace detail

/// True if `op` over elements of `t` in mode `m` on backend `b` in the call shape `s` exists.
constexpr bool supports(operation op, element_type t, mode m, backend b, call_shape s) {
  if (!detail::mode_table::valid(op, t, b, s)) return false;
  return in(detail::modes_of.modes[detail::mode_table::index(op, t, b, s)], m);
}

/// True if `op` exists for elements of `t` in some mode, backend and shape.
constexpr bool has(operation op, element_type t) {
  for (const entry& e : entries) {
    if (e.op == op && in(e.types, t)) return true;
  }
  return false;
}

/// True if `op` over `t` exists in the call shape `s` on backend `b`, in some mode.
constexpr bool has(operation op, element_type t, backend b, call_shape s) {
  for (const entry& e : entries) {
    if (e.op == op && in(e.types, t) && in(e.shapes, s) && in(e.backends, b)) return true;
  }
  return false;
}

/// What the mode means for `op` over `t`.
constexpr mode_rule mode_rule_of(operation op, element_type t) {
  if (op == operation::stats) return mode_rule::tree_only;
  const bool selection =
      op == operation::min || op == operation::max || op == operation::argmin || op == operation::argmax;
  const bool sums = op == operation::sum || op == operation::cumsum || op == operation::exclusive_cumsum;
  if (selection || (sums && in(integers, t))) return mode_rule::exact;
  return mode_rule::chosen;
}

/// How the result of `op` over elements of `t` is typed (for the scans: each output).
enum class result_kind : std::uint8_t {
  element,     ///< the element type itself (min, max; sum, dot, asum, nrm2, cumsum of float and double)
  float32,     ///< float: the sums, dot products and scans of 16-bit floats
  wide,        ///< int64 or uint64 (the signedness of the elements): integer sums and scans
  index,       ///< uint64: argmin and argmax
  statistics,  ///< statistics<T>: stats
};

constexpr result_kind result_of(operation op, element_type t) {
  if (op == operation::argmin || op == operation::argmax) return result_kind::index;
  if (op == operation::stats) return result_kind::statistics;
  const bool sums = op == operation::sum || op == operation::cumsum || op == operation::exclusive_cumsum;
  if (sums && in(integers, t)) return result_kind::wide;
  if (in(halves, t)) return result_kind::float32;
  return result_kind::element;
}

/// Number of input arrays of `op`: 2 for dot (x and y), 1 otherwise.
constexpr unsigned arity(operation op) { return has_form(op) && form_of(op).adds == terms::products ? 2 : 1; }

/// True for the operations that need at least one element (an empty array has no min or argmin): every call shape
/// refuses an empty input, or an empty line of a batch, for them; the others give their identity (docs/operations.md).
constexpr bool needs_an_element(operation op) {
  return op == operation::min || op == operation::max || op == operation::argmin || op == operation::argmax;
}

/// True for the scans, whose result is an array of the input's length (one output per element), not one value.
constexpr bool is_scan(operation op) { return op == operation::cumsum || op == operation::exclusive_cumsum; }

}  // namespace catalogue
}  // namespace detred

#pragma GCC visibility pop
