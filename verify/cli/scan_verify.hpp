// SPDX-License-Identifier: BSD-3-Clause
// detred verify --op cumsum | exclusive_cumsum: a scan has one output per element, so its report is one row per mode
// that names the worst output, after every output of every path was compared bit for bit and every output of the
// first path was checked against its exact prefix sum (verify/oracle/scan_check.hpp).
#pragma once

#include <vector>

#include "common.hpp"
#include "operations.hpp"

namespace detred::verify::cli {

/// Runs the scan `o` on every path for each operand set and mode (the paths whose backend the catalogue has the scan
/// of the set's element type on), prints the text table (or, with json, one JSON
/// object) and returns the exit status (exit_status.hpp): 1 for a bitwise mismatch, 3 for an output above its bound
/// or an integer output that differs from the exact prefix sum, else 0.
int verify_scans(op o, const std::vector<operands>& sets, const std::vector<compute_path>& paths, bool json);

}  // namespace detred::verify::cli
