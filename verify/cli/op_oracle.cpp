// See op_oracle.hpp.
#include "op_oracle.hpp"

#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <variant>

#include "exact_products.hpp"
#include "integer_sums.hpp"
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

template <class T>
judgement judge_selection(op o, std::span<const T> x, const result_bits& r) {
  switch (o) {
    case op::min:
      return exact_match(r, bits_of(oracle_min(x)));
    case op::max:
      return exact_match(r, bits_of(oracle_max(x)));
    case op::argmin:
      return exact_match(r, bits_of(oracle_argmin(x)));
    case op::argmax:
      return exact_match(r, bits_of(oracle_argmax(x)));
    default:
      break;
  }
  throw std::logic_error("judge_selection: not a selection");
}

template <class I>
judgement judge_integer_sum(std::span<const I> x, const result_bits& r) {
  const exact_integer_sum exact = exact_integer(x);
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

template <class T>
judgement judge_stats(const std::string& name, std::span<const T> x, const exact_moments& m, const result_bits& r) {
  if (name == "count") return exact_match(r, bits_of(static_cast<std::uint64_t>(x.size())));
  if (name == "min" || name == "max") {
    if (x.empty()) return exact_match(r, bits_of(std::numeric_limits<T>::quiet_NaN()));
    return exact_match(r, bits_of(name == "min" ? oracle_min(x) : oracle_max(x)));
  }
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
  return from(measure(which, m, v), expected, true);
}

}  // namespace

op_oracle::op_oracle(op o, const operands& in, const progress_callback& progress) : op_(o), in_(in) {
  std::visit(
      [&](auto x) {
        using T = typename decltype(x)::value_type;
        if constexpr (std::is_integral_v<T>) {
          return;  // integer sums and selections are judged directly from the data
        } else if constexpr (is_half_v<T>) {
          if (o == op::sum) sums_ = exact_sum(x, progress);
          if (o == op::dot) sums_ = exact_dot(x, std::get<std::span<const T>>(*in.y));
        } else {
          switch (o) {
            case op::sum:
              sums_ = exact_sum(x, progress);
              break;
            case op::dot:
              sums_ = exact_dot(x, std::get<std::span<const T>>(*in.y));
              break;
            case op::asum:
              sums_ = exact_asum(x, progress);
              break;
            case op::nrm2:
              sums_ = exact_sum_of_squares(x);
              break;
            case op::stats:
              moments_ = exact_moments_of(x);
              break;
            default:
              break;
          }
        }
      },
      in.x);
}

judgement op_oracle::judge(const std::string& name, std::optional<detred::mode> m, const result_bits& r) const {
  return std::visit(
      [&](auto x) -> judgement {
        using T = typename decltype(x)::value_type;
        if constexpr (std::is_integral_v<T>) {
          if (op_ == op::sum) return judge_integer_sum(x, r);
          return judge_selection(op_, x, r);
        } else {
          using R = float_result_t<T>;
          if constexpr (!is_half_v<T>) {
            if (op_ == op::min || op_ == op::max || op_ == op::argmin || op_ == op::argmax) {
              return judge_selection(op_, x, r);
            }
            if (op_ == op::stats) return judge_stats(name, x, *moments_, r);
          }
          const detred::mode mode = m.value_or(detred::mode::tree);
          // Exact mode promises the correctly rounded result itself: 0 ulp from the oracle, nothing less.
          if (mode == detred::mode::exact) return exact_match(r, bits_of(correctly_rounded<R>(*sums_)));
          const R v = value_of<R>(r);
          switch (op_) {
            case op::sum:
              return from(assess(bounded_op::sum, *sums_, v, mode), correctly_rounded<R>(*sums_), false);
            case op::dot:
              return from(assess(bounded_op::dot, *sums_, v, mode), correctly_rounded<R>(*sums_), false);
            case op::asum:
              return from(assess(bounded_op::asum, *sums_, v, mode), correctly_rounded<R>(*sums_), false);
            case op::nrm2: {
              const R expected = std::is_same_v<R, double> ? static_cast<R>(correctly_rounded_nrm2_f64(*sums_))
                                                           : static_cast<R>(correctly_rounded_nrm2_f32(*sums_));
              return from(assess_nrm2(*sums_, v, mode), expected, false);
            }
            default:
              break;
          }
          throw std::logic_error(std::string("op_oracle: --op ") + to_string(op_) + " on an element type it rejects");
        }
      },
      in_.x);
}

}  // namespace detred::verify::cli
