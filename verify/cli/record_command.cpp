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

namespace detred::verify::cli {
namespace {

struct record_options {
  std::vector<std::string> files;
  std::string op = "sum";
  std::string output;
  input_options input;
};

// How to find and read one input again: its name, SHA-256 and format.
nlohmann::ordered_json input_entry(const dataset& data) {
  nlohmann::ordered_json f;
  f["path"] = data.path();
  if (!data.variable().empty()) f["variable"] = data.variable();
  f["sha256"] = sha256_hex(data.digest_bytes());
  f["format"] = to_string(data.format());
  f["dtype"] = to_string(data.type());
  return f;
}

int run(const record_options& o) {
  const op operation = *parse_op(o.op);
  const read_options ro = to_read_options(o.input);
  nlohmann::ordered_json golden;
  golden["detred_golden"] = 1;
  golden["library_version"] = detred::library_version;
  golden["order_version"] = detred::order_version;
  std::vector<dataset> data;
  for (const std::string& file : expand_input_names(o.files)) data.push_back(read_dataset(file, ro));
  const std::vector<operands> sets = make_operands(operation, data, ro);
  for (const operands& in : sets) {
    const auto modes = modes_of(operation, in.type);
    progress_bar bar("record " + in.label, modes.size() + 1);
    nlohmann::ordered_json f = input_entry(*in.x_data);
    bar.advance(1);
    if (!ro.column.empty()) f["column"] = ro.column;
    if (ro.skip_missing) f["skip_missing"] = true;
    if (!in.x_data->missing_values().empty()) f["missing_count"] = in.x_data->missing_count();
    f["n"] = in.n;
    if (in.y_data != nullptr) f["y"] = input_entry(*in.y_data);
    f["results"] = nlohmann::ordered_json::array();
    for (const std::optional<detred::mode>& m : modes) {
      for (const output& r : run_op(operation, in, m, {detred::backend::cpu, detred::isa::automatic, 0})) {
        if (!r.bits.refused.empty()) throw input_error(in.x_data->path(), r.bits.refused);
        nlohmann::ordered_json entry;
        entry["op"] = o.op;
        if (!r.name.empty()) entry["output"] = r.name;
        if (m) entry["mode"] = detred::to_string(*m);
        entry["type"] = to_string(r.bits.type);
        entry["bits"] = r.bits.hex();
        entry["value"] = r.bits.value();
        f["results"].push_back(entry);
      }
      bar.advance(1);
    }
    golden["files"].push_back(f);
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
  std::printf("recorded %zu input(s) in %s (order version %d, detred %s)\n", sets.size(), o.output.c_str(),
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
  c->callback([o, &status] { status = run(*o); });
}

}  // namespace detred::verify::cli
