// SPDX-License-Identifier: BSD-3-Clause
// detred-order-sweep: the speed / error-bound trade-off behind the canonical order's lane count W and leaf size L.
// For each candidate shape it times the single-thread sum (lanes, per-leaf lane tree, leaf-tree push per leaf) in
// cache and out of cache, interleaved round by round, and prints the depth D at n = 10^9 that the shape would give:
// the tree-mode error bound is gamma_D * sum|x_i|, so a smaller D is a tighter bound. docs/benchmarks.md explains it.
#include <bit>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "aligned_buffer.hpp"
#include "bench_options.hpp"
#include "detred/order.hpp"
#include "detred/sum.hpp"
#include "measure.hpp"
#include "order_sweep_kernels.hpp"

namespace {

using namespace detred::bench;

template <class T>
volatile T sink = 0;

/// D(n) for a shape (W, L): the order's own formula, with another shape.
int depth_for(std::uint64_t lanes, std::uint64_t leaf_size, std::uint64_t n) {
  return detred::order::depth(detred::order::leaf_shape{lanes, leaf_size}, n);
}

struct sweep_options {
  std::vector<std::string> types;
  std::vector<std::uint64_t> sizes;
  int rounds = 5;
  timing_policy timing;
  std::string json_path;
};

/// Key of a result: (W, L, compensated, n).
using result_key = std::tuple<std::uint64_t, std::uint64_t, bool, std::uint64_t>;

/// The kernel of the library's own shape must give detred::sum's bits; otherwise the sweep is not measuring the
/// library's shape of computation and its table would mislead.
template <class T>
bool check_against_library(const std::vector<sweep_kernel<T>>& kernels, std::span<const T> x) {
  bool ok = true;
  for (const sweep_kernel<T>& k : kernels) {
    if (k.lanes != detred::order::lanes<T> || k.leaf_size != detred::order::leaf_size<T>) continue;
    const detred::mode m = k.compensated ? detred::mode::compensated : detred::mode::tree;
    const T mine = k.sum(x.data(), x.size());
    const T library = detred::sum(x, {.mode = m, .threads = 1});
    using bits = std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>;
    if (std::bit_cast<bits>(mine) != std::bit_cast<bits>(library)) {
      std::cerr << "detred-order-sweep: ERROR: the canonical shape's kernel differs from detred::sum ("
                << detred::to_string(m) << ")\n";
      ok = false;
    }
  }
  return ok;
}

template <class T>
std::map<result_key, double> measure_type(const sweep_options& o, bool& ok) {
  std::vector<sweep_kernel<T>> kernels;
  if constexpr (sizeof(T) == 8) {
    kernels = sweep_kernels_f64();
  } else {
    kernels = sweep_kernels_f32();
  }
  std::map<result_key, double> medians;
  for (std::uint64_t n : o.sizes) {
    aligned_buffer<T> x(n);
    fill_uniform(x);
    ok = check_against_library(kernels, x.span()) && ok;
    std::vector<std::vector<double>> gelem(kernels.size());
    for (int round = 0; round < o.rounds; ++round) {
      for (std::size_t i = 0; i < kernels.size(); ++i) {
        // Each round starts one kernel later, so that no kernel always follows the same neighbour.
        const std::size_t k = (i + static_cast<std::size_t>(round)) % kernels.size();
        const auto sum = kernels[k].sum;
        const double seconds = seconds_per_call([&] { sink<T> = sum(x.data(), n); }, o.timing);
        gelem[k].push_back(static_cast<double>(n) / seconds / 1e9);
      }
    }
    for (std::size_t k = 0; k < kernels.size(); ++k) {
      medians[{kernels[k].lanes, kernels[k].leaf_size, kernels[k].compensated, n}] = median(gelem[k]);
    }
  }
  return medians;
}

template <class T>
void print_type(const char* type, const std::map<result_key, double>& r, const sweep_options& o, nlohmann::json& json) {
  constexpr std::uint64_t billion = 1000000000;
  fmt::print(
      "{}: Gelem/s, one thread, median of {} rounds. D = depth at n = 10^9 (tree bound gamma_D). "
      "* = the canonical order v{}.\n",
      type, o.rounds, detred::order_version);
  std::string header = fmt::format("  {:>4} {:>4} {:>6}", "W", "L/W", "L");
  for (std::uint64_t n : o.sizes) {
    header += fmt::format(" {:>10} {:>10}", "tree " + format_size(n), "comp " + format_size(n));
  }
  fmt::print("{} {:>7}\n", header, "D(1e9)");
  std::uint64_t last_w = 0;
  for (const auto& [key, gelem] : r) {
    const auto [w, l, compensated, n] = key;
    if (compensated || n != o.sizes.front()) continue;  // one line per shape
    if (last_w != 0 && w != last_w) fmt::print("\n");
    last_w = w;
    const bool canonical = w == detred::order::lanes<T> && l == detred::order::leaf_size<T>;
    std::string line = fmt::format("{} {:>4} {:>4} {:>6}", canonical ? "*" : " ", w, l / w, l);
    nlohmann::json row = {{"type", type},
                          {"lanes", w},
                          {"leaf_size", l},
                          {"canonical", canonical},
                          {"depth_1e9", depth_for(w, l, billion)}};
    for (std::uint64_t size : o.sizes) {
      const double tree = r.at({w, l, false, size});
      const double comp = r.at({w, l, true, size});
      line += fmt::format(" {:>10.2f} {:>10.2f}", tree, comp);
      row["gelem_per_s"][format_size(size)] = {{"tree", tree}, {"compensated", comp}};
    }
    fmt::print("{} {:>7}\n", line, depth_for(w, l, billion));
    json.push_back(row);
  }
  fmt::print("\n");
}

sweep_options parse(int argc, char** argv) {
  CLI::App app{
      "detred-order-sweep: speed of candidate lane counts W and leaf sizes L of the canonical order, with "
      "the depth each gives at n = 10^9"};
  sweep_options o;
  std::vector<std::string> sizes;
  double min_ms = 30;
  bool quick = false;
  app.add_option("--types", o.types, "element types (default double,float)")
      ->delimiter(',')
      ->check(CLI::IsMember({"double", "float"}));
  app.add_option("--sizes", sizes, "element counts, multiples of 16384 (default 2^16,2^26: in and out of cache)")
      ->delimiter(',');
  app.add_option("--rounds", o.rounds, "rounds (default 5)")->check(CLI::PositiveNumber);
  app.add_option("--min-time-ms", min_ms, "length of one timed batch (default 30)")->check(CLI::PositiveNumber);
  app.add_option("--json", o.json_path, "also write the results as JSON to this file");
  app.add_flag("--quick", quick, "a smoke run: sizes 2^16,2^20, 2 rounds, 5 ms batches (explicit options win)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    std::exit(app.exit(e));
  }
  if (o.types.empty()) o.types = {"double", "float"};
  if (sizes.empty())
    sizes = quick ? std::vector<std::string>{"2^16", "2^20"} : std::vector<std::string>{"2^16", "2^26"};
  for (const std::string& s : sizes) {
    const std::uint64_t n = parse_size(s);
    if (n % sweep_max_leaf_size != 0) {
      std::cerr << "detred-order-sweep: size " << s << " is not a multiple of " << sweep_max_leaf_size << "\n";
      std::exit(2);
    }
    o.sizes.push_back(n);
  }
  if (quick && app.count("--rounds") == 0) o.rounds = 2;
  if (quick && app.count("--min-time-ms") == 0) min_ms = 5;
  o.timing.min_seconds = min_ms / 1000;
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  if (!__builtin_cpu_supports("avx512f")) {
    std::cerr << "detred-order-sweep: the kernels are compiled for AVX-512, which this CPU lacks\n";
    return 2;
  }
  const sweep_options o = parse(argc, argv);
  bool ok = true;
  nlohmann::json json = nlohmann::json::array();
  for (const std::string& type : o.types) {
    if (type == "double") {
      print_type<double>("double", measure_type<double>(o, ok), o, json);
    } else {
      print_type<float>("float", measure_type<float>(o, ok), o, json);
    }
    std::cout.flush();
  }
  if (!o.json_path.empty()) std::ofstream(o.json_path) << json.dump(2) << "\n";
  return ok ? 0 : 1;
}
