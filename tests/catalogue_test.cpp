// SPDX-License-Identifier: BSD-3-Clause
// The catalogue against the library: every combination it declares runs, every other mode is refused with the one
// message checked_mode gives. Host API on the CPU backend, for the call shapes array, segments, axis, by_key and
// partial_state (the CUDA side is in tests/cuda, where a device runs it), the scans included.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "core/validate.hpp"
#include "detred/catalogue.hpp"
#include "detred/detred.hpp"

namespace detred {
namespace {

template <class T>
std::vector<T> values(std::size_t n) {
  std::vector<T> x(n);
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
      x[i] = static_cast<T>(std::is_same_v<T, float16> ? 0x3c00 : 0x3f80);  // 1.0
    } else {
      x[i] = static_cast<T>(i % 7 + 1);
    }
  }
  return x;
}

/// The output type of a scan of T (detred/scan.hpp): float for 16-bit floats, int64 or uint64 for integers.
template <class T>
using scan_output_t = std::conditional_t<
    std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>, float,
    std::conditional_t<std::is_integral_v<T>, std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>, T>>;

/// Calls the scan `op` over x in the call shape `s` (and, where the output type is the input's, in place too).
template <class T>
void call_scan(operation op, call_shape s, const std::vector<T>& data, const options& opt) {
  using Out = scan_output_t<T>;
  const bool exclusive = op == operation::exclusive_cumsum;
  const std::span<const T> x(data);
  std::vector<Out> y(data.size());
  if (s == call_shape::array) {
    exclusive ? exclusive_cumsum(x, std::span<Out>(y), opt) : cumsum(x, std::span<Out>(y), opt);
    if constexpr (std::is_same_v<T, Out>) {
      std::vector<T> z = data;
      exclusive ? exclusive_cumsum(std::span<T>(z), opt) : cumsum(std::span<T>(z), opt);
    }
    return;
  }
  if (s == call_shape::segments) {
    const std::vector<std::uint64_t> offsets = {0, 3, data.size()};
    exclusive ? exclusive_cumsum(x, segments{offsets}, std::span<Out>(y), opt)
              : cumsum(x, segments{offsets}, std::span<Out>(y), opt);
    return;
  }
  if constexpr (std::is_same_v<Out, float> || std::is_same_v<Out, double>) {
    if (s == call_shape::axis && !exclusive) {
      if constexpr (std::is_same_v<T, Out>) {
        return cumsum(matrix_view<T>{data.data(), 2, data.size() / 2, data.size() / 2}, 1, std::span<Out>(y), opt);
      }
    }
    if (s == call_shape::partial_state && !exclusive) {
      std::vector<scan_total<Out>> totals(order::leaf_count<Out>(data.size()));
      cumsum_totals(x, std::span<scan_total<Out>>(totals), opt);
      return cumsum_piece(x, std::span<const scan_total<Out>>(), std::span<Out>(y), opt);
    }
  }
  FAIL() << "the catalogue has " << to_string(op) << " of " << to_string(element_type_of<T>()) << " in shape "
         << to_string(s) << ", which the public API does not offer";
}

