// SPDX-License-Identifier: BSD-3-Clause
// detred gen: write a dataset that is bit-identical on every machine (lib/generators/datasets.hpp).
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "common.hpp"
#include "datasets.hpp"
#include "exit_status.hpp"
#include "npy.hpp"
#include "progress.hpp"

namespace detred::verify::cli {
namespace {

using generators::chunk_size;
using generators::distribution;
using generators::generate_chunk;
using generators::parse_distribution;

struct gen_options {
  std::string dist;
  std::uint64_t n = 0;
  std::string type = "float64";
  std::uint64_t seed = 1;
  std::string output;
  std::string format = "npy";
};

template <class T>
void write_all(npy_writer& out, distribution d, const gen_options& o) {
  progress_bar bar("gen " + o.output, o.n);
  std::vector<T> chunk;
  for (std::uint64_t index = 0, done = 0; done < o.n; ++index) {
    chunk.resize(o.n - done < chunk_size ? o.n - done : chunk_size);
    generate_chunk(d, o.seed, index, std::span<T>(chunk));
    out.write(std::span<const T>(chunk));
    done += chunk.size();
    bar.set(done);
  }
}

int run(const gen_options& o) {
  const auto d = parse_distribution(o.dist);
  if (!d) throw usage_error("--dist " + o.dist + ": unknown distribution");
  const auto t = parse_dtype(o.type);
  if (!t) throw usage_error("--dtype " + o.type + ": expected float32 or float64");
  npy_writer out(o.output, *t, o.n, o.format == "raw");
  if (*t == dtype::float32) {
    write_all<float>(out, *d, o);
  } else {
    write_all<double>(out, *d, o);
  }
  out.finish();
  return success;
}

}  // namespace

void add_gen_command(CLI::App& app, int& status) {
  auto o = std::make_shared<gen_options>();
  CLI::App* c = app.add_subcommand("gen", "Generate a dataset that is bit-identical on every machine");
  c->add_option("--dist", o->dist, "uniform, normal, ill-conditioned, dynamic-range, subnormal, same-sign")
      ->required()
      ->check(CLI::IsMember({"uniform", "normal", "ill-conditioned", "dynamic-range", "subnormal", "same-sign"}));
  c->add_option("--n", o->n, "Number of elements")->required();
  c->add_option("--dtype", o->type, "float32 or float64 (default)")->check(CLI::IsMember({"float32", "float64"}));
  c->add_option("--seed", o->seed, "Seed (default 1)");
  c->add_option("-o,--output", o->output, "Output file")->required();
  c->add_option("--format", o->format, "npy (default) or raw little-endian")->check(CLI::IsMember({"npy", "raw"}));
  c->callback([o, &status] { status = run(*o); });
}

}  // namespace detred::verify::cli
