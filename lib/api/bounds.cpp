// The error bounds of docs/error-bounds.md, with every factor rounded upward.
#include <cmath>
#include <cstdint>
#include <limits>

#include "detred/bounds.hpp"
#include "detred/order.hpp"
#include "validate.hpp"

namespace detred {
namespace {

constexpr double infinity = std::numeric_limits<double>::infinity();

double round_up(double x) { return std::nextafter(x, infinity); }

// gamma_k = k u / (1 - k u). k u and 1 - k u are exact in double for the k and u that occur here (u a power of two,
// k < 2^20); only the division rounds, and round_up moves it above the exact value.
double gamma(int k, double u) {
  if (k == 0) return 0.0;
  const double ku = k * u;
  if (ku >= 1.0) return infinity;
  return round_up(ku / (1.0 - ku));
}

template <class T>
error_bound bound_of(std::uint64_t n, mode m) {
  const double u = order::unit_roundoff<T>;
  error_bound b{};
  b.depth = order::depth<T>(n);
  b.unit_roundoff = u;
  switch (validated(m)) {
    case mode::tree:
      b.correction_depth = 0;
      b.result_factor = 0.0;
      b.abs_sum_factor = gamma(b.depth, u);
      break;
    case mode::compensated:
      b.correction_depth = order::correction_depth<T>(n);
      b.result_factor = u;
      // (1 + u) is exact; each product is rounded up.
      b.abs_sum_factor = round_up(round_up((1.0 + u) * gamma(b.depth, u)) * gamma(b.correction_depth, u));
      break;
  }
  return b;
}

}  // namespace

template <class T>
error_bound bound(std::uint64_t n, mode m) {
  return bound_of<T>(n, m);
}

template error_bound bound<double>(std::uint64_t n, mode m);
template error_bound bound<float>(std::uint64_t n, mode m);

}  // namespace detred
