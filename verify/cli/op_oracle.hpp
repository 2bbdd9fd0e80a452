// SPDX-License-Identifier: BSD-3-Clause
// The oracle's judgement of each result of an operation: against its documented bound (sum, dot, asum, nrm2, the
// mean, the variances and standard deviations), for equality with an exact scalar oracle (selections, integer sums,
// the count), or a measurement without a verdict (a variance whose data's min and max the oracle lacks).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "common.hpp"
#include "integer_sums.hpp"
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
  /// Streaming: the oracle of `o` over elements of the type of `type` (an empty span of it, as
  /// element_stream::info().values() gives), fed with add() chunk by chunk, then finish().
  op_oracle(op o, const dataset::values_type& type);
  ~op_oracle();
  op_oracle(const op_oracle&) = delete;
  op_oracle& operator=(const op_oracle&) = delete;
  /// The next elements (x, and y for dot), of the constructor's type.
  void add(const dataset::values_type& x, const std::optional<dataset::values_type>& y);
  /// After the last add(): the exact data judge() reads.
  void finish();
  /// The judgement of result r of output `name` (operations.hpp) in mode m.
  judgement judge(const std::string& name, std::optional<detred::mode> m, const result_bits& r) const;

  /// What finish() computes from the accumulated elements.
  struct exact_data {
    std::uint64_t n = 0;
    std::optional<exact_sums> sums;
    std::optional<exact_moments> moments;
    std::optional<exact_integer_sum> integer_sum;
    result_bits selected;
    result_bits stats_max;
  };
  struct accumulators;

 private:
  op op_;
  dataset::values_type type_;  // an empty span of the element type, which judge() dispatches on
  std::unique_ptr<accumulators> accumulators_;
  std::uint64_t n_ = 0;
  std::optional<exact_sums> sums_;        // sum, dot, asum, nrm2 (the sum of squares)
  std::optional<exact_moments> moments_;  // stats
  std::optional<exact_integer_sum> integer_sum_;
  result_bits selected_;   // min, max, argmin, argmax; stats' min
  result_bits stats_max_;  // stats' max
};

}  // namespace detred::verify::cli
