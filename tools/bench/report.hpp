// SPDX-License-Identifier: BSD-3-Clause
// The readable table of detred-bench and its rows as data (run_record).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "bench_options.hpp"
#include "measurement.hpp"
#include "run_record.hpp"

namespace detred::bench {

/// Rows of one (type, n) group, sorted for reading: by threads, then detred tree, compensated, (c), (d), (a), (b).
std::vector<row> sorted_for_table(std::vector<row> rows);

/// The column header and the explanation of the ratio columns.
void print_table_header(std::ostream& out);
void print_table_rows(std::ostream& out, const std::vector<row>& rows);
/// Counts of PASS and MISS, with each MISS spelled out. Returns the number of misses.
int print_target_summary(std::ostream& out, const std::vector<row>& rows);

/// The rows as data: one record row per printed row, the ratio columns null where the row has no such baseline.
void record_rows(run_record& record, const std::vector<row>& rows);

}  // namespace detred::bench
