// detred reduce FILE: one sum, printed as shortest decimal and hex bits, or as one JSON object.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <omp.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "common.hpp"
#include "exit_status.hpp"
#include "progress.hpp"

namespace detred::verify::cli {
namespace {

struct reduce_options {
  std::string file;
  std::string op = "sum";
  std::string mode = "tree";
  std::string backend = "auto";
  std::string isa = "auto";
  int threads = 0;
  bool json = false;
  input_options input;
};

int run(const reduce_options& o) {
  const detred::mode m = parse_mode(o.mode);
  const std::vector<std::string> inputs = expand_input_names({o.file});
  if (inputs.size() != 1) {
    throw usage_error("reduce " + o.file + ": names " + std::to_string(inputs.size()) +
                      " inputs; reduce takes one (verify and record take several)");
  }
  const dataset data = read_dataset(inputs[0], to_read_options(o.input));
  // backend automatic means the CPU for the host memory the tool reads.
  const detred::backend where = parse_option<detred::backend>("--backend", o.backend) == detred::backend::cuda
                                    ? detred::backend::cuda
                                    : detred::backend::cpu;
  compute_path path{where, parse_option<detred::isa>("--isa", o.isa), o.threads};
  progress_bar bar("reduce " + o.file, data.size() * 2);
  const result_bits result = run_sum(data, m, path);
  bar.set(data.size());
  // The bound needs sum|x_i| (and |S| in compensated mode): the oracle gives both, exactly, in linear time.
  const exact_sums exact = run_oracle(data, [&](std::uint64_t done) { bar.set(data.size() + done); });
  const assessment a = assess_result(exact, result, m);
  const int threads = path.where == detred::backend::cuda ? 0 : (o.threads > 0 ? o.threads : omp_get_max_threads());

  if (o.json) {
    nlohmann::ordered_json j;
    j["file"] = data.path();
    j["op"] = o.op;
    j["mode"] = o.mode;
    j["dtype"] = to_string(data.type());
    j["n"] = data.size();
    j["backend"] = path.where == detred::backend::cuda ? "cuda" : "cpu";
    j["isa"] = path.where == detred::backend::cuda ? "none" : detred::to_string(detred::resolved_isa(path.isa));
    j["threads"] = threads;
    j["order_version"] = detred::order_version;
    j["depth"] = a.factors.depth;
    j["bound"] = shortest_decimal(a.bound_upper);
    j["value"] = result.value();
    j["bits"] = result.hex();
    if (!data.missing_values().empty()) {
      j["missing_count"] = data.missing_count();
      j["missing_skipped"] = data.missing_skipped();
    }
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf("%s\n%s\n", result.value().c_str(), result.hex().c_str());
  }
  return success;
}

}  // namespace

void add_reduce_command(CLI::App& app, int& status) {
  auto o = std::make_shared<reduce_options>();
  CLI::App* c = app.add_subcommand("reduce", "Reduce one file; print the value and its bits");
  c->add_option("file", o->file,
                "Input: FILE (.npy, raw binary with --dtype, text) or FILE:VARIABLE (NetCDF, HDF5, safetensors)")
      ->required();
  c->add_option("--op", o->op, "Operation (sum)")->check(CLI::IsMember({"sum"}));
  c->add_option("--mode", o->mode, "tree (default) or compensated")->check(option_names<detred::mode>());
  c->add_option("--backend", o->backend, "auto (default), cpu or cuda")->check(option_names<detred::backend>());
  c->add_option("--isa", o->isa, "CPU instruction set: auto (default), or one of " + detred::names<detred::isa>())
      ->check(option_names<detred::isa>());
  c->add_option("--threads", o->threads, "CPU threads (0: library default); the bits never depend on it")
      ->check(CLI::NonNegativeNumber);
  c->add_flag("--json", o->json, "Print one JSON object");
  add_input_options(*c, o->input);
  c->callback([o, &status] { status = run(*o); });
}

}  // namespace detred::verify::cli
