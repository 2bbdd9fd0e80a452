// SPDX-License-Identifier: BSD-3-Clause
#include "targets.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace detred::bench {
namespace {

struct target_rule {
  const char* mode;
  bool (*applies)(std::uint64_t n, int threads);
  const char* baseline;
  double min_ratio;
  const char* rule;
  const char* type = nullptr;  ///< the element type the target is set for; nullptr: both
};

constexpr target_rule rules[] = {
    {"tree", [](std::uint64_t n, int t) { return n == (std::uint64_t{1} << 27) && t == 2; }, op::ceiling, 0.95,
     "2^27/2t: tree >= 0.95 x (d)"},
    {"compensated", [](std::uint64_t n, int t) { return n == (std::uint64_t{1} << 27) && t == 2; }, op::ceiling, 0.90,
     "2^27/2t: comp >= 0.90 x (d)"},
    {"tree", [](std::uint64_t n, int t) { return n == (std::uint64_t{1} << 16) && t == 1; }, op::ceiling, 0.90,
     "2^16/1t: tree >= 0.90 x (d)"},
    {"compensated", [](std::uint64_t n, int t) { return n == (std::uint64_t{1} << 16) && t == 1; }, op::ceiling, 0.40,
     "2^16/1t: comp >= 0.40 x (d)"},
    {"tree", [](std::uint64_t n, int) { return n <= (std::uint64_t{1} << 12); }, op::fastmath_serial, 0.70,
     "n<=2^12: tree >= 0.70 x (b)"},
    // Exact mode (docs/exact.md): against the plain fast-math loops, OpenMP for the large input; set for doubles.
    {"exact", [](std::uint64_t n, int t) { return n == (std::uint64_t{1} << 27) && t == 2; }, op::fastmath_omp, 0.50,
     "2^27/2t: exact >= 0.50 x (c)", "double"},
    {"exact", [](std::uint64_t n, int t) { return n == (std::uint64_t{1} << 16) && t == 1; }, op::fastmath_serial, 0.25,
     "2^16/1t: exact >= 0.25 x (b)", "double"},
};

}  // namespace

std::optional<double> ratio_to(const ratios& r, const std::string& baseline) {
  if (baseline == op::ceiling) return r.ceiling;
  if (baseline == op::fastmath_omp) return r.fastmath_omp;
  return r.fastmath_serial;
}

std::vector<target_check> targets_for(const measurement& m, const ratios& r) {
  std::vector<target_check> out;
  if (!m.is_detred()) return out;
  for (const target_rule& t : rules) {
    if (m.mode != t.mode || !t.applies(m.n, m.threads) || (t.type != nullptr && m.type != t.type)) continue;
    const std::optional<double> ratio = ratio_to(r, t.baseline);
    if (!ratio) continue;  // the baseline was not part of this run
    out.push_back({t.rule, t.baseline, t.min_ratio, *ratio >= t.min_ratio});
  }
  return out;
}

}  // namespace detred::bench
