// SPDX-License-Identifier: BSD-3-Clause
// The batched entry points (detred/batched.hpp): segments and axes through their front door (batch_front_door.hpp);
// by key here: check the keys, pick the operator, route to the backend.
// By key on the CPU, the values stream through their bins' lane states (cpu::reduce_by_key, lib/cpu/by_key.cpp)
// where that is faster (cpu::streams_by_key); otherwise, on another backend and in exact mode they are grouped by a
// stable counting sort (group_by_key.hpp: each group keeps its values in index order), then reduced as segments.
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "batch_front_door.hpp"
#include "batch_route.hpp"
#include "core/batch_checks.hpp"
#include "core/operators.hpp"
#include "core/validate.hpp"
#include "cpu/by_key.hpp"
#include "detred/batched.hpp"
#include "group_by_key.hpp"

namespace detred {
namespace {

template <class Op, class K>
void by_key(std::span<const typename Op::input> values, std::span<const K> keys, std::span<typename Op::result> results,
            const options& opt, const char* what) {
  validate(opt);
  if constexpr (listed<Op, cpu::by_key_operators>) {
    const int threads = backend_of(opt) == backend::cpu ? cpu::thread_count(opt.threads) : 0;
    if (backend_of(opt) == backend::cpu &&
        cpu::streams_by_key(values.size(), results.size(), sizeof(typename Op::input) + sizeof(K), threads)) {
      grouping::check_lengths(keys.size(), values.size(), what);
      const std::uint64_t bad =
          cpu::reduce_by_key<Op>(values.data(), keys.data(), values.size(), results.size(), results.data(),
                                 {.threads = threads, .instruction_set = opt.isa});
      if (bad < values.size()) grouping::throw_not_a_bin(keys[bad], bad, results.size(), what);
      return;
    }
  }
  const grouped_values<typename Op::input> g = group_by_key(values, keys, results.size(), opt.threads, what);
  run_lines<Op>(order::operands<Op>{{g.values.data()}, 0}, g.values.size(), {.offsets = g.offsets.data()},
                results.size(), results.data(), opt);
}

/// The mode of a batched call, checked against the catalogue (the batched calls' call shapes).
template <class T>
mode checked(const options& o, operation op, call_shape s, const char* what) {
  return checked_mode<T>(o.mode, op, backend_of(o), s, what);
}

}  // namespace

// The named batched calls are the front door (batch_front_door.hpp) of their operation.
#define DETRED_SEGMENTS(T, name, R)                                                                    \
  void name(std::span<const T> v, segments s, std::span<R> r, const options& o) {                      \
    segments_front_door<operation::name, T>(v.data(), v.size(), nullptr, 0, s, r.data(), r.size(), o); \
  }
#define DETRED_AXIS(T, name, R)                                             \
  void name(matrix_view<T> a, int axis, std::span<R> r, const options& o) { \
    axis_front_door<operation::name, T>(a, axis, r.data(), r.size(), o);    \
  }
#define DETRED_BATCHED(T)                                                                                     \
  DETRED_SEGMENTS(T, sum, T)                                                                                  \
  DETRED_SEGMENTS(T, asum, T)                                                                                 \
  DETRED_SEGMENTS(T, nrm2, T)                                                                                 \
  DETRED_SEGMENTS(T, min, T)                                                                                  \
  DETRED_SEGMENTS(T, max, T)                                                                                  \
  DETRED_SEGMENTS(T, argmin, std::uint64_t)                                                                   \
  DETRED_SEGMENTS(T, argmax, std::uint64_t)                                                                   \
  DETRED_SEGMENTS(T, stats, statistics<T>)                                                                    \
  void dot(std::span<const T> x, std::span<const T> y, segments s, std::span<T> r, const options& o) {        \
    segments_front_door<operation::dot, T>(x.data(), x.size(), y.data(), y.size(), s, r.data(), r.size(), o); \
  }                                                                                                           \
  DETRED_AXIS(T, sum, T)                                                                                      \
  DETRED_AXIS(T, asum, T)                                                                                     \
  DETRED_AXIS(T, nrm2, T)                                                                                     \
  DETRED_AXIS(T, min, T)                                                                                      \
  DETRED_AXIS(T, max, T)                                                                                      \
  DETRED_AXIS(T, stats, statistics<T>)                                                                        \
  void sum_by_key(std::span<const T> v, std::span<const std::uint32_t> k, std::span<T> r, const options& o) { \
    with_operator<T, operation::sum>(checked<T>(o, operation::sum, call_shape::by_key, "detred::sum_by_key"), \
                                     [&]<class Op>() { by_key<Op>(v, k, r, o, "sum_by_key"); });              \
  }                                                                                                           \
  void sum_by_key(std::span<const T> v, std::span<const std::int64_t> k, std::span<T> r, const options& o) {  \
    with_operator<T, operation::sum>(checked<T>(o, operation::sum, call_shape::by_key, "detred::sum_by_key"), \
                                     [&]<class Op>() { by_key<Op>(v, k, r, o, "sum_by_key"); });              \
  }                                                                                                           \
  void stats_by_key(std::span<const T> v, std::span<const std::uint32_t> k, std::span<statistics<T>> r,       \
                    const options& o) {                                                                       \
    checked<T>(o, operation::stats, call_shape::by_key, "detred::stats_by_key");                              \
    by_key<order::moments_op<T>>(v, k, r, o, "stats_by_key");                                                 \
  }

DETRED_BATCHED(double)
DETRED_BATCHED(float)
// 16-bit floats: the sum only, in float.
DETRED_SEGMENTS(float16, sum, float)
DETRED_SEGMENTS(bfloat16, sum, float)
DETRED_AXIS(float16, sum, float)
DETRED_AXIS(bfloat16, sum, float)
#undef DETRED_BATCHED
#undef DETRED_SEGMENTS
#undef DETRED_AXIS

}  // namespace detred
