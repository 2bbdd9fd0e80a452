// SPDX-License-Identifier: BSD-3-Clause
// The partial-state tests' view of every operation: the single-array call's result bits, a state's result bits,
// and a state of a piece, for any (operation, mode, element type), so that one loop covers them all.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "detred/detred.hpp"
#include "detred/partial.hpp"

namespace detred::testing {

template <class R>
std::vector<std::byte> bytes_of(const R& r) {
  std::vector<std::byte> b(sizeof(R));
  std::memcpy(b.data(), &r, sizeof(R));
  return b;
}

template <class T>
constexpr bool is_integer_element = std::is_integral_v<T>;

/// The bits of the single-array call of op (mode m) on x (and y for dot).
template <class T>
std::vector<std::byte> one_call_bits(operation op, mode m, std::span<const T> x, std::span<const T> y,
                                     const options& base = {}) {
  options opt = base;
  opt.mode = m;
  // An operation without a named call: detred::reduce, of its result type (the element's, or float for 16-bit).
  const auto generic = [&] {
    using R = std::conditional_t<std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>, float, T>;
    R r{};
    detred::reduce(op, element_type_of<T>(), x.data(), x.size(), y.data(), y.size(), &r, opt);
    return bytes_of(r);
  };
  if (op == operation::sumsq || op == operation::mean) return generic();
  if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
    if (op == operation::dot) return bytes_of(detred::dot(x, y, opt));
    return bytes_of(detred::sum(x, opt));
  } else if constexpr (is_integer_element<T>) {
    switch (op) {
      case operation::sum:
        return bytes_of(detred::sum(x, opt));
      case operation::min:
        return bytes_of(detred::min(x, opt));
      case operation::max:
        return bytes_of(detred::max(x, opt));
      case operation::argmin:
        return bytes_of(detred::argmin(x, opt));
      default:
        return bytes_of(detred::argmax(x, opt));
    }
  } else {
    switch (op) {
      case operation::sum:
        return bytes_of(detred::sum(x, opt));
      case operation::dot:
        return bytes_of(detred::dot(x, y, opt));
      case operation::asum:
        return bytes_of(detred::asum(x, opt));
      case operation::nrm2:
        return bytes_of(detred::nrm2(x, opt));
      case operation::min:
        return bytes_of(detred::min(x, opt));
      case operation::max:
        return bytes_of(detred::max(x, opt));
      case operation::argmin:
        return bytes_of(detred::argmin(x, opt));
      case operation::argmax:
        return bytes_of(detred::argmax(x, opt));
      case operation::stats:
        return bytes_of(detred::stats(x, opt));
      case operation::cumsum:  // no partial state object (detred/scan.hpp has the scans' pieces)
      case operation::exclusive_cumsum:
      case operation::sumsq:  // above
      case operation::mean:
        break;
    }
  }
  return {};
}

/// The bits of a complete state's result, asked for as the single-array call's result type.
template <class T>
std::vector<std::byte> result_bits(const partial_state& s) {
  const operation op = s.operation();
  if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
    return bytes_of(s.result<float>());
  } else if constexpr (is_integer_element<T>) {
    if (op == operation::sum)
      return bytes_of(s.result<std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>>());
    if (op == operation::argmin || op == operation::argmax) return bytes_of(s.result<std::uint64_t>());
    return bytes_of(s.result<T>());
  } else {
    if (op == operation::argmin || op == operation::argmax) return bytes_of(s.result<std::uint64_t>());
    if (op == operation::stats) return bytes_of(s.result<statistics<T>>());
    return bytes_of(s.result<T>());
  }
}

/// The state of op over elements [begin, end) of x (and y).
template <class T>
partial_state piece_state(operation op, std::span<const T> x, std::span<const T> y, std::uint64_t begin,
                          std::uint64_t end, const options& opt) {
  if constexpr (!is_integer_element<T>) {
    if (op == operation::dot) {
      return partial_state::of(operation::dot, x.subspan(begin, end - begin), y.subspan(begin, end - begin), begin,
                               opt);
    }
  }
  return partial_state::of(op, x.subspan(begin, end - begin), begin, opt);
}

/// A (operation, mode) the element type T has.
struct op_case {
  operation op;
  mode m;
};

template <class T>
std::vector<op_case> cases_for() {
  if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
    return {{operation::sum, mode::tree},  {operation::sum, mode::compensated},
            {operation::dot, mode::tree},  {operation::dot, mode::compensated},
            {operation::mean, mode::tree}, {operation::mean, mode::compensated}};
  } else if constexpr (is_integer_element<T>) {
    return {{operation::sum, mode::tree},
            {operation::min, mode::tree},
            {operation::max, mode::tree},
            {operation::argmin, mode::tree},
            {operation::argmax, mode::tree}};
  } else {
    return {{operation::sum, mode::tree},        {operation::sum, mode::compensated},
            {operation::dot, mode::tree},        {operation::dot, mode::compensated},
            {operation::asum, mode::tree},       {operation::asum, mode::compensated},
            {operation::nrm2, mode::tree},       {operation::nrm2, mode::compensated},
            {operation::min, mode::tree},        {operation::max, mode::tree},
            {operation::argmin, mode::tree},     {operation::argmax, mode::tree},
            {operation::stats, mode::tree},      {operation::mean, mode::tree},
            {operation::mean, mode::compensated}};
  }
}

inline std::string describe(const op_case& c) { return std::string(to_string(c.op)) + "/" + to_string(c.m); }

}  // namespace detred::testing
