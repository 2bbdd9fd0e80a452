// detred check golden.json: re-reads the recorded files, verifies their SHA-256, recomputes every result on this
// machine (the CPU, and the GPU when present) and reports each one whose bits differ.
#include <cstdio>
#include <filesystem>
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
#include "sha256.hpp"

namespace detred::verify::cli {
namespace {

struct check_options {
  std::string golden;
  std::string data_dir;
};

nlohmann::json load_golden(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw input_error(path, "cannot open the golden file");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw input_error(path, std::string("malformed golden file: ") + e.what());
  }
  if (!j.is_object() || !j.contains("detred_golden") || !j.contains("order_version") || !j.contains("files") ||
      !j["files"].is_array()) {
    throw input_error(path, "not a detred golden file (expected detred_golden, order_version and files)");
  }
  return j;
}

int run(const check_options& o) {
  const nlohmann::json golden = load_golden(o.golden);
  std::vector<compute_path> paths = {{detred::backend::cpu, detred::isa::automatic, 0}};
  if (!cuda_problem()) paths.push_back({detred::backend::cuda, detred::isa::automatic, 0});

  int recorded_order = 0;
  std::size_t compared = 0, differ = 0;
  try {
    recorded_order = golden.at("order_version").get<int>();
    // Check the whole golden file's structure first: bad input must not produce a partial report.
    for (const auto& f : golden.at("files")) {
      f.at("path").get<std::string>();
      f.at("sha256").get<std::string>();
      f.at("format").get<std::string>();
      f.at("dtype").get<std::string>();
      for (const auto& r : f.at("results")) {
        r.at("op").get<std::string>();
        parse_mode(r.at("mode").get<std::string>());
        r.at("bits").get<std::string>();
      }
    }
  } catch (const nlohmann::json::exception& e) {
    throw input_error(o.golden, std::string("malformed golden file: ") + e.what());
  } catch (const usage_error& e) {
    throw input_error(o.golden, std::string("malformed golden file: ") + e.what());
  }
  if (recorded_order != detred::order_version) {
    std::printf(
        "%s: recorded with order version %d, this library has order version %d: results are expected to "
        "differ\n",
        o.golden.c_str(), recorded_order, detred::order_version);
  }

  for (const auto& f : golden["files"]) {
    std::string path = f["path"].get<std::string>();
    if (!o.data_dir.empty())
      path = (std::filesystem::path(o.data_dir) / std::filesystem::path(path).filename()).string();
    read_options ro;
    ro.format = parse_file_format(f["format"].get<std::string>()).value_or(file_format::automatic);
    ro.type = parse_dtype(f["dtype"].get<std::string>());
    if (f.contains("column")) ro.column = f["column"].get<std::string>();
    const dataset data = read_dataset(path, ro);
    const std::string sha = sha256_hex(data.file_bytes());
    if (sha != f["sha256"].get<std::string>()) {
      std::printf("%s: SHA-256 differs from the golden file (recorded %s, now %s): the data changed\n", path.c_str(),
                  f["sha256"].get<std::string>().c_str(), sha.c_str());
      ++differ;
      continue;
    }
    for (const auto& r : f["results"]) {
      const detred::mode m = parse_mode(r["mode"].get<std::string>());
      const std::string expected = r["bits"].get<std::string>();
      for (const compute_path& p : paths) {
        const result_bits got = run_sum(data, m, p);
        ++compared;
        if (got.hex() != expected) {
          ++differ;
          std::printf("%s: %s %s on %s: %s (%s), golden %s\n", path.c_str(), r["op"].get<std::string>().c_str(),
                      detred::to_string(m), p.label().c_str(), got.hex().c_str(), got.value().c_str(),
                      expected.c_str());
        }
      }
    }
  }
  const auto problem = cuda_problem();
  std::printf("check %s: %zu results compared on %s, %zu difference(s): %s\n", o.golden.c_str(), compared,
              problem ? "the CPU (no GPU)" : "the CPU and the GPU", differ, differ == 0 ? "PASS" : "FAIL");
  return differ == 0 ? success : bits_differ;
}

}  // namespace

void add_check_command(CLI::App& app, int& status) {
  auto o = std::make_shared<check_options>();
  CLI::App* c = app.add_subcommand("check", "Recompute a golden file's results on this machine and compare bits");
  c->add_option("golden", o->golden, "Golden file written by detred record")->required();
  c->add_option("--data-dir", o->data_dir, "Look for the data files here (by file name) instead of their paths");
  c->callback([o, &status] { status = run(*o); });
}

}  // namespace detred::verify::cli
