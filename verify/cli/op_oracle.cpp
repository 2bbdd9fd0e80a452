// SPDX-License-Identifier: BSD-3-Clause
// See op_oracle.hpp.
#include "op_oracle.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <variant>

#include "exact_accumulator.hpp"
#include "exact_products.hpp"
#include "integer_sums.hpp"
#include "moments.hpp"
#include "norm_check.hpp"
#include "selection.hpp"

namespace detred::verify::cli {
namespace {

template <class T>
constexpr bool is_half_v = std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>;

// The type a floating-point result has for elements of type T (16-bit elements give float).
template <class T>
using float_result_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

template <class R>
R value_of(const result_bits& r) {
  if constexpr (std::is_same_v<R, double>) {
    return as_double(r);
  } else {
    return as_float(r);
  }
}

// A judgement from an assessment (a bound check, or a measurement).
template <class R>
judgement from(const assessment& a, R expected, bool measured) {
  judgement j;
  j.check = measured ? judgement::kind::measured : judgement::kind::bound;
  j.status = a.status;
  j.expected = bits_of(expected);
  j.depth = a.factors.depth;
  j.correction_depth = a.factors.correction_depth;
  const bool finite =
      a.status == verdict::within_bound || a.status == verdict::bound_violated || a.status == verdict::measured;
  if (finite) {
    j.error_ulps = a.error_ulps;
    j.relative_error = a.relative_error;
    j.error = to_decimal(a.error, 17);
  }
  if (!measured) {
    j.bound = a.bound_upper;
    if (finite) j.error_over_bound = a.error_over_bound;
  }
  return j;
}

// A judgement of equality with an exact result.
judgement exact_match(const result_bits& result, const result_bits& expected) {
  judgement j;
  j.check = judgement::kind::exact;
  j.expected = expected;
  j.bound = 0;
  j.status = result == expected ? verdict::within_bound : verdict::bound_violated;
  if (j.status == verdict::within_bound) j.error_ulps = 0;
  return j;
}

template <class I>
judgement judge_integer_sum(const exact_integer_sum& exact, const result_bits& r) {
  result_bits expected{std::is_signed_v<I> ? dtype::int64 : dtype::uint64, exact.bits, {}};
  if (!exact.fits) expected.refused = "the exact sum " + exact.decimal + " does not fit";
  judgement j;
  j.check = judgement::kind::exact;
  j.expected = expected;
  j.bound = 0;
  // A refusal is right exactly when the sum does not fit; otherwise the bits must be the exact sum's.
  const bool right = exact.fits ? (r.refused.empty() && r.bits == exact.bits) : !r.refused.empty();
  j.status = right ? verdict::within_bound : verdict::bound_violated;
  if (right) j.error_ulps = 0;
  return j;
}

// min and max: the selections' results (NaN for no elements).
template <class T>
judgement judge_stats(const std::string& name, std::uint64_t n, const exact_moments& m, const result_bits& min,
                      const result_bits& max, const result_bits& r) {
  if (name == "count") return exact_match(r, bits_of(n));
  if (name == "min" || name == "max") return exact_match(r, name == "min" ? min : max);
  const T v = value_of<T>(r);
  if (name == "sum") return from(assess(m.sums, v, detred::mode::tree), correctly_rounded<T>(m.sums), false);
  if (name == "mean") {
    const T expected = std::is_same_v<T, double> ? static_cast<T>(correctly_rounded_mean_f64(m.sums))
                                                 : static_cast<T>(correctly_rounded_mean_f32(m.sums));
    return from(assess_mean(m.sums, v, detred::mode::tree), expected, false);
  }
  moment which = moment::variance;
  if (name == "sample_variance") which = moment::sample_variance;
  if (name == "stddev") which = moment::stddev;
  if (name == "sample_stddev") which = moment::sample_stddev;
  if (name != "variance" && name != "sample_variance" && name != "stddev" && name != "sample_stddev") {
    throw std::logic_error("judge_stats: unknown output " + name);
  }
  const T expected = std::is_same_v<T, double> ? static_cast<T>(correctly_rounded_moment_f64(which, m))
                                               : static_cast<T>(correctly_rounded_moment_f32(which, m));
  const assessment a = assess_moment(which, m, v);
  return from(a, expected, a.status == verdict::measured);
}

}  // namespace

// The exact data of one operation over elements of type T, accumulated chunk by chunk.
struct op_oracle::accumulators {
  virtual ~accumulators() = default;
  virtual void add(const dataset::values_type& x, const std::optional<dataset::values_type>& y) = 0;
  virtual op_oracle::exact_data finish() = 0;
};

namespace {

// 16-bit elements widened exactly to float, a block at a time, so that the oracle never holds a float copy.
template <class H, class F>
void widened(std::span<const H> x, std::span<const H> y, F&& add) {
  constexpr std::size_t block = 4096;
  std::array<float, block> xf{}, yf{};
  for (std::size_t start = 0; start < x.size(); start += block) {
    const std::size_t count = x.size() - start < block ? x.size() - start : block;
    for (std::size_t i = 0; i < count; ++i) {
      xf[i] = detred::to_float(x[start + i]);
      if (!y.empty()) yf[i] = detred::to_float(y[start + i]);
    }
    add(std::span<const float>(xf.data(), count), std::span<const float>(yf.data(), y.empty() ? 0 : count));
  }
}

template <class T>
struct typed_accumulators final : op_oracle::accumulators {
  explicit typed_accumulators(op operation) : o(operation) {
    if constexpr (std::is_integral_v<T>) {
      if (o == op::sum) integers = std::make_unique<integer_sum_accumulator>(std::is_signed_v<T>);
    } else {
      // The operations with modes sum one term per element (their form in the catalogue): values and magnitudes
      // go to the exact sum, products and squares to the exact sum of products. stats needs both.
      if (o == op::stats || (has_form && !by_products)) sums.emplace();
      if (o == op::stats || (has_form && by_products)) products.emplace();
    }
  }

