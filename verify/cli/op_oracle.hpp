// The oracle's judgement of each result of an operation: against its documented bound (sum, dot, asum, nrm2, the
// mean), for equality with an exact scalar oracle (selections, integer sums, the count), or a measurement without a
// verdict (the variances and standard deviations).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common.hpp"
#include "moments.hpp"
#include "operations.hpp"
#include "oracle.hpp"

namespace detred::verify::cli {

struct judgement {
  enum class kind { bound, exact, measured };
  kind check = kind::bound;
  verdict status = verdict::within_bound;  ///< bound_violated also for an exact check that failed
  result_bits expected;                    ///< the exact result rounded once to nearest (or the exact result)
  std::optional<double> error_ulps;        ///< bound and measured checks; 0 for an exact match
  std::optional<double> bound;             ///< the bound rounded upward (bound checks); 0 for exact checks
  std::optional<double> error_over_bound;  ///< bound checks
  std::optional<double> relative_error;    ///< bound and measured checks
  std::string error;                       ///< the error to 17 digits (bound and measured checks)
  int depth = 0;                           ///< D(n)
  int correction_depth = 0;                ///< D'(n) in compensated mode
};

/// Computes the exact data an operation needs once (linear in n), then judges any number of results.
class op_oracle {
 public:
  op_oracle(op o, const operands& in, const progress_callback& progress = {});
  /// The judgement of result r of output `name` (operations.hpp) in mode m.
  judgement judge(const std::string& name, std::optional<detred::mode> m, const result_bits& r) const;

 private:
  op op_;
  const operands& in_;
  std::optional<exact_sums> sums_;        // sum, dot, asum, nrm2 (the sum of squares)
  std::optional<exact_moments> moments_;  // stats
};

}  // namespace detred::verify::cli
