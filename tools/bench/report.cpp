// SPDX-License-Identifier: BSD-3-Clause
#include "report.hpp"

#include <algorithm>
#include <optional>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "detred/cpu.hpp"
#include "detred/order.hpp"
#include "targets.hpp"

namespace detred::bench {
namespace {

int op_rank(const measurement& m) {
  if (m.is_detred()) return m.mode == "tree" ? 0 : 1;
  if (m.op == op::fastmath_omp) return 2;
  if (m.op == op::ceiling) return 3;
  if (m.op == op::strict_serial) return 4;
  return 5;
}

std::string ratio_cell(std::optional<double> r) { return r ? fmt::format("{:6.2f}", *r) : fmt::format("{:>6}", "-"); }

std::string target_cell(const row& r) {
  std::string cell;
  for (const target_check& t : r.targets) {
    if (!cell.empty()) cell += "; ";
    // The measured ratio with three digits: the ratio columns round 0.896 up to 0.90.
    const std::optional<double> ratio = ratio_to(r.r, t.baseline);
    cell += fmt::format("{} {:.3f} {}", t.pass ? "PASS" : "MISS", ratio.value_or(0), t.rule);
  }
  return cell;
}

cell optional_cell(std::optional<double> v) { return v ? cell(*v) : cell(std::monostate{}); }

}  // namespace

std::vector<row> sorted_for_table(std::vector<row> rows) {
  std::stable_sort(rows.begin(), rows.end(), [](const row& a, const row& b) {
    if (a.m.threads != b.m.threads) return a.m.threads < b.m.threads;
    return op_rank(a.m) < op_rank(b.m);
  });
  return rows;
}

void print_table_header(std::ostream& out) {
  fmt::print(
      out,
      "Gelem/s and GB/s: medians over the rounds; spread: (max - min) / median over the rounds.\n"
      "x(a) strict serial loop, x(b) fastmath_baseline serial loop: -O3 -march=native -ffast-math (both one thread), "
      "x(c) fast-math OpenMP reduction, x(d) bandwidth ceiling (the fastest ceiling shape, or (c) or (b) "
      "if faster), both at the row's threads.\n\n");
  fmt::print(out, "{:<6} {:>5} {:>3} {:<15} {:<11} {:>8} {:>7} {:>6} {:>6} {:>6} {:>6} {:>6}  {}\n", "type", "n", "thr",
             "op", "mode", "Gelem/s", "GB/s", "spread", "x(a)", "x(b)", "x(c)", "x(d)", "target");
}

void print_table_rows(std::ostream& out, const std::vector<row>& rows) {
  for (const row& r : rows) {
    const measurement& m = r.m;
    const std::string op_cell = m.is_detred() ? m.op + "/" + m.isa : m.op;
    fmt::print(out, "{:<6} {:>5} {:>3} {:<15} {:<11} {:>8.2f} {:>7.1f} {:>5.0f}% {} {} {} {}  {}{}\n", m.type,
               format_size(m.n), m.threads, op_cell, m.mode, m.gelem, m.gbytes(), 100 * m.spread(),
               ratio_cell(r.r.strict_serial), ratio_cell(r.r.fastmath_serial), ratio_cell(r.r.fastmath_omp),
               ratio_cell(r.r.ceiling), target_cell(r), m.bit_mismatches != 0 ? "  BITS DIFFER" : "");
  }
  out << "\n";
}

int print_target_summary(std::ostream& out, const std::vector<row>& rows) {
  int pass = 0;
  int miss = 0;
  for (const row& r : rows) {
    for (const target_check& t : r.targets) (t.pass ? pass : miss)++;
  }
  fmt::print(out, "targets: {} PASS, {} MISS\n", pass, miss);
  for (const row& r : rows) {
    for (const target_check& t : r.targets) {
      if (t.pass) continue;
      const std::optional<double> ratio = ratio_to(r.r, t.baseline);
      fmt::print(out, "  MISS {} {} threads={} {}: {} (measured {:.3f})\n", r.m.type, format_size(r.m.n), r.m.threads,
                 r.m.isa, t.rule, ratio.value_or(0));
    }
  }
  return miss;
}

void record_rows(run_record& record, const std::vector<row>& rows) {
  for (const row& r : rows) {
    const measurement& m = r.m;
    std::string rules;
    std::string verdicts;
    for (const target_check& t : r.targets) {
      rules += (rules.empty() ? "" : "; ") + t.rule;
      verdicts += (verdicts.empty() ? "" : "; ") + std::string(t.pass ? "PASS" : "MISS");
    }
    record.add({{"type", m.type},
                {"n", format_size(m.n)},
                {"threads", std::int64_t{m.threads}},
                {"op", m.is_detred() ? m.op + "/" + m.isa : m.op},
                {"mode", m.mode},
                {"gelem_per_s", m.gelem},
                {"gb_per_s", m.gbytes()},
                {"spread", m.spread()},
                {"x_strict_serial", optional_cell(r.r.strict_serial)},
                {"x_fastmath_serial", optional_cell(r.r.fastmath_serial)},
                {"x_fastmath_omp", optional_cell(r.r.fastmath_omp)},
                {"x_ceiling", optional_cell(r.r.ceiling)},
                {"target", rules},
                {"verdict", verdicts},
                {"bits", m.bit_mismatches == 0 ? "same bits" : "DIFFERENT BITS"}});
  }
}

}  // namespace detred::bench
