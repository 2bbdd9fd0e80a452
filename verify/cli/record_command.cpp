// SPDX-License-Identifier: BSD-3-Clause
// detred record INPUT... [--op OP] -o golden.json: the bits of every mode (and output) of one operation for each
// input, with the input's SHA-256 (for dot's two inputs, both).
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "common.hpp"
#include "detred/version.hpp"
#include "exit_status.hpp"
#include "input_error.hpp"
#include "operations.hpp"
#include "progress.hpp"
#include "sha256.hpp"
#include "streaming.hpp"

namespace detred::verify::cli {
namespace {

struct record_options {
  std::vector<std::string> files;
  std::string op = "sum";
  std::string output;
  input_options input;
  stream_options stream;
};

// How to find and read one input again: its name, SHA-256 and format.
nlohmann::ordered_json input_entry(const dataset& data, const std::string& sha256) {
  nlohmann::ordered_json f;
  f["path"] = data.path();
  if (!data.variable().empty()) f["variable"] = data.variable();
  f["sha256"] = sha256;
  f["format"] = to_string(data.format());
  f["dtype"] = to_string(data.type());
  return f;
}

int run(const record_options& o) {
  const op operation = *parse_op(o.op);
  require_one_result(operation, "record");
  const read_options ro = to_read_options(o.input);
  nlohmann::ordered_json golden;
  golden["detred_golden"] = 1;
  golden["library_version"] = detred::library_version;
  golden["order_version"] = detred::order_version;
  const std::vector<std::string> names = expand_input_names(o.files);
  const compute_path path{detred::backend::cpu, detred::isa::automatic, 0};
  // The results of one operand set, however its elements were read.
  auto add_entry = [&](const operands& in, const std::vector<std::optional<detred::mode>>& modes,
                       const std::vector<std::vector<output>>& per_mode, const std::string& x_sha256,
                       const std::string& y_sha256) {
    nlohmann::ordered_json f = input_entry(*in.x_data, x_sha256);
    if (!ro.column.empty()) f["column"] = ro.column;
    if (ro.skip_missing) f["skip_missing"] = true;
    if (!in.x_data->missing_values().empty()) f["missing_count"] = in.x_data->missing_count();
    f["n"] = in.n;
    if (in.y_data != nullptr) f["y"] = input_entry(*in.y_data, y_sha256);
    f["results"] = nlohmann::ordered_json::array();
    for (std::size_t k = 0; k < modes.size(); ++k) {
      for (const output& r : per_mode[k]) {
        if (!r.bits.refused.empty()) throw input_error(in.x_data->path(), r.bits.refused);
        nlohmann::ordered_json entry;
        entry["op"] = o.op;
        if (!r.name.empty()) entry["output"] = r.name;
        if (modes[k]) entry["mode"] = detred::to_string(*modes[k]);
        entry["type"] = to_string(r.bits.type);
        entry["bits"] = r.bits.hex();
        entry["value"] = r.bits.value();
        f["results"].push_back(entry);
      }
    }
    golden["files"].push_back(f);
  };
  std::size_t recorded = 0;
  if (should_stream(o.stream, names, ro)) {
    // One pass per operand set computes every mode and the SHA-256 together.
    for (stream_set& set : open_stream_sets(operation, names, ro, chunk_bytes_of(o.stream))) {
      const auto modes = modes_of(operation, set.x->info().type());
      std::vector<stream_job> jobs;
      for (const std::optional<detred::mode>& m : modes) jobs.push_back({operation, m, path});
      const stream_outcome out = run_stream(set, jobs, std::nullopt, "record " + set.x->info().path(), true);
      add_entry(out.in, modes, out.results, out.x_sha256, out.y_sha256);
      ++recorded;
    }
  } else {
    std::vector<dataset> data;
    for (const std::string& file : names) data.push_back(read_dataset(file, ro));
    const std::vector<operands> sets = make_operands(operation, data, ro);
    for (const operands& in : sets) {
      const auto modes = modes_of(operation, in.type);
      progress_bar bar("record " + in.label, modes.size() + 1);
      const std::string x_sha256 = sha256_hex(in.x_data->digest_bytes());
      const std::string y_sha256 = in.y_data != nullptr ? sha256_hex(in.y_data->digest_bytes()) : "";
      bar.advance(1);
      std::vector<std::vector<output>> per_mode;
      for (const std::optional<detred::mode>& m : modes) {
        per_mode.push_back(run_op(operation, in, m, path));
        bar.advance(1);
      }
      add_entry(in, modes, per_mode, x_sha256, y_sha256);
      ++recorded;
    }
  }
  // Write to a temporary name and rename, so that a failure never leaves half a golden file behind.
  const std::string temporary = o.output + ".partial";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << golden.dump(2) << '\n';
    if (!out) throw std::runtime_error(o.output + ": cannot write the golden file");
  }
  if (std::rename(temporary.c_str(), o.output.c_str()) != 0) {
    throw std::runtime_error(o.output + ": cannot write the golden file");
  }
  std::printf("recorded %zu input(s) in %s (order version %d, detred %s)\n", recorded, o.output.c_str(),
              detred::order_version, detred::library_version);
  return success;
}

}  // namespace

void add_record_command(CLI::App& app, int& status) {
  auto o = std::make_shared<record_options>();
  CLI::App* c = app.add_subcommand("record", "Record each input's SHA-256 and result bits in a golden file");
  c->add_option("files", o->files,
                "Inputs: files, FILE:VARIABLE, directories, quoted patterns (for --op dot: x then y, or one (n, 2) "
                "array)")
      ->required();
  c->add_option("--op", o->op, "Operation: " + op_names() + " (default sum)")->check(CLI::IsMember(op_name_list()));
  c->add_option("-o,--output", o->output, "Golden file to write (JSON)")->required();
  add_input_options(*c, o->input);
  add_stream_options(*c, o->stream);
  c->callback([o, &status] { status = run(*o); });
}

}  // namespace detred::verify::cli
