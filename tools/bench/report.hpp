// SPDX-License-Identifier: BSD-3-Clause
// The readable table and the JSON document of detred-bench.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_options.hpp"
#include "measurement.hpp"

namespace detred::bench {

/// Rows of one (type, n) group, sorted for reading: by threads, then detred tree, compensated, (c), (d), (a), (b).
std::vector<row> sorted_for_table(std::vector<row> rows);

/// The column header and the explanation of the ratio columns.
void print_table_header(std::ostream& out);
void print_table_rows(std::ostream& out, const std::vector<row>& rows);
/// Counts of PASS and MISS, with each MISS spelled out. Returns the number of misses.
int print_target_summary(std::ostream& out, const std::vector<row>& rows);

nlohmann::json to_json(const std::vector<row>& rows, const bench_options& o);

}  // namespace detred::bench