/// Calls `op` over x (and x as y for dot) through the public single-array API, in the call shape `s`.
template <class T>
void call(operation op, call_shape s, const std::vector<T>& data, const options& opt) {
  const std::span<const T> x(data);
  if (catalogue::is_scan(op)) return call_scan(op, s, data, opt);
  if (s == call_shape::array) {
    switch (op) {
      case operation::sum:
        (void)sum(x, opt);
        return;
      case operation::dot:
        if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
          (void)dot(x, x, opt);
          return;
        }
        break;
      case operation::asum:
      case operation::nrm2:
      case operation::stats:
        if constexpr (std::is_floating_point_v<T>) {
          if (op == operation::asum) (void)asum(x, opt);
          if (op == operation::nrm2) (void)nrm2(x, opt);
          if (op == operation::stats) (void)stats(x, opt);
          return;
        }
        break;
      case operation::min:
      case operation::max:
      case operation::argmin:
      case operation::argmax:
        if constexpr (!std::is_same_v<T, float16> && !std::is_same_v<T, bfloat16>) {
          if (op == operation::min) (void)min(x, opt);
          if (op == operation::max) (void)max(x, opt);
          if (op == operation::argmin) (void)argmin(x, opt);
          if (op == operation::argmax) (void)argmax(x, opt);
          return;
        }
        break;
      case operation::cumsum:
      case operation::exclusive_cumsum:
        break;    // call_scan
      default: {  // an operation without a named call: detred::reduce, its one generic entry point
        alignas(16) std::byte result[sizeof(statistics<double>)];
        detred::reduce(op, element_type_of<T>(), x.data(), x.size(), x.data(), x.size(), result, opt);
        return;
      }
    }
    FAIL() << "the test has no call of " << to_string(op) << " of " << to_string(element_type_of<T>());
  }
  if (s == call_shape::partial_state) {
    if (op == operation::dot) {
      if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
        (void)partial_state::of(operation::dot, x, x, 0, opt);
      }
    } else {
      (void)partial_state::of(op, x, 0, opt);
    }
    return;
  }
  if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
    // The batches of 16-bit floats, in float: the sum's named calls, the others through detred::reduce.
    const std::vector<std::uint64_t> offsets = {0, 3, data.size()};
    std::vector<float> r(2);
    const matrix_view<T> a{data.data(), 2, data.size() / 2, data.size() / 2};
    if (s == call_shape::segments) {
      if (op == operation::sum) return sum(x, segments{offsets}, std::span<float>(r), opt);
      return detred::reduce(op, element_type_of<T>(), x.data(), x.size(), x.data(), x.size(), segments{offsets},
                            r.data(), 2, opt);
    }
    if (s == call_shape::axis) {
      if (op == operation::sum) return sum(a, 1, std::span<float>(r), opt);
      return detred::reduce(op, element_type_of<T>(), a.data, a.rows, a.cols, a.leading_dimension, a.layout, 1,
                            r.data(), 2, opt);
    }
  }
  if constexpr (std::is_floating_point_v<T>) {
    const std::vector<std::uint64_t> offsets = {0, 3, data.size()};
    std::vector<T> r(2);
    std::vector<std::uint64_t> index(2);
    std::vector<statistics<T>> st(2);
    const segments seg{offsets};
    const matrix_view<T> a{data.data(), 2, data.size() / 2, data.size() / 2};
    std::vector<std::uint32_t> keys(data.size());
    for (std::size_t i = 0; i < keys.size(); ++i) keys[i] = static_cast<std::uint32_t>(i % 2);
    const std::span<const std::uint32_t> k(keys);
    if (s == call_shape::segments) {
      if (op == operation::sum) return sum(x, seg, std::span<T>(r), opt);
      if (op == operation::dot) return dot(x, x, seg, std::span<T>(r), opt);
      if (op == operation::asum) return asum(x, seg, std::span<T>(r), opt);
      if (op == operation::nrm2) return nrm2(x, seg, std::span<T>(r), opt);
      if (op == operation::min) return min(x, seg, std::span<T>(r), opt);
      if (op == operation::max) return max(x, seg, std::span<T>(r), opt);
      if (op == operation::argmin) return argmin(x, seg, std::span<std::uint64_t>(index), opt);
      if (op == operation::argmax) return argmax(x, seg, std::span<std::uint64_t>(index), opt);
      if (op == operation::stats) return stats(x, seg, std::span<statistics<T>>(st), opt);
      // An operation without a named batched call: detred::reduce's batched core (2 results fit in st).
      return detred::reduce(op, element_type_of<T>(), x.data(), x.size(), x.data(), x.size(), seg, st.data(), 2, opt);
    }
    if (s == call_shape::axis) {
      if (op == operation::sum) return sum(a, 1, std::span<T>(r), opt);
      if (op == operation::asum) return asum(a, 1, std::span<T>(r), opt);
      if (op == operation::nrm2) return nrm2(a, 1, std::span<T>(r), opt);
      if (op == operation::min) return min(a, 1, std::span<T>(r), opt);
      if (op == operation::max) return max(a, 1, std::span<T>(r), opt);
      if (op == operation::stats) return stats(a, 1, std::span<statistics<T>>(st), opt);
      return detred::reduce(op, element_type_of<T>(), a.data, a.rows, a.cols, a.leading_dimension, a.layout, 1,
                            st.data(), 2, opt);
    }
    if (s == call_shape::by_key) {
      if (op == operation::sum) return sum_by_key(x, k, std::span<T>(r), opt);
      if (op == operation::stats) return stats_by_key(x, k, std::span<statistics<T>>(st), opt);
    }
  }
  FAIL() << "the catalogue has " << to_string(op) << " of " << to_string(element_type_of<T>()) << " in shape "
         << to_string(s) << ", which the public API does not offer";
}

constexpr call_shape host_shapes[] = {call_shape::array, call_shape::segments, call_shape::axis, call_shape::by_key,
                                      call_shape::partial_state};

