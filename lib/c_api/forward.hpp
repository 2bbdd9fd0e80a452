// SPDX-License-Identifier: BSD-3-Clause
// From C arguments to a C++ call: arrays as spans of the library's element types, the options, and the result stored
// only on success; and one macro per signature of detred.h, so that each exported function is one line of a table
// (sums.cpp, dot.cpp, norms.cpp, selections.cpp, stats.cpp, scans.cpp). docs/bindings.md says how to add an operation.
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <vector>

#include "boundary.hpp"
#include "detred/detred.h"
#include "detred/options.hpp"
#include "detred/statistics.hpp"

namespace detred::c_api {

/// p[0..n) as a span of the C++ element type E, which has the bits of C: the 16-bit floats are uint16_t in C and
/// detred::float16 / bfloat16 (enums over uint16_t) in C++. `p` may be null only when n == 0 (rejected with
/// `if_null` otherwise).
template <class E, class C>
std::span<const E> elements(const C* p, std::size_t n,
                            const char* if_null = "x is NULL but n > 0: pass the array, or n = 0 for an empty one") {
  static_assert(sizeof(E) == sizeof(C) && alignof(E) == alignof(C), "E must have the layout of C");
  if (n > 0 && p == nullptr) throw rejected{DETRED_INVALID_ARGUMENT, if_null};
  return {reinterpret_cast<const E*>(p), n};
}

/// y[0..n) as the output span of a scan; `y` may be null only when n == 0.
template <class R>
std::span<R> outputs(R* y, std::size_t n) {
  if (n > 0 && y == nullptr) throw rejected{DETRED_INVALID_ARGUMENT, "y is NULL but n > 0: pass the output array"};
  return {y, n};
}

/// The C++ options of a call: the mode (rejected if it names none) and the thread count (checked by the library).
inline detred::options options_of(detred_mode mode, int threads) { return {.mode = to_mode(mode), .threads = threads}; }

/// The options of a call that has no mode (exact sums and selections: every mode gives the same result).
inline detred::options options_of(int threads) { return {.threads = threads}; }

/// x, refused with DETRED_EMPTY and `message` when empty (min, max, argmin, argmax need an element). Checked here
/// rather than left to the library's detred::error so that the status tells an empty array from a bad argument.
template <class E>
std::span<const E> nonempty(std::span<const E> x, const char* message) {
  if (x.empty()) throw rejected{DETRED_EMPTY, message};
  return x;
}

/// The C value of a C++ result (the same value; statistics become their C struct).
template <class R>
R to_c(R v) {
  return v;
}
detred_statistics_f64 to_c(const detred::statistics<double>& s);
detred_statistics_f32 to_c(const detred::statistics<float>& s);

/// Runs compute() at the boundary and stores its C value in *result; on failure *result is left as it was.
template <class R, class Compute>
detred_status into(R* result, Compute&& compute) noexcept {
  return guarded([&] {
    require(result, "result is NULL: pass the address of the variable that receives the value");
    *result = to_c(compute());
  });
}

}  // namespace detred::c_api

// The exported functions, one macro per signature. C is the element type in C, E the library's (the same except for
// the 16-bit floats), R the result; `call` the C++ function, chosen among its overloads by E.

/// function(const C* x, size_t n, detred_mode mode, int threads, R* result): sum, asum, nrm2, stats.
#define DETRED_C_WITH_MODE(function, call, C, E, R)                                                   \
  extern "C" detred_status function(const C* x, size_t n, detred_mode mode, int threads, R* result) { \
    using namespace detred::c_api;                                                                    \
    return into(result, [&] { return call(elements<E>(x, n), options_of(mode, threads)); });          \
  }

/// function(const C* x, const C* y, size_t n, detred_mode mode, int threads, R* result): dot.
#define DETRED_C_TWO_ARRAYS_WITH_MODE(function, call, C, E, R)                                                    \
  extern "C" detred_status function(const C* x, const C* y, size_t n, detred_mode mode, int threads, R* result) { \
    using namespace detred::c_api;                                                                                \
    return into(result, [&] {                                                                                     \
      return call(elements<E>(x, n), elements<E>(y, n, "y is NULL but n > 0: pass the array, or n = 0"),          \
                  options_of(mode, threads));                                                                     \
    });                                                                                                           \
  }

/// function(const C* x, size_t n, int threads, R* result): exact integer sums, which no mode changes.
#define DETRED_C_EXACT(function, call, C, R)                                           \
  extern "C" detred_status function(const C* x, size_t n, int threads, R* result) {    \
    using namespace detred::c_api;                                                     \
    return into(result, [&] { return call(elements<C>(x, n), options_of(threads)); }); \
  }

/// function(const C* x, size_t n, detred_mode mode, int threads, R* y): the floating-point scans, written straight
/// into y (every check the library makes comes before its first write).
#define DETRED_C_SCAN_WITH_MODE(function, call, C, E, R)                                         \
  extern "C" detred_status function(const C* x, size_t n, detred_mode mode, int threads, R* y) { \
    using namespace detred::c_api;                                                               \
    return guarded([&] { call(elements<E>(x, n), outputs(y, n), options_of(mode, threads)); });  \
  }

/// function(const C* x, size_t n, int threads, R* y): the exact integer scans, through a scratch buffer so that an
/// output that does not fit (DETRED_OVERFLOW) leaves y as it was.
#define DETRED_C_SCAN_EXACT(function, call, C, R)                              \
  extern "C" detred_status function(const C* x, size_t n, int threads, R* y) { \
    using namespace detred::c_api;                                             \
    return guarded([&] {                                                       \
      const std::span<R> out = outputs(y, n);                                  \
      std::vector<R> scratch(n);                                               \
      call(elements<C>(x, n), std::span<R>(scratch), options_of(threads));     \
      std::copy(scratch.begin(), scratch.end(), out.begin());                  \
    });                                                                        \
  }

// The element types of the C API's sums and scans, each as its function-name suffix, C type, library type and result:
// X(name_suffix, call, C, E, R) for the floating-point types (16-bit floats summed in float), X(name_suffix, call, C,
// R) for the integers (exact, in 64 bits).
#define DETRED_C_FLOAT_TYPES(X, name, call)             \
  X(name##_f64, call, double, double, double)           \
  X(name##_f32, call, float, float, float)              \
  X(name##_f16, call, uint16_t, detred::float16, float) \
  X(name##_bf16, call, uint16_t, detred::bfloat16, float)
#define DETRED_C_INTEGER_TYPES(X, name, call) \
  X(name##_i32, call, int32_t, int64_t)       \
  X(name##_i64, call, int64_t, int64_t)       \
  X(name##_u32, call, uint32_t, uint64_t)     \
  X(name##_u64, call, uint64_t, uint64_t)

/// function(const C* x, size_t n, int threads, R* result) of a selection: DETRED_EMPTY for n == 0.
#define DETRED_C_SELECTION(function, call, C, R)                                                              \
  extern "C" detred_status function(const C* x, size_t n, int threads, R* result) {                           \
    using namespace detred::c_api;                                                                            \
    return into(result, [&] {                                                                                 \
      return call(nonempty(elements<C>(x, n), #function ": the array is empty (n = 0); it needs an element"), \
                  options_of(threads));                                                                       \
    });                                                                                                       \
  }