  static constexpr bool adds_products(op o) {
    return catalogue::has_form(o) && (catalogue::form_of(o).adds == catalogue::terms::products ||
                                      catalogue::form_of(o).adds == catalogue::terms::squares);
  }

  void add(const dataset::values_type& xv, const std::optional<dataset::values_type>& yv) override {
    const auto x = std::get<std::span<const T>>(xv);
    n += x.size();
    if constexpr (std::is_integral_v<T>) {
      if (o == op::sum) integers->add(x);
      if (o == op::min || o == op::argmin) low.add(x);
      if (o == op::max || o == op::argmax) high.add(x);
    } else if constexpr (is_half_v<T>) {
      const std::span<const T> y = yv ? std::get<std::span<const T>>(*yv) : std::span<const T>();
      widened(x, y, [&](std::span<const float> xf, std::span<const float> yf) { add_terms(xf, yf); });
    } else {
      add_terms(x, yv ? std::get<std::span<const T>>(*yv) : std::span<const T>());
      if (o == op::stats) products->add(x, x);
      if (o == op::min || o == op::argmin || o == op::stats) low.add(x);
      if (o == op::max || o == op::argmax || o == op::stats) high.add(x);
    }
  }

  op_oracle::exact_data finish() override;

  /// The terms of an operation with a form (values, magnitudes: sums; products with y, squares: products).
  template <class F>
  void add_terms(std::span<const F> x, std::span<const F> y) {
    if (sums) sums->add(x);
    if (!has_form || !products) return;
    if (catalogue::form_of(o).adds == catalogue::terms::products) {
      products->add(x, y);
    } else {
      products->add(x, x);
    }
  }

