// detred reduce FILE: one sum, printed as shortest decimal and hex bits, or as one JSON object.
#include <cstdio>
#include <memory>
#include <string>

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

detred::isa parse_isa(const std::string& name) {
  if (name == "baseline") return detred::isa::baseline;
  if (name == "avx2") return detred::isa::avx2;
  if (name == "avx512") return detred::isa::avx512;
  if (name == "neon") return detred::isa::neon;
  return detred::isa::automatic;
}

int run(const reduce_options& o) {
  const detred::mode m = parse_mode(o.mode);
  const dataset data = read_dataset(o.file, to_read_options(o.input));
  compute_path path{o.backend == "cuda" ? detred::backend::cuda : detred::backend::cpu, parse_isa(o.isa), o.threads};
  progress_bar bar("reduce " + o.file, data.size() * 2);
  const result_bits result = run_sum(data, m, path);
  bar.set(data.size());
  // The bound needs sum|x_i| (and |S| in compensated mode): the oracle gives both, exactly, in linear time.
  const exact_sums exact = run_oracle(data, [&](std::uint64_t done) { bar.set(data.size() + done); });
  const assessment a = assess_result(exact, result, m);
  const int threads = path.where == detred::backend::cuda ? 0 : (o.threads > 0 ? o.threads : omp_get_max_threads());

  if (o.json) {
    nlohmann::ordered_json j;
    j["file"] = o.file;
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
  c->add_option("file", o->file, "Input file (.npy, raw binary with --dtype, or text)")->required();
  c->add_option("--op", o->op, "Operation (sum)")->check(CLI::IsMember({"sum"}));
  c->add_option("--mode", o->mode, "tree (default) or compensated")->check(CLI::IsMember({"tree", "compensated"}));
  c->add_option("--backend", o->backend, "auto (default), cpu or cuda")->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  c->add_option("--isa", o->isa, "CPU instruction set: auto (default), baseline, avx2, avx512, neon")
      ->check(CLI::IsMember({"auto", "baseline", "avx2", "avx512", "neon"}));
  c->add_option("--threads", o->threads, "CPU threads (0: library default); the bits never depend on it")
      ->check(CLI::NonNegativeNumber);
  c->add_flag("--json", o->json, "Print one JSON object");
  add_input_options(*c, o->input);
  c->callback([o, &status] { status = run(*o); });
}

}  // namespace detred::verify::cli