TEST(Catalogue, EveryDeclaredCombinationRunsAndEveryOtherModeIsRefused) {
  int ran = 0;
  int refused = 0;
  for (operation op : catalogue::operations) {
    for (element_type t : catalogue::element_types) {
      for (call_shape s : host_shapes) {
        if (!catalogue::has(op, t, backend::cpu, s)) continue;
        for (mode m : catalogue::modes) {
          const bool declared = catalogue::supports(op, t, m, backend::cpu, s);
          const std::string what =
              std::string(to_string(op)) + " of " + to_string(t) + ", " + to_string(s) + ", mode " + to_string(m);
          with_type(t, [&]<class T>() {
            const std::vector<T> data = values<T>(10);
            try {
              call<T>(op, s, data, {.mode = m, .threads = 1});
              EXPECT_TRUE(declared) << what << " runs, but the catalogue does not declare it";
              ++ran;
            } catch (const error& e) {
              EXPECT_FALSE(declared) << what << " is declared, but throws: " << e.what();
              EXPECT_NE(std::string(e.what()).find(std::string("mode ") + to_string(m) + " is not available"),
                        std::string::npos)
                  << what << ": " << e.what();
              ++refused;
            }
          });
        }
      }
    }
  }
  // Guards against a loop that tests nothing: the catalogue has well over a hundred host combinations.
  EXPECT_GT(ran, 100);
  EXPECT_GT(refused, 10);
}

TEST(Catalogue, AnOperationAnElementTypeLacksIsRefusedByPartialStates) {
  const std::vector<float16> h = values<float16>(4);
  try {
    (void)partial_state::of(operation::nrm2, std::span<const float16>(h), 0);
    FAIL() << "nrm2 of float16 was accepted";
  } catch (const error& e) {
    EXPECT_NE(std::string(e.what()).find("float16 elements have no nrm2"), std::string::npos) << e.what();
  }
}

TEST(Catalogue, ScansHaveNoPartialStateObjectAndTheirHostPiecesRunOnTheCpu) {
  const std::vector<double> x = values<double>(4);
  std::vector<double> y(4);
  try {
    (void)partial_state::of(operation::cumsum, std::span<const double>(x), 0);
    FAIL() << "a partial state of cumsum was accepted";
  } catch (const error& e) {
    EXPECT_NE(std::string(e.what()).find("cumsum has no partial state object"), std::string::npos) << e.what();
  }
  static_assert(catalogue::has(operation::cumsum, element_type::float64, backend::cuda, call_shape::array));
  // The pieces of device memory are detred::cuda::cumsum_totals and cumsum_piece (tests/cuda); the host calls run
  // on the CPU and send backend::cuda there by name.
  static_assert(catalogue::has(operation::cumsum, element_type::float64, backend::cuda, call_shape::partial_state));
  static_assert(
      !catalogue::has(operation::exclusive_cumsum, element_type::float64, backend::cuda, call_shape::partial_state));
  std::vector<scan_total<double>> totals(1);
  try {
    cumsum_totals(std::span<const double>(x), std::span<scan_total<double>>(totals), {.backend = backend::cuda});
    FAIL() << "cumsum_totals on backend cuda was accepted";
  } catch (const error& e) {
    EXPECT_NE(std::string(e.what()).find("detred::cumsum_totals: host arrays are scanned in pieces on the CPU; for "
                                         "pieces in GPU memory call detred::cuda::cumsum_totals"),
              std::string::npos)
        << e.what();
  }
  try {
    cumsum_piece(std::span<const double>(x), {}, std::span<double>(y), {.backend = backend::cuda});
    FAIL() << "cumsum_piece on backend cuda was accepted";
  } catch (const error& e) {
    EXPECT_NE(std::string(e.what()).find("call detred::cuda::cumsum_piece"), std::string::npos) << e.what();
  }
  // A host array with backend::cuda runs on the GPU (tests/cuda), or is refused where there is none.
  if (!cuda::available()) {
    EXPECT_THROW(cumsum(std::span<const double>(x), std::span<double>(y), {.backend = backend::cuda}), error);
  }
  try {
    cumsum(std::span<const double>(x), std::span<double>(y), {.mode = mode::exact});
    FAIL() << "an exact cumsum was accepted";
  } catch (const error& e) {
    EXPECT_NE(std::string(e.what()).find("detred::cumsum: mode exact is not available (cumsum of float64 has no "
                                         "exact mode)"),
              std::string::npos)
        << e.what();
  }
  static_assert(catalogue::result_of(operation::cumsum, element_type::float16) == catalogue::result_kind::float32);
  static_assert(catalogue::result_of(operation::exclusive_cumsum, element_type::uint32) ==
                catalogue::result_kind::wide);
  static_assert(catalogue::mode_rule_of(operation::cumsum, element_type::int64) == catalogue::mode_rule::exact);
}