  op o;
  bool has_form = catalogue::has_form(o);
  bool by_products = adds_products(o);
  std::uint64_t n = 0;
  std::optional<exact_accumulator> sums;        // sum, asum, stats
  std::optional<product_accumulator> products;  // dot, nrm2 and stats (x with itself)
  std::unique_ptr<integer_sum_accumulator> integers;
  using selection_t = std::conditional_t<is_half_v<T>, float, T>;  // 16-bit floats have no selections
  running_selection<selection_t> low{true}, high{false};
};

}  // namespace

op_oracle::op_oracle(op o, const dataset::values_type& type)
    : op_(o), type_(std::visit([](auto s) { return dataset::values_type(decltype(s)()); }, type)) {
  accumulators_ = std::visit(
      [&](auto s) -> std::unique_ptr<accumulators> {
        using T = typename decltype(s)::value_type;
        return std::make_unique<typed_accumulators<T>>(o);
      },
      type_);
}

op_oracle::op_oracle(op o, const operands& in, const progress_callback& progress) : op_oracle(o, in.x) {
  // Elements between progress reports.
  constexpr std::uint64_t step = std::uint64_t{1} << 22;
  std::visit(
      [&](auto x) {
        using T = typename decltype(x)::value_type;
        const std::span<const T> y = in.y ? std::get<std::span<const T>>(*in.y) : std::span<const T>();
        for (std::size_t start = 0; start < x.size(); start += step) {
          const std::size_t count = std::min<std::size_t>(step, x.size() - start);
          std::optional<dataset::values_type> ys;
          if (in.y) ys = y.subspan(start, count);
          add(x.subspan(start, count), ys);
          if (progress) progress(start + count);
        }
      },
      in.x);
  finish();
}

op_oracle::~op_oracle() = default;

void op_oracle::add(const dataset::values_type& x, const std::optional<dataset::values_type>& y) {
  accumulators_->add(x, y);
}

void op_oracle::finish() {
  exact_data d = accumulators_->finish();
  n_ = d.n;
  sums_ = std::move(d.sums);
  moments_ = std::move(d.moments);
  integer_sum_ = std::move(d.integer_sum);
  selected_ = d.selected;
  stats_max_ = d.stats_max;
}

namespace {

template <class T>
op_oracle::exact_data typed_accumulators<T>::finish() {
  op_oracle::exact_data oracle;
  oracle.n = n;
  if constexpr (std::is_integral_v<T>) {
    if (o == op::sum) oracle.integer_sum = integers->result();
  } else {
    if (o == op::stats) {
      oracle.moments = exact_moments{sum_totals(*sums), products->totals()};
    } else if (has_form) {
      oracle.sums = by_products                                                  ? products->totals()
                    : catalogue::form_of(o).adds == catalogue::terms::magnitudes ? asum_totals(*sums)
                                                                                 : sum_totals(*sums);
    }
  }
  if constexpr (!is_half_v<T>) {
    if (n == 0) {  // only stats reads an empty input: its min and max are NaN
      if constexpr (std::is_floating_point_v<T>) {
        oracle.selected = oracle.stats_max = bits_of(std::numeric_limits<T>::quiet_NaN());
      }
      return oracle;
    }
    if (o == op::min || o == op::stats) oracle.selected = bits_of(low.value());
    if (o == op::argmin) oracle.selected = bits_of(low.index());
    if (o == op::max) oracle.selected = bits_of(high.value());
    if (o == op::argmax) oracle.selected = bits_of(high.index());
    if (o == op::stats) {
      oracle.stats_max = bits_of(high.value());
      if (!oracle.moments) return oracle;
      oracle.moments->min = static_cast<double>(low.value());  // exact: a double holds every float
      oracle.moments->max = static_cast<double>(high.value());
    }
  }
  return oracle;
}

}  // namespace

judgement op_oracle::judge(const std::string& name, std::optional<detred::mode> m, const result_bits& r) const {
  return std::visit(
      [&](auto x) -> judgement {
        using T = typename decltype(x)::value_type;
        if constexpr (std::is_integral_v<T>) {
          if (op_ == op::sum) return judge_integer_sum<T>(*integer_sum_, r);
          return exact_match(r, selected_);
        } else {
          using R = float_result_t<T>;
          if constexpr (!is_half_v<T>) {
            if (op_ == op::min || op_ == op::max || op_ == op::argmin || op_ == op::argmax) {
              return exact_match(r, selected_);
            }
            if (op_ == op::stats) return judge_stats<T>(name, n_, *moments_, selected_, stats_max_, r);
          }
          const detred::mode mode = m.value_or(detred::mode::tree);
          if (!catalogue::has_form(op_)) {
            throw std::logic_error(std::string("op_oracle: --op ") + to_string(op_) + " on an element type it rejects");
          }
          // The operation's form (the catalogue's) decides: the exact sum of its terms rounded once, its square root
          // rounded once, or its quotient by n rounded once; tree and compensated results against its bound.
          const catalogue::form form = catalogue::form_of(op_);
          constexpr bool is_double = std::is_same_v<R, double>;
          R correct{};
          switch (form.finishes) {
            case catalogue::finish::square_root:
              correct = is_double ? static_cast<R>(correctly_rounded_nrm2_f64(*sums_))
                                  : static_cast<R>(correctly_rounded_nrm2_f32(*sums_));
              break;
            case catalogue::finish::quotient:
              correct = is_double ? static_cast<R>(correctly_rounded_mean_f64(*sums_))
                                  : static_cast<R>(correctly_rounded_mean_f32(*sums_));
              break;
            case catalogue::finish::rounded:
              correct = correctly_rounded<R>(*sums_);
              break;
          }
          // Exact mode promises the correctly rounded result itself: 0 ulp from the oracle, nothing less.
          if (mode == detred::mode::exact) return exact_match(r, bits_of(correct));
          const R v = value_of<R>(r);
          switch (form.finishes) {
            case catalogue::finish::square_root:
              return from(assess_nrm2(*sums_, v, mode), correct, false);
            case catalogue::finish::quotient:
              return from(assess_mean(*sums_, v, mode), correct, false);
            case catalogue::finish::rounded:
              break;
          }
          return from(assess(form.bound, *sums_, v, mode), correct, false);
        }
      },
      type_);
}

}  // namespace detred::verify::cli
