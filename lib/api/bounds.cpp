// SPDX-License-Identifier: BSD-3-Clause
// The error bounds of docs/error-bounds.md, with every factor rounded upward.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "core/validate.hpp"
#include "detred/bounds.hpp"
#include "detred/catalogue.hpp"
#include "detred/order.hpp"

namespace detred {
namespace {

constexpr double infinity = std::numeric_limits<double>::infinity();

// Each helper rounds its result one step upward (or downward), so that it lies above (below) the exact value whether
// or not the operation rounded: every factor below is a chain of these, hence an upper bound of the exact factor.
double up(double x) { return std::nextafter(x, infinity); }
double down(double x) { return std::nextafter(x, -infinity); }
double add_up(double a, double b) { return up(a + b); }
double mul_up(double a, double b) { return up(a * b); }
double div_up(double a, double b) { return up(a / b); }  // a >= 0, b > 0

// gamma_k = k u / (1 - k u). k u and 1 - k u are exact in double for the k and u that occur here (u a power of two,
// k < 2^20); only the division rounds, and round_up moves it above the exact value.
double gamma(int k, double u) {
  if (k <= 0) return 0.0;
  const double ku = k * u;
  if (ku >= 1.0) return infinity;
  return up(ku / (1.0 - ku));
}

// (1 + a)(1 + b) - 1 = a + b + a b, rounded upward.
double compose(double a, double b) { return add_up(add_up(a, b), mul_up(a, b)); }

// The relative error of sqrt(Q (1 + rho)) rounded once: |sqrt(1 + t)(1 + delta) - 1| <= u + (1 + u) rho / (2 - rho)
// for |t| <= rho, |delta| <= u (docs/error-bounds.md, nrm2).
double square_root_factor(double rho, double u) {
  if (rho >= 1.0) return infinity;
  return add_up(u, mul_up(1.0 + u, div_up(rho, down(2.0 - rho))));
}

// multiple * nu, rounded upward, with nu = half the smallest subnormal of T (the largest error of one rounding in the
// subnormal range). For double, nu = 2^-1075 is not a double itself, so the product is formed as
// (multiple / 2) * 2^-1074; it lies in the subnormal range, where it rounds, and `up` keeps it above the exact value.
template <class T>
double times_half_subnormal(double multiple) {
  return up(up(multiple * 0.5) * static_cast<double>(std::numeric_limits<T>::denorm_min()));
}

// n as a double, at least n.
double count_up(std::uint64_t n) { return up(static_cast<double>(n)); }

// True if n is a value of T (n has at most T's significand digits between its highest and lowest set bit).
template <class T>
bool count_is_exact(std::uint64_t n) {
  if (n == 0) return true;
  while ((n & 1) == 0) n >>= 1;
  return n < (std::uint64_t{1} << std::numeric_limits<T>::digits);
}

/// True for exact mode, the one mode outside the canonical order's (catalogue::rounding_modes): its result is the
/// exact value rounded once, whatever n.
bool rounds_once(mode m) { return !catalogue::in(catalogue::rounding_modes, m); }

template <class T>
error_bound sum_bound(std::uint64_t n, mode m) {
  const double u = order::unit_roundoff<T>;
  error_bound b{};
  b.depth = order::depth<T>(n);
  b.unit_roundoff = u;
  const mode checked = validated(m);
  if (checked == mode::tree) {
    b.correction_depth = 0;
    b.result_factor = 0.0;
    b.abs_sum_factor = gamma(b.depth, u);
  } else if (checked == mode::compensated) {
    b.correction_depth = order::correction_depth<T>(n);
    b.result_factor = u;
    // (1 + u) is exact; each product is rounded up.
    b.abs_sum_factor = mul_up(mul_up(1.0 + u, gamma(b.depth, u)), gamma(b.correction_depth, u));
  } else {
    // Exact mode, the one mode without an order: one rounding of the exact sum, to nearest: |R - result| <= u |R|.
    // No tree, so no depth. (A sum of values of T that falls below the normal range is a multiple of the smallest
    // subnormal, so it rounds exactly.)
    b.depth = 0;
    b.correction_depth = 0;
    b.result_factor = u;
    b.abs_sum_factor = 0.0;
  }
  return b;
}

// dot: each product rounds once before the sum's D additions (gamma_{D+1}); in compensated mode the products'
// errors (TwoProduct) join the correction sum one addition deeper (D' + 1). The absolute terms bound the products
// that fall below the normal range, where a rounding error is up to half a subnormal rather than u |x y|.
template <class T>
error_bound dot_bound(std::uint64_t n, mode m) {
  const double u = order::unit_roundoff<T>;
  error_bound b = sum_bound<T>(n, m);
  const double gamma_d = gamma(b.depth, u);
  if (rounds_once(m)) {  // exact mode: an exact dot below the normal range rounds to a subnormal
    b.absolute = times_half_subnormal<T>(1.0);
    return b;
  }
  if (m == mode::tree) {
    b.abs_sum_factor = gamma(b.depth + 1, u);
    b.absolute = times_half_subnormal<T>(mul_up(1.0 + gamma_d, count_up(n)));
  } else {
    const double gamma_c = gamma(b.correction_depth + 1, u);
    b.abs_sum_factor = mul_up(mul_up(1.0 + u, gamma(b.depth + 1, u)), gamma_c);
    // (1 + u) (1 + gamma_{D'+1} (2 + gamma_D)) n nu
    b.absolute = times_half_subnormal<T>(
        mul_up(mul_up(1.0 + u, add_up(1.0, mul_up(gamma_c, add_up(2.0, gamma_d)))), count_up(n)));
  }
  return b;
}

// asum: the sum of |x_i|, whose terms are all nonnegative, so sum |x_i| = |R| and the sum's bound is relative.
template <class T>
error_bound asum_bound(std::uint64_t n, mode m) {
  error_bound b = sum_bound<T>(n, m);
  b.result_factor = add_up(b.result_factor, b.abs_sum_factor);
  b.abs_sum_factor = 0.0;
  return b;
}

// nrm2: the scaled sums of squares carry a relative error eps (tree: gamma_{D+1}; compensated:
// u + (1 + u)(u + gamma_{D'+1} gamma_{D+2})); combining them takes at most 8 more roundings plus one u for
// underflow in the combination (gamma_9); the square root and the result's own underflow complete it.
template <class T>
error_bound nrm2_bound(std::uint64_t n, mode m) {
  checked_mode<T>(m, operation::nrm2, backend::cpu, call_shape::array, "detred::bound(nrm2)");
  const double u = order::unit_roundoff<T>;
  error_bound b = sum_bound<T>(n, m);
  if (rounds_once(m)) {  // exact mode: the square root of the exact sum of squares, rounded once
    b.result_factor = u;
    b.abs_sum_factor = 0.0;
    b.absolute = times_half_subnormal<T>(1.0);
    return b;
  }
  double rho = 0;
  if (m == mode::tree) {
    rho = gamma(b.depth + 10, u);
  } else {
    const double eps =
        add_up(u, mul_up(1.0 + u, add_up(u, mul_up(gamma(b.correction_depth + 1, u), gamma(b.depth + 2, u)))));
    rho = compose(eps, gamma(9, u));
  }
  b.result_factor = square_root_factor(rho, u);
  b.abs_sum_factor = 0.0;
  b.absolute = times_half_subnormal<T>(1.0);
  return b;
}

// mean = fl(S^ / n^): one division, and n^ = fl(n) rounds too when n is not a value of T (float beyond 2^24).
// Exact mode: the exact S / n rounded once (a quotient below the normal range rounds to a subnormal).
template <class T>
error_bound mean_bound(std::uint64_t n, mode m) {
  const double u = order::unit_roundoff<T>;
  error_bound b = sum_bound<T>(n, m);
  if (rounds_once(validated(m))) {
    b.result_factor = u;
    b.abs_sum_factor = 0.0;
    b.absolute = times_half_subnormal<T>(1.0);
    return b;
  }
  // phi bounds |(1 + delta) / (1 + delta_n)|; phi - 1 bounds |(1 + delta) / (1 + delta_n) - 1|.
  const bool exact = count_is_exact<T>(n);
  const double phi_minus_one = exact ? u : div_up(2.0 * u, 1.0 - u);
  const double phi = add_up(1.0, phi_minus_one);
  b.result_factor = add_up(phi_minus_one, mul_up(phi, b.result_factor));
  b.abs_sum_factor = mul_up(phi, b.abs_sum_factor);
  b.absolute = times_half_subnormal<T>(1.0);
  return b;
}

}  // namespace

template <class T>
error_bound bound(std::uint64_t n, mode m) {
  return sum_bound<T>(n, m);
}

template <class T>
error_bound bound(bounded_op op, std::uint64_t n, mode m) {
  switch (op) {
    case bounded_op::sum:
      return sum_bound<T>(n, m);
    case bounded_op::dot:
      return dot_bound<T>(n, m);
    case bounded_op::asum:
      return asum_bound<T>(n, m);
    case bounded_op::nrm2:
      return nrm2_bound<T>(n, m);
    case bounded_op::mean:
      return mean_bound<T>(n, m);
  }
  throw error("unknown bounded_op " + std::to_string(static_cast<int>(op)) +
              " (expected sum, dot, asum, nrm2 or mean)");
}

template error_bound bound<double>(std::uint64_t n, mode m);
template error_bound bound<float>(std::uint64_t n, mode m);
template error_bound bound<double>(bounded_op op, std::uint64_t n, mode m);
template error_bound bound<float>(bounded_op op, std::uint64_t n, mode m);

}  // namespace detred
