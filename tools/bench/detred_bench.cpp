// SPDX-License-Identifier: BSD-3-Clause
// detred-bench: detred::sum against the baselines of baselines.hpp, interleaved on the same buffers, with a
// PASS/MISS column for the performance targets. docs/benchmarks.md explains the output.
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "aligned_buffer.hpp"
#include "bench_options.hpp"
#include "detred/cpu.hpp"
#include "detred/order.hpp"
#include "measure_group.hpp"
#include "report.hpp"

namespace {

using namespace detred::bench;

/// The 1-minute load average: other work on the machine is the main source of noise, two-thread rows above all
/// (the second thread waits for a free core), so the table says how busy the machine was.
std::string load_average() {
  std::ifstream f("/proc/loadavg");
  std::string one_minute;
  f >> one_minute;
  return f ? one_minute : "unknown";
}

/// One buffer per (type, n), filled once; every variant of every round reads it.
template <class T>
std::vector<row> run_type(const bench_options& o, std::ostream& table) {
  std::vector<row> all;
  for (std::uint64_t n : o.sizes) {
    aligned_buffer<T> x(n);
    fill_uniform(x);
    std::vector<row> rows = sorted_for_table(evaluate_group(measure_group<T>(x.span(), o)));
    print_table_rows(table, rows);
    table.flush();
    all.insert(all.end(), rows.begin(), rows.end());
  }
  return all;
}

}  // namespace

int main(int argc, char** argv) {
  const bench_options o = parse_bench_options(argc, argv);
  run_record record("detred-bench", argc, argv);
  const bool json_to_stdout = o.json_path && *o.json_path == "-";
  std::ostream& table = json_to_stdout ? std::cerr : std::cout;

  const std::string load_at_start = load_average();
  table << "detred-bench: detred isa";
  for (detred::isa i : o.isas) table << " " << detred::to_string(detred::resolved_isa(i));
  table << ", " << o.rounds << " rounds, batches of >= " << o.timing.min_seconds * 1000 << " ms\n";
  print_table_header(table);
  std::vector<row> rows;
  for (const std::string& type : o.types) {
    std::vector<row> r = type == "double" ? run_type<double>(o, table) : run_type<float>(o, table);
    rows.insert(rows.end(), r.begin(), r.end());
  }
  print_target_summary(table, rows);
  table << "load average (1 min) at start " << load_at_start << ", at end " << load_average() << "\n";

  bool bits_ok = true;
  for (const row& r : rows) bits_ok = bits_ok && r.m.bit_mismatches == 0;

  if (o.json_path) {
    record.set("rounds", std::int64_t{o.rounds});
    record.set("order_version", std::int64_t{detred::order_version});
    record_rows(record, rows);
    if (!record.write(*o.json_path)) return 2;
  }
  // A missed target is a measurement, not a failure of the tool; differing bits are a failure.
  return bits_ok ? 0 : 1;
}
