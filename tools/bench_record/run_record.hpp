// SPDX-License-Identifier: BSD-3-Clause
// One benchmark run as data: the tool and its arguments, the machine, the commit, the date and one object per row,
// written as JSON by every benchmark's --json FILE. docs/benchmarks.md ("Results as data") says how the documents
// render these files (tools/bench_record/render_results.py). A plain header (no JSON library in it), so that the
// CUDA benchmarks' .cu files can include it.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace detred::bench {

/// A value of a row: nothing (JSON null: a ratio to a baseline the row has not), text, a number, a count or a yes/no.
using cell = std::variant<std::monostate, std::string, double, std::int64_t, bool>;

/// One row: named values in the order the tool prints them.
using record_row = std::vector<std::pair<std::string, cell>>;

class run_record {
 public:
  /// tool: the program's name; argv: its command line, kept so that the run can be repeated.
  run_record(std::string tool, int argc, const char* const* argv);

  /// A fact of the whole run (threads, rounds, the instruction set, a GPU's name).
  void set(const std::string& key, cell value);
  void add(record_row row);

  /// Writes the document to `path` ("-": standard output). The load average is read again here, so the document
  /// shows how busy the machine was at the start and at the end. Returns false, after a message on standard error
  /// naming the file, when it cannot be written.
  bool write(const std::string& path) const;

 private:
  std::string tool_;
  std::vector<std::string> arguments_;
  std::string date_;
  double load_at_start_;
  std::vector<std::pair<std::string, cell>> facts_;
  std::vector<record_row> rows_;
};

}  // namespace detred::bench
