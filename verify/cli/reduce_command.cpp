// SPDX-License-Identifier: BSD-3-Clause
// detred reduce INPUT [--op OP]: one reduction, printed as shortest decimal and hex bits, or as one JSON object.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <omp.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "common.hpp"
#include "exit_status.hpp"
#include "input_error.hpp"
#include "op_oracle.hpp"
#include "operations.hpp"
#include "progress.hpp"
#include "streaming.hpp"

namespace detred::verify::cli {
namespace {

struct reduce_options {
  std::vector<std::string> files;
  std::string op = "sum";
  std::string mode = "tree";
  std::string backend = "auto";
  std::string isa = "auto";
  int threads = 0;
  bool json = false;
  input_options input;
  stream_options stream;
};

int run(const reduce_options& o) {
  const op operation = *parse_op(o.op);
  require_one_result(operation, "reduce");
  const detred::mode m = parse_mode(o.mode);
  const std::vector<std::string> inputs = expand_input_names(o.files);
  const std::size_t wanted = operation == op::dot && inputs.size() == 2 ? 2 : 1;
  if (inputs.size() != wanted) {
    std::string names;
    for (const std::string& f : o.files) names += (names.empty() ? "" : " ") + f;
    throw usage_error("reduce " + names + ": names " + std::to_string(inputs.size()) +
                      " inputs; reduce takes one (two for --op dot: x and y; verify and record take several)");
  }
  const read_options ro = to_read_options(o.input);
  // backend automatic means the CPU for the host memory the tool reads.
  const detred::backend where = parse_option<detred::backend>("--backend", o.backend) == detred::backend::cuda
                                    ? detred::backend::cuda
                                    : detred::backend::cpu;
  compute_path path{where, parse_option<detred::isa>("--isa", o.isa), o.threads};
  const bool streamed = should_stream(o.stream, inputs, ro);
  std::vector<dataset> data;
  std::vector<operands> sets;
  std::vector<stream_set> streams;
  stream_outcome out;
  if (streamed) {
    if (where == detred::backend::cuda) {
      throw usage_error(
          "--backend cuda: a streamed input (--stream, or larger than the memory budget) is reduced "
          "on the CPU");
    }
    streams = open_stream_sets(operation, inputs, ro, chunk_bytes_of(o.stream));
  } else {
    for (const std::string& input : inputs) data.push_back(read_dataset(input, ro));
    sets = make_operands(operation, data, ro);
  }
  if ((streamed ? streams.size() : sets.size()) != 1) {
    throw usage_error("reduce: --op dot takes x and y, or one input holding both");
  }
  const dtype type = streamed ? streams[0].x->info().type() : sets[0].type;
  // The modes of an operation that has them; the others are exact and take none.
  const std::optional<detred::mode> mode = modes_of(operation, type)[0] ? std::optional(m) : std::nullopt;
  std::vector<output> results;
  if (streamed) {
    // The oracle gives --json its bound; it reads the elements in the same pass.
    const bool bound = o.json && operation != op::stats;
    out = run_stream(streams[0], {{operation, mode, path}}, bound ? std::optional(operation) : std::nullopt,
                     "reduce " + streams[0].x->info().path());
    results = out.results[0];
  }
  const operands& in = streamed ? out.in : sets[0];
  progress_bar bar("reduce " + in.label, in.n * 2);
  if (!streamed) results = run_op(operation, in, mode, path);
  bar.set(in.n);
  if (!results[0].bits.refused.empty()) throw input_error(in.x_data->path(), results[0].bits.refused);

  if (o.json) {
    nlohmann::ordered_json j;
    j["file"] = in.label;
    if (in.y_data != nullptr) {
      j["x"] = in.x_data->path();
      j["y"] = in.y_data->path();
    }
    j["op"] = o.op;
    j["mode"] = mode ? nlohmann::ordered_json(detred::to_string(*mode)) : nlohmann::ordered_json(nullptr);
    j["dtype"] = to_string(in.type);
    j["n"] = in.n;
    j["backend"] = path.where == detred::backend::cuda ? "cuda" : "cpu";
    j["isa"] = path.where == detred::backend::cuda ? "none" : detred::to_string(detred::resolved_isa(path.isa));
    j["threads"] = path.where == detred::backend::cuda ? 0 : (o.threads > 0 ? o.threads : omp_get_max_threads());
    j["order_version"] = detred::order_version;
    if (results.size() == 1) {
      // The bound needs the exact data (sum|x_i|, and |R| for the relative terms): the oracle gives both, exactly,
      // in linear time.
      std::unique_ptr<op_oracle> computed;
      if (!streamed)
        computed = std::make_unique<op_oracle>(operation, in, [&](std::uint64_t done) { bar.set(in.n + done); });
      const op_oracle& oracle = streamed ? *out.oracle : *computed;
      const judgement judged = oracle.judge(results[0].name, mode, results[0].bits);
      if (judged.check == judgement::kind::bound) {
        j["depth"] = judged.depth;
        j["bound"] = shortest_decimal(judged.bound.value_or(0.0));
      }
      j["value"] = results[0].bits.value();
      j["bits"] = results[0].bits.hex();
    } else {
      nlohmann::ordered_json outputs = nlohmann::ordered_json::object();
      for (const output& r : results) outputs[r.name] = {{"value", r.bits.value()}, {"bits", r.bits.hex()}};
      j["outputs"] = outputs;
    }
    if (!in.x_data->missing_values().empty()) {
      j["missing_count"] = in.x_data->missing_count();
      j["missing_skipped"] = in.x_data->missing_skipped();
    }
    std::printf("%s\n", j.dump(2).c_str());
  } else if (results.size() == 1) {
    std::printf("%s\n%s\n", results[0].bits.value().c_str(), results[0].bits.hex().c_str());
  } else {
    for (const output& r : results)
      std::printf("%s %s %s\n", r.name.c_str(), r.bits.value().c_str(), r.bits.hex().c_str());
  }
  return success;
}

}  // namespace

void add_reduce_command(CLI::App& app, int& status) {
  auto o = std::make_shared<reduce_options>();
  CLI::App* c = app.add_subcommand("reduce", "Reduce one input; print the value and its bits");
  c->add_option("files", o->files,
                "Input: FILE (.npy, raw binary with --dtype, text) or FILE:VARIABLE (NetCDF, HDF5, safetensors); for "
                "--op dot, x and y, or one input holding both")
      ->required();
  c->add_option("--op", o->op, "Operation: " + op_names() + " (default sum)")->check(CLI::IsMember(op_name_list()));
  c->add_option("--mode", o->mode,
                "tree (default), compensated (sum, dot, asum, nrm2) or exact (sum, dot, asum of float32 and float64)")
      ->check(option_names<detred::mode>());
  c->add_option("--backend", o->backend, "auto (default), cpu or cuda")->check(option_names<detred::backend>());
  c->add_option("--isa", o->isa, "CPU instruction set: auto (default), or one of " + detred::names<detred::isa>())
      ->check(option_names<detred::isa>());
  c->add_option("--threads", o->threads, "CPU threads (0: library default); the bits never depend on it")
      ->check(CLI::NonNegativeNumber);
  c->add_flag("--json", o->json, "Print one JSON object");
  add_input_options(*c, o->input);
  add_stream_options(*c, o->stream);
  c->callback([o, &status] { status = run(*o); });
}

}  // namespace detred::verify::cli
