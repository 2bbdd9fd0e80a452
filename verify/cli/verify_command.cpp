// detred verify FILE...: every compute path, compared bit for bit, and the oracle's verdict on the error.
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
#include "progress.hpp"

namespace detred::verify::cli {
namespace {

struct verify_options {
  std::vector<std::string> files;
  std::vector<int> threads;
  bool json = false;
  input_options input;
};

struct mode_report {
  detred::mode m = detred::mode::tree;
  std::vector<path_result> runs;
  bool equal = true;
  assessment a;
  result_bits correctly_rounded;
};

std::vector<int> default_threads() {
  std::vector<int> t = {1, 2, omp_get_max_threads()};
  std::sort(t.begin(), t.end());
  t.erase(std::unique(t.begin(), t.end()), t.end());
  return t;
}

std::string fixed3(double x) { return fmt::format("{:.3g}", x); }

// Prints the table for one file and returns its exit status.
int report_text(const dataset& data, const std::vector<compute_path>& paths, const std::vector<mode_report>& modes) {
  const auto problem = cuda_problem();
  const std::string missing = describe_missing(data);
  std::printf("%s: %s, %s, n = %llu%s%s; %zu paths (%s ... %s)%s\n", data.path().c_str(), to_string(data.format()),
              to_string(data.type()), static_cast<unsigned long long>(data.size()), missing.empty() ? "" : "; ",
              missing.c_str(), paths.size(), paths.front().label().c_str(), paths.back().label().c_str(),
              problem ? "; cuda: not available" : "");
  std::printf("%s\n", fmt::format("  {:<12} {:<25} {:<19} {:<15} {:>10} {:>10} {:>11}", "mode", "value", "bits",
                                  "backends equal", "error ulps", "bound", "error/bound")
                          .c_str());
  bool mismatch = false, violated = false, overflow = false;
  for (const mode_report& r : modes) {
    const std::size_t same = static_cast<std::size_t>(
        std::count_if(r.runs.begin(), r.runs.end(), [&](const path_result& p) { return p.bits == r.runs[0].bits; }));
    const std::string equal =
        r.equal ? fmt::format("yes ({})", r.runs.size()) : fmt::format("NO ({}/{})", same, r.runs.size());
    const bool finite = r.a.status == verdict::within_bound || r.a.status == verdict::bound_violated;
    std::printf("%s\n",
                fmt::format("  {:<12} {:<25} {:<19} {:<15} {:>10} {:>10} {:>11}", detred::to_string(r.m),
                            r.runs[0].bits.value(), r.runs[0].bits.hex(), equal, finite ? fixed3(r.a.error_ulps) : "-",
                            fixed3(r.a.bound_upper), finite ? fixed3(r.a.error_over_bound) : to_string(r.a.status))
                    .c_str());
    if (!r.equal) {
      mismatch = true;
      for (const path_result& p : r.runs) {
        if (!(p.bits == r.runs[0].bits)) {
          std::printf("    %s gave %s (%s), %s gave %s\n", p.label.c_str(), p.bits.hex().c_str(),
                      p.bits.value().c_str(), r.runs[0].label.c_str(), r.runs[0].bits.hex().c_str());
        }
      }
    }
    violated = violated || is_failure(r.a.status);
    overflow = overflow || r.a.status == verdict::overflow;
  }
  const std::size_t results = modes.size() * modes[0].runs.size();
  if (mismatch) {
    std::printf("verdict %s: FAIL: results differ between backends (bitwise mismatch)\n", data.path().c_str());
    return bits_differ;
  }
  if (violated) {
    std::printf("verdict %s: FAIL: an error exceeds the documented bound\n", data.path().c_str());
    return bound_violated;
  }
  std::printf(
      "verdict %s: PASS: %zu results bitwise equal per mode (%zu in all), errors within the documented "
      "bounds%s\n",
      data.path().c_str(), modes[0].runs.size(), results, overflow ? " where they apply (the sum overflowed)" : "");
  return success;
}

nlohmann::ordered_json report_json(const dataset& data, const std::vector<mode_report>& modes, int status) {
  nlohmann::ordered_json f;
  f["file"] = data.path();
  f["format"] = to_string(data.format());
  f["dtype"] = to_string(data.type());
  f["n"] = data.size();
  if (!data.missing_values().empty()) {
    f["missing_count"] = data.missing_count();
    f["missing_skipped"] = data.missing_skipped();
  }
  const auto problem = cuda_problem();
  f["cuda"] = problem ? "not available: " + *problem : "compared";
  for (const mode_report& r : modes) {
    nlohmann::ordered_json m;
    m["mode"] = detred::to_string(r.m);
    m["value"] = r.runs[0].bits.value();
    m["bits"] = r.runs[0].bits.hex();
    m["backends_equal"] = r.equal;
    nlohmann::ordered_json runs = nlohmann::ordered_json::object();
    for (const path_result& p : r.runs) runs[p.label] = p.bits.hex();
    m["results"] = runs;
    m["correctly_rounded"] = {{"value", r.correctly_rounded.value()}, {"bits", r.correctly_rounded.hex()}};
    m["depth"] = r.a.factors.depth;
    m["correction_depth"] = r.a.factors.correction_depth;
    m["error"] = to_decimal(r.a.error, 17);
    m["error_ulps"] = r.a.error_ulps;
    m["bound"] = shortest_decimal(r.a.bound_upper);
    m["error_over_bound"] = r.a.error_over_bound;
    m["status"] = to_string(r.a.status);
    f["modes"].push_back(m);
  }
  f["verdict"] = status == success ? "pass" : status == bits_differ ? "bitwise mismatch" : "bound violated";
  return f;
}

int run(const verify_options& o) {
  std::vector<int> threads = o.threads.empty() ? default_threads() : o.threads;
  for (int t : threads) {
    if (t <= 0) throw usage_error("--threads: every thread count must be at least 1");
  }
  const read_options ro = to_read_options(o.input);
  // Read (and check) every file before printing anything: bad input gives one line and no partial report.
  std::vector<dataset> inputs;
  for (const std::string& file : expand_input_names(o.files)) inputs.push_back(read_dataset(file, ro));

  std::vector<compute_path> paths = cpu_paths(threads);
  if (!cuda_problem()) paths.push_back({detred::backend::cuda, detred::isa::automatic, 0});

  int status = success;
  nlohmann::ordered_json all;
  for (const dataset& data : inputs) {
    progress_bar bar("verify " + data.path(), data.size() * (2 * paths.size() + 1));
    const exact_sums exact = run_oracle(data, [&](std::uint64_t done) { bar.set(done); });
    std::uint64_t done = data.size();
    std::vector<mode_report> modes;
    for (detred::mode m : {detred::mode::tree, detred::mode::compensated}) {
      mode_report r;
      r.m = m;
      for (const compute_path& p : paths) {
        r.runs.push_back({p.label(), run_sum(data, m, p)});
        r.equal = r.equal && r.runs.back().bits == r.runs[0].bits;
        bar.set(done += data.size());
      }
      inject_fault(r.runs);
      r.equal =
          std::all_of(r.runs.begin(), r.runs.end(), [&](const path_result& p) { return p.bits == r.runs[0].bits; });
      r.a = assess_result(exact, r.runs[0].bits, m);
      r.correctly_rounded = correctly_rounded_result(exact, data.type());
      modes.push_back(std::move(r));
    }
    int file_status = success;
    for (const mode_report& r : modes) {
      if (!r.equal) file_status = bits_differ;
    }
    if (file_status == success) {
      for (const mode_report& r : modes) {
        if (is_failure(r.a.status)) file_status = bound_violated;
      }
    }
    if (o.json) {
      all["files"].push_back(report_json(data, modes, file_status));
    } else {
      report_text(data, paths, modes);
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

}  // namespace

void add_verify_command(CLI::App& app, int& status) {
  auto o = std::make_shared<verify_options>();
  CLI::App* c = app.add_subcommand(
      "verify", "Compare every backend bit for bit and check the error against the exact sum and the bound");
  c->add_option("files", o->files, "Inputs: files, FILE:VARIABLE, directories, quoted patterns")->required();
  c->add_option("--threads", o->threads, "CPU thread counts to compare (default: 1,2,<hardware>)")->delimiter(',');
  c->add_flag("--json", o->json, "Print one JSON object");
  add_input_options(*c, o->input);
  c->callback([o, &status] { status = run(*o); });
}

}  // namespace detred::verify::cli
