// SPDX-License-Identifier: BSD-3-Clause
// detred verify INPUT... [--op OP]: every compute path, compared bit for bit, and the oracle's verdict on each result.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <omp.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "common.hpp"
#include "exit_status.hpp"
#include "fault_hook.hpp"
#include "op_oracle.hpp"
#include "operations.hpp"
#include "progress.hpp"
#include "scan_verify.hpp"
#include "streaming.hpp"

namespace detred::verify::cli {
namespace {

struct verify_options {
  std::vector<std::string> files;
  std::string op = "sum";
  std::vector<int> threads;
  bool json = false;
  input_options input;
  stream_options stream;
};

// One line of the table: a mode (sum, dot, asum, nrm2) or an output (stats, selections, integer sums).
struct row {
  std::string label;
  std::optional<detred::mode> mode;
  std::string output;
  std::vector<path_result> runs;
  bool equal = true;
  judgement j;
};

// What one operand set's table is made of.
struct report {
  op o = op::sum;
  bool rows_are_modes = true;
  bool streamed = false;  // read chunk by chunk, on the CPU only
  std::vector<row> rows;
};

std::vector<int> default_threads() {
  std::vector<int> t = {1, 2, omp_get_max_threads()};
  std::sort(t.begin(), t.end());
  t.erase(std::unique(t.begin(), t.end()), t.end());
  return t;
}

std::string fixed3(double x) { return fmt::format("{:.3g}", x); }

bool is_special(verdict v) {
  return v == verdict::overflow || v == verdict::special_match || v == verdict::special_mismatch;
}

std::string bound_column(const judgement& j) {
  switch (j.check) {
    case judgement::kind::exact:
      return "exact";
    case judgement::kind::measured:
      return "-";
    case judgement::kind::bound:
      break;
  }
  return j.bound ? fixed3(*j.bound) : "-";
}

std::string ratio_column(const judgement& j) {
  if (is_special(j.status)) return to_string(j.status);
  switch (j.check) {
    case judgement::kind::exact:
      return j.status == verdict::within_bound ? "equal" : "DIFFERS";
    case judgement::kind::measured:
      return "measured";
    case judgement::kind::bound:
      break;
  }
  return j.error_over_bound ? fixed3(*j.error_over_bound) : "-";
}

// The PASS line's account of what was checked.
std::string checked_text(const report& r) {
  if (r.o == op::stats) {
    return "sum, mean, variances and standard deviations within their bounds, count, min and max exact";
  }
  if (r.rows[0].j.check == judgement::kind::exact) return "equal to the exact result";
  return "errors within the documented bounds";
}

// Prints the table for one operand set and returns its exit status.
int report_text(const operands& in, const std::vector<compute_path>& paths, const report& r) {
  const auto problem = cuda_problem();
  std::string missing = describe_missing(*in.x_data);
  if (in.y_data != nullptr && !describe_missing(*in.y_data).empty()) {
    missing += (missing.empty() ? "" : "; ") + in.y_data->path() + ": " + describe_missing(*in.y_data);
  }
  const std::string op_part = r.o == op::sum ? "" : std::string(to_string(r.o)) + ", ";
  std::printf("%s: %s%s, %s, n = %llu%s%s; %zu paths (%s ... %s)%s\n", in.label.c_str(), op_part.c_str(),
              to_string(in.x_data->format()), to_string(in.type), static_cast<unsigned long long>(in.n),
              missing.empty() ? "" : "; ", missing.c_str(), paths.size(), paths.front().label().c_str(),
              paths.back().label().c_str(),
              r.streamed ? "; streamed, cuda: not used" : (problem ? "; cuda: not available" : ""));
  const int width = r.rows_are_modes ? 12 : 15;
  std::printf("%s\n",
              fmt::format("  {:<{}} {:<25} {:<19} {:<15} {:>10} {:>10} {:>11}", r.rows_are_modes ? "mode" : "result",
                          width, "value", "bits", "backends equal", "error ulps", "bound", "error/bound")
                  .c_str());
  bool mismatch = false, violated = false, differs = false, overflow = false;
  for (const row& w : r.rows) {
    const std::size_t same = static_cast<std::size_t>(
        std::count_if(w.runs.begin(), w.runs.end(), [&](const path_result& p) { return p.bits == w.runs[0].bits; }));
    const std::string equal =
        w.equal ? fmt::format("yes ({})", w.runs.size()) : fmt::format("NO ({}/{})", same, w.runs.size());
    std::printf("%s\n",
                fmt::format("  {:<{}} {:<25} {:<19} {:<15} {:>10} {:>10} {:>11}", w.label, width,
                            w.runs[0].bits.value(), w.runs[0].bits.hex(), equal,
                            w.j.error_ulps ? fixed3(*w.j.error_ulps) : "-", bound_column(w.j), ratio_column(w.j))
                    .c_str());
    if (!w.runs[0].bits.refused.empty()) std::printf("    %s\n", w.runs[0].bits.refused.c_str());
    if (!w.equal) {
      mismatch = true;
      for (const path_result& p : w.runs) {
        if (!(p.bits == w.runs[0].bits)) {
          std::printf("    %s gave %s (%s), %s gave %s\n", p.label.c_str(), p.bits.hex().c_str(),
                      p.bits.value().c_str(), w.runs[0].label.c_str(), w.runs[0].bits.hex().c_str());
        }
      }
    }
    if (w.j.check == judgement::kind::exact && w.j.status == verdict::bound_violated) {
      differs = true;
      std::printf("    the exact result is %s (%s)\n",
                  w.j.expected.refused.empty() ? w.j.expected.value().c_str() : w.j.expected.refused.c_str(),
                  w.j.expected.hex().c_str());
    }
    violated = violated || is_failure(w.j.status);
    overflow = overflow || w.j.status == verdict::overflow;
  }
  const std::size_t results = r.rows.size() * r.rows[0].runs.size();
  if (mismatch) {
    std::printf("verdict %s: FAIL: results differ between backends (bitwise mismatch)\n", in.label.c_str());
    return bits_differ;
  }
  if (violated) {
    std::printf("verdict %s: FAIL: %s\n", in.label.c_str(),
                differs ? "a result differs from the exact oracle" : "an error exceeds the documented bound");
    return bound_violated;
  }
  const std::string per = r.rows.size() == 1 ? "" : (r.rows_are_modes ? " per mode" : " per output");
  std::printf("verdict %s: PASS: %zu results bitwise equal%s (%zu in all), %s%s\n", in.label.c_str(),
              r.rows[0].runs.size(), per.c_str(), results, checked_text(r).c_str(),
              overflow ? " where they apply (the result overflowed)" : "");
  return success;
}

void put_optional(nlohmann::ordered_json& j, const char* key, const std::optional<double>& v) {
  j[key] = v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json report_json(const operands& in, const report& r, int status) {
  nlohmann::ordered_json f;
  f["file"] = in.label;
  f["op"] = to_string(r.o);
  f["format"] = to_string(in.x_data->format());
  f["dtype"] = to_string(in.type);
  f["n"] = in.n;
  if (!in.x_data->missing_values().empty()) {
    f["missing_count"] = in.x_data->missing_count();
    f["missing_skipped"] = in.x_data->missing_skipped();
  }
  const auto problem = cuda_problem();
  f["cuda"] = r.streamed ? "not used: streamed" : problem ? "not available: " + *problem : "compared";
  if (r.streamed) f["streamed"] = true;
  for (const row& w : r.rows) {
    nlohmann::ordered_json m;
    if (r.rows_are_modes) {
      m["mode"] = detred::to_string(*w.mode);
    } else {
      m["output"] = w.label;
      if (w.mode) m["mode"] = detred::to_string(*w.mode);
    }
    m["value"] = w.runs[0].bits.value();
    m["bits"] = w.runs[0].bits.hex();
    if (!w.runs[0].bits.refused.empty()) m["refused"] = w.runs[0].bits.refused;
    m["backends_equal"] = w.equal;
    nlohmann::ordered_json runs = nlohmann::ordered_json::object();
    for (const path_result& p : w.runs) runs[p.label] = p.bits.hex();
    m["results"] = runs;
    const char* expected_key = w.j.check == judgement::kind::exact ? "exact" : "correctly_rounded";
    m[expected_key] = {{"value", w.j.expected.value()}, {"bits", w.j.expected.hex()}};
    m["check"] = w.j.check == judgement::kind::bound   ? "bound"
                 : w.j.check == judgement::kind::exact ? "exact"
                                                       : "measured";
    if (w.j.check == judgement::kind::bound) {
      m["depth"] = w.j.depth;
      m["correction_depth"] = w.j.correction_depth;
    }
    m["error"] = w.j.error;
    put_optional(m, "error_ulps", w.j.error_ulps);
    if (w.j.check == judgement::kind::bound) {
      m["bound"] = w.j.bound ? shortest_decimal(*w.j.bound) : "";
      put_optional(m, "error_over_bound", w.j.error_over_bound);
    }
    put_optional(m, "relative_error", w.j.relative_error);
    m["status"] = w.j.check == judgement::kind::exact && !is_special(w.j.status)
                      ? (w.j.status == verdict::within_bound ? "equal" : "DIFFERS")
                      : to_string(w.j.status);
    f[r.rows_are_modes ? "modes" : "outputs"].push_back(m);
  }
  f["verdict"] = status == success ? "pass" : status == bits_differ ? "bitwise mismatch" : "bound violated";
  return f;
}

// The rows of one mode (or of the outputs of a mode-less operation) from every path's outputs.
void add_rows(report& r, op o, const std::optional<detred::mode>& m, const std::vector<compute_path>& paths,
              const std::vector<std::vector<output>>& by_path, const op_oracle& oracle) {
  r.rows_are_modes = by_path[0].size() == 1 && m.has_value();
  for (std::size_t k = 0; k < by_path[0].size(); ++k) {
    row w;
    w.mode = m;
    w.output = by_path[0][k].name;
    w.label = r.rows_are_modes ? detred::to_string(*m) : (w.output.empty() ? to_string(o) : w.output);
    for (std::size_t p = 0; p < paths.size(); ++p) w.runs.push_back({paths[p].label(), by_path[p][k].bits});
    inject_fault(w.runs);
    w.equal = std::all_of(w.runs.begin(), w.runs.end(), [&](const path_result& p) { return p.bits == w.runs[0].bits; });
    w.j = oracle.judge(w.output, m, w.runs[0].bits);
    r.rows.push_back(std::move(w));
  }
}

// Every path, every mode and output of one operand set, and the oracle's judgement of the first path's results.
report run_report(op o, const operands& in, const std::vector<compute_path>& paths) {
  progress_bar bar("verify " + in.label, in.n * (2 * paths.size() + 1));
  const op_oracle oracle(o, in, [&](std::uint64_t done) { bar.set(done); });
  std::uint64_t done = in.n;
  report r;
  r.o = o;
  const auto modes = modes_of(o, in.type);
  for (const std::optional<detred::mode>& m : modes) {
    std::vector<std::vector<output>> by_path;
    std::vector<compute_path> used;
    for (const compute_path& p : paths) {
      by_path.push_back(run_op(o, in, m, p));
      used.push_back(p);
      bar.set(done += in.n);
    }
    add_rows(r, o, m, used, by_path, oracle);
  }
  return r;
}

// The same in one streaming pass: a partial state per mode and path, fed chunk by chunk with the oracle.
report stream_report(op o, stream_outcome& out, const std::vector<compute_path>& paths,
                     const std::vector<std::optional<detred::mode>>& modes) {
  report r;
  r.o = o;
  r.streamed = true;
  for (std::size_t k = 0; k < modes.size(); ++k) {
    const std::vector<std::vector<output>> by_path(
        out.results.begin() + static_cast<std::ptrdiff_t>(k * paths.size()),
        out.results.begin() + static_cast<std::ptrdiff_t>((k + 1) * paths.size()));
    add_rows(r, o, modes[k], paths, by_path, *out.oracle);
  }
  return r;
}

// Prints each set's report (text or JSON) and returns the command's exit status.
int print_reports(const verify_options& o, const std::vector<const operands*>& sets, const std::vector<report>& reports,
                  const std::vector<compute_path>& paths) {
  int status = success;
  nlohmann::ordered_json all;
  for (std::size_t k = 0; k < sets.size(); ++k) {
    const operands& in = *sets[k];
    const report& r = reports[k];
    int file_status = success;
    for (const row& w : r.rows) {
      if (!w.equal) file_status = bits_differ;
    }
    if (file_status == success) {
      for (const row& w : r.rows) {
        if (is_failure(w.j.status)) file_status = bound_violated;
      }
    }
    if (o.json) {
      all["files"].push_back(report_json(in, r, file_status));
    } else {
      report_text(in, paths, r);
    }
    // A mismatch outranks a bound violation: bits that differ break the library's first promise.
    if (file_status == bits_differ || (file_status == bound_violated && status == success)) status = file_status;
  }
  if (o.json) {
    all["exit_status"] = status;
    std::printf("%s\n", all.dump(2).c_str());
  }
  return status;
}

// Streaming mode: every set is read before anything is printed, so that bad input found mid-stream gives one line
// and no partial report, as in the mapped mode.
int run_streaming(const verify_options& o, op operation, const read_options& ro, const std::vector<std::string>& names,
                  const std::vector<int>& threads) {
  std::vector<stream_set> sets = open_stream_sets(operation, names, ro, chunk_bytes_of(o.stream));
  const std::vector<compute_path> paths = cpu_paths(threads);
  std::vector<stream_outcome> outcomes;
  std::vector<report> reports;
  for (stream_set& set : sets) {
    const auto modes = modes_of(operation, set.x->info().type());
    std::vector<stream_job> jobs;
    for (const std::optional<detred::mode>& m : modes) {
      for (const compute_path& p : paths) jobs.push_back({operation, m, p});
    }
    const std::string label = set.y ? set.x->info().path() + " and " + set.y->info().path() : set.x->info().path();
    outcomes.push_back(run_stream(set, jobs, operation, "verify " + label));
    reports.push_back(stream_report(operation, outcomes.back(), paths, modes));
  }
  std::vector<const operands*> in;
  for (const stream_outcome& out : outcomes) in.push_back(&out.in);
  return print_reports(o, in, reports, paths);
}

int run(const verify_options& o) {
  std::vector<int> threads = o.threads.empty() ? default_threads() : o.threads;
  for (int t : threads) {
    if (t <= 0) throw usage_error("--threads: every thread count must be at least 1");
  }
  const op operation = *parse_op(o.op);
  const read_options ro = to_read_options(o.input);
  const std::vector<std::string> names = expand_input_names(o.files);
  if (catalogue::is_scan(operation)) {
    // A scan's outputs are as many as its elements: read whole, never streamed; the GPU where the catalogue has it.
    if (o.stream.stream) require_one_result(operation, "verify --stream");
    std::vector<dataset> inputs;
    for (const std::string& file : names) inputs.push_back(read_dataset(file, ro));
    std::vector<compute_path> paths = cpu_paths(threads);
    if (!cuda_problem()) paths.push_back({detred::backend::cuda, detred::isa::automatic, 0});
    return verify_scans(operation, make_operands(operation, inputs, ro), paths, o.json);
  }
  if (should_stream(o.stream, names, ro)) return run_streaming(o, operation, ro, names, threads);
  // Read (and check) every file before printing anything: bad input gives one line and no partial report.
  std::vector<dataset> inputs;
  for (const std::string& file : names) inputs.push_back(read_dataset(file, ro));
  const std::vector<operands> sets = make_operands(operation, inputs, ro);

  std::vector<compute_path> paths = cpu_paths(threads);
  if (!cuda_problem()) paths.push_back({detred::backend::cuda, detred::isa::automatic, 0});

  std::vector<const operands*> in;
  std::vector<report> reports;
  for (const operands& set : sets) {
    in.push_back(&set);
    reports.push_back(run_report(operation, set, paths));
  }
  return print_reports(o, in, reports, paths);
}

}  // namespace

void add_verify_command(CLI::App& app, int& status) {
  auto o = std::make_shared<verify_options>();
  CLI::App* c = app.add_subcommand(
      "verify", "Compare every backend bit for bit and check each result against the exact oracle and its bound");
  c->add_option("files", o->files,
                "Inputs: files, FILE:VARIABLE, directories, quoted patterns (for --op dot: x then y, or one (n, 2) "
                "array)")
      ->required();
  c->add_option("--op", o->op, "Operation: " + op_names() + " (default sum)")->check(CLI::IsMember(op_name_list()));
  c->add_option("--threads", o->threads, "CPU thread counts to compare (default: 1,2,<hardware>)")->delimiter(',');
  c->add_flag("--json", o->json, "Print one JSON object");
  add_input_options(*c, o->input);
  add_stream_options(*c, o->stream);
  c->callback([o, &status] { status = run(*o); });
}

}  // namespace detred::verify::cli