TEST(Catalogue, RefusalsSayWhereTheModeIsAvailable) {
  // Every exact shape of the CPU is on the GPU too but the partial states, which the host API builds on the CPU
  // only: the refusal of one is checked at the catalogue's one refusal (checked_mode).
  try {
    (void)checked_mode(mode::exact, operation::sum, element_type::float16, backend::cuda, call_shape::partial_state,
                       "detred::sum");
    FAIL() << "an exact partial state of float16 on backend cuda was accepted";
  } catch (const error& e) {
    EXPECT_NE(std::string(e.what()).find("detred::sum: mode exact is not available on backend cuda for partial_state "
                                         "(sum of float16 has it on backend cpu: array, segments, axis, "
                                         "partial_state; on backend cuda: array, segments, axis)"),
              std::string::npos)
        << e.what();
  }
  // A public call: exact stats, refused everywhere, says that stats has tree mode only.
  const std::vector<double> x = values<double>(10);
  try {
    (void)stats(std::span<const double>(x), {.mode = mode::exact});
    FAIL() << "exact stats accepted";
  } catch (const error& e) {
    EXPECT_NE(std::string(e.what()).find("(stats has tree mode only)"), std::string::npos) << e.what();
  }
}

TEST(Catalogue, ElementTypesAndNamesAgree) {
  EXPECT_EQ(element_type_of<double>(), element_type::float64);
  EXPECT_EQ(element_type_of<bfloat16>(), element_type::bfloat16);
  EXPECT_EQ(element_type_of<std::uint32_t>(), element_type::uint32);
  for (element_type t : catalogue::element_types) {
    with_type(t, [&]<class T>() { EXPECT_EQ(element_type_of<T>(), t) << to_string(t); });
  }
  EXPECT_STREQ(to_string(call_shape::by_key), "by_key");
  static_assert(
      catalogue::supports(operation::sum, element_type::float32, mode::exact, backend::cpu, call_shape::axis));
  static_assert(
      catalogue::supports(operation::nrm2, element_type::float64, mode::exact, backend::cpu, call_shape::array));
  static_assert(
      catalogue::supports(operation::nrm2, element_type::float64, mode::exact, backend::cuda, call_shape::array));
  static_assert(!catalogue::supports(operation::nrm2, element_type::float64, mode::exact, backend::cuda,
                                     call_shape::partial_state));
  // Exact mode's batches on the GPU: segments, both axes and groups by key, of float and double, once listed.
  constexpr bool listed = catalogue::exact_gpu_batches_listed;
  static_assert(listed == catalogue::supports(operation::nrm2, element_type::float64, mode::exact, backend::cuda,
                                              call_shape::segments));
  static_assert(listed == catalogue::supports(operation::mean, element_type::float32, mode::exact, backend::cuda,
                                              call_shape::axis));
  static_assert(listed == catalogue::supports(operation::dot, element_type::float32, mode::exact, backend::cuda,
                                              call_shape::segments));
  static_assert(listed == catalogue::supports(operation::sum, element_type::float64, mode::exact, backend::cuda,
                                              call_shape::by_key));
  static_assert(
      catalogue::supports(operation::sum, element_type::float64, mode::exact, backend::cpu, call_shape::segments));
  static_assert(listed == catalogue::supports(operation::sum, element_type::float16, mode::exact, backend::cuda,
                                              call_shape::segments));
  static_assert(!catalogue::supports(operation::sum, element_type::float16, mode::exact, backend::cuda,
                                     call_shape::partial_state));
  static_assert(
      catalogue::supports(operation::mean, element_type::bfloat16, mode::exact, backend::cuda, call_shape::array));
  static_assert(
      catalogue::supports(operation::dot, element_type::bfloat16, mode::exact, backend::cpu, call_shape::array));
  static_assert(
      !catalogue::supports(operation::stats, element_type::float32, mode::exact, backend::cpu, call_shape::array));
  static_assert(catalogue::mode_rule_of(operation::stats, element_type::float64) == catalogue::mode_rule::tree_only);
  static_assert(catalogue::result_of(operation::sum, element_type::int32) == catalogue::result_kind::wide);
  static_assert(
      catalogue::supports(operation::sum, element_type::float16, mode::compensated, backend::cuda, call_shape::axis));
  // Exact batches of 16-bit floats: the CPU's, and the GPU's where its exact batches are listed.
  static_assert(
      catalogue::supports(operation::sum, element_type::bfloat16, mode::exact, backend::cpu, call_shape::segments));
  static_assert(catalogue::exact_gpu_batches_listed == catalogue::supports(operation::sum, element_type::bfloat16,
                                                                           mode::exact, backend::cuda,
                                                                           call_shape::segments));
  static_assert(
      catalogue::supports(operation::dot, element_type::float16, mode::exact, backend::cpu, call_shape::segments));
  static_assert(
      !catalogue::supports(operation::dot, element_type::float16, mode::exact, backend::cpu, call_shape::axis));
}

}  // namespace
}  // namespace detred
