// detred record FILE... -o golden.json: the bits of every op and mode for each file, with the file's SHA-256.
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
#include "progress.hpp"
#include "sha256.hpp"

namespace detred::verify::cli {
namespace {

struct record_options {
  std::vector<std::string> files;
  std::string output;
  input_options input;
};

int run(const record_options& o) {
  const read_options ro = to_read_options(o.input);
  nlohmann::ordered_json golden;
  golden["detred_golden"] = 1;
  golden["library_version"] = detred::library_version;
  golden["order_version"] = detred::order_version;
  const std::vector<std::string> inputs = expand_input_names(o.files);
  for (const std::string& file : inputs) {
    const dataset data = read_dataset(file, ro);
    progress_bar bar("record " + file, 3);
    nlohmann::ordered_json f;
    f["path"] = file;
    if (!data.variable().empty()) f["variable"] = data.variable();
    f["sha256"] = sha256_hex(data.digest_bytes());
    bar.advance(1);
    f["format"] = to_string(data.format());
    f["dtype"] = to_string(data.type());
    if (!ro.column.empty()) f["column"] = ro.column;
    if (ro.skip_missing) f["skip_missing"] = true;
    if (!data.missing_values().empty()) f["missing_count"] = data.missing_count();
    f["n"] = data.size();
    for (detred::mode m : {detred::mode::tree, detred::mode::compensated}) {
      const result_bits r = run_sum(data, m, {detred::backend::cpu, detred::isa::automatic, 0});
      f["results"].push_back({{"op", "sum"}, {"mode", detred::to_string(m)}, {"bits", r.hex()}, {"value", r.value()}});
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
  std::printf("recorded %zu input(s) in %s (order version %d, detred %s)\n", inputs.size(), o.output.c_str(),
              detred::order_version, detred::library_version);
  return success;
}

}  // namespace

void add_record_command(CLI::App& app, int& status) {
  auto o = std::make_shared<record_options>();
  CLI::App* c = app.add_subcommand("record", "Record each file's SHA-256 and result bits in a golden file");
  c->add_option("files", o->files, "Inputs: files, FILE:VARIABLE, directories, quoted patterns")->required();
  c->add_option("-o,--output", o->output, "Golden file to write (JSON)")->required();
  add_input_options(*c, o->input);
  c->callback([o, &status] { status = run(*o); });
}

}  // namespace detred::verify::cli
