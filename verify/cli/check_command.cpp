// SPDX-License-Identifier: BSD-3-Clause
// detred check golden.json: re-reads the recorded files, verifies their SHA-256, recomputes every result on this
// machine (the CPU, and the GPU when present) and reports each one whose bits differ.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "check_report.hpp"
#include "commands.hpp"
#include "common.hpp"
#include "detred/version.hpp"
#include "exit_status.hpp"
#include "input_error.hpp"
#include "openmp_wait.hpp"
#include "operations.hpp"
#include "sha256.hpp"
#include "streaming.hpp"

namespace detred::verify::cli {
namespace {

struct check_options {
  std::string golden;
  std::string data_dir;
  std::string junit;
  bool json = false;
  stream_options stream;
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

// Where the data of a recorded input is now: its recorded path, or its file name in --data-dir.
std::string locate(const nlohmann::json& f, const std::string& data_dir) {
  std::string file = f["path"].get<std::string>();
  const std::string variable = f.value("variable", std::string());
  if (!variable.empty() && file.size() > variable.size() + 1 &&
      file.compare(file.size() - variable.size() - 1, std::string::npos, ":" + variable) == 0) {
    file.resize(file.size() - variable.size() - 1);
  }
  if (!data_dir.empty()) file = (std::filesystem::path(data_dir) / std::filesystem::path(file).filename()).string();
  return variable.empty() ? file : file + ":" + variable;
}

// The input located at `located` (FILE or FILE:VARIABLE) named with FILE relative to the golden file's folder: the
// JUnit classname, which must not depend on where the checkout or the build folder is.
std::string relative_to_golden(const std::string& located, const std::string& variable, const std::string& golden) {
  namespace fs = std::filesystem;
  std::string file = located;
  if (!variable.empty()) file.resize(file.size() - variable.size() - 1);
  std::error_code ignored;
  const fs::path folder = fs::absolute(fs::path(golden), ignored).parent_path().lexically_normal();
  const fs::path relative = fs::absolute(fs::path(file), ignored).lexically_normal().lexically_relative(folder);
  const std::string name = relative.empty() ? file : relative.generic_string();
  return variable.empty() ? name : name + ":" + variable;
}

int run(const check_options& o) {
  const nlohmann::json golden = load_golden(o.golden);
  std::vector<compute_path> paths = {{detred::backend::cpu, detred::isa::automatic, 0}};
  if (!cuda_problem()) paths.push_back({detred::backend::cuda, detred::isa::automatic, 0});

  int recorded_order = 0;
  try {
    recorded_order = golden.at("order_version").get<int>();
    // Check the whole golden file's structure first: bad input must not produce a partial report.
    for (const auto& f : golden.at("files")) {
      f.at("path").get<std::string>();
      f.at("sha256").get<std::string>();
      f.at("format").get<std::string>();
      const std::optional<dtype> type = parse_dtype(f.at("dtype").get<std::string>());
      if (!type) throw usage_error("unknown dtype " + f["dtype"].get<std::string>());
      if (f.contains("variable")) f["variable"].get<std::string>();
      if (f.contains("skip_missing")) f["skip_missing"].get<bool>();
      if (f.contains("y")) {
        f["y"].at("path").get<std::string>();
        f["y"].at("sha256").get<std::string>();
        f["y"].at("format").get<std::string>();
        if (f["y"].contains("variable")) f["y"]["variable"].get<std::string>();
      }
      for (const auto& r : f.at("results")) {
        // A result without an op is a sum, as in the earliest golden files.
        const std::string name = r.is_object() && r.contains("op") ? r["op"].get<std::string>() : "sum";
        if (!parse_op(name)) throw usage_error("unknown op " + name + " (expected " + op_names() + ")");
        require_one_result(*parse_op(name), "golden file:");
        if (r.contains("mode")) parse_mode(r["mode"].get<std::string>());
        if (r.contains("output")) r["output"].get<std::string>();
        // Golden files from before the other operations hold sums only, whose type is the file's dtype.
        const std::optional<dtype> result_type = r.contains("type") ? parse_dtype(r["type"].get<std::string>()) : type;
        if (!result_type) throw usage_error("unknown result type " + r["type"].get<std::string>());
        const std::string bits = r.at("bits").get<std::string>();
        if (!parse_bits(bits, *result_type)) {
          throw usage_error("bits " + bits + " are not a " + to_string(*result_type) + " pattern");
        }
      }
    }
  } catch (const nlohmann::json::exception& e) {
    throw input_error(o.golden, std::string("malformed golden file: ") + e.what());
  } catch (const usage_error& e) {
    throw input_error(o.golden, std::string("malformed golden file: ") + e.what());
  }
  // A restart for streaming (openmp_wait.hpp) must come before the first line printed.
  if (o.stream.stream) prefer_passive_openmp_wait();
  if (recorded_order != detred::order_version && !o.json) {
    std::printf(
        "%s: recorded with order version %d, this library has order version %d: results are expected to "
        "differ\n",
        o.golden.c_str(), recorded_order, detred::order_version);
  }

  std::vector<result_check> checks;
  bool any_streamed = false;  // streamed inputs are compared on the CPU only
  for (const auto& f : golden["files"]) {
    read_options ro;
    ro.format = parse_file_format(f["format"].get<std::string>()).value_or(file_format::automatic);
    ro.type = parse_dtype(f["dtype"].get<std::string>());
    if (f.contains("column")) ro.column = f["column"].get<std::string>();
    ro.skip_missing = f.value("skip_missing", false);
    // The recorded inputs: x, and dot's y when it was a second input.
    std::vector<std::string> names, report_names;
    std::vector<read_options> options;
    std::vector<std::string> recorded_sha;
    for (const nlohmann::json* entry : {&f, f.contains("y") ? &f["y"] : nullptr}) {
      if (entry == nullptr) continue;
      read_options entry_options = ro;
      entry_options.format = parse_file_format((*entry)["format"].get<std::string>()).value_or(file_format::automatic);
      names.push_back(locate(*entry, o.data_dir));
      report_names.push_back(relative_to_golden(names.back(), entry->value("variable", std::string()), o.golden));
      options.push_back(entry_options);
      recorded_sha.push_back((*entry)["sha256"].get<std::string>());
    }
    std::vector<dataset> data;
    std::vector<std::string> now_sha;
    // Each (op, mode, path) is computed once; stats' outputs all come from one call.
    std::map<std::tuple<std::string, std::string, std::string>, std::vector<output>> computed;
    bool streamed = o.stream.stream;
    for (std::size_t k = 0; k < names.size(); ++k)
      streamed = streamed || should_stream(o.stream, {names[k]}, options[k]);
    std::optional<stream_outcome> out;
    std::vector<stream_set> streams;
    if (streamed) {
      // One pass computes every recorded (op, mode) on the CPU and the SHA-256; the GPU is not used.
      streams.push_back({std::make_unique<element_stream>(names[0], options[0], chunk_bytes_of(o.stream)), nullptr});
      if (names.size() == 2) {
        streams[0].y = std::make_unique<element_stream>(names[1], options[1], chunk_bytes_of(o.stream));
      }
      std::vector<stream_job> jobs;
      std::vector<std::tuple<std::string, std::string, std::string>> keys;
      for (const auto& r : f["results"]) {
        const auto key =
            std::make_tuple(r.value("op", std::string("sum")), r.value("mode", std::string()), paths[0].label());
        if (std::find(keys.begin(), keys.end(), key) != keys.end()) continue;
        keys.push_back(key);
        const std::optional<detred::mode> m =
            std::get<1>(key).empty() ? std::nullopt : std::optional(parse_mode(std::get<1>(key)));
        jobs.push_back({*parse_op(std::get<0>(key)), m, paths[0]});
      }
      out = run_stream(streams[0], jobs, std::nullopt, "check " + names[0], true);
      for (std::size_t k = 0; k < keys.size(); ++k) computed[keys[k]] = out->results[k];
      now_sha.push_back(out->x_sha256);
      if (names.size() == 2) now_sha.push_back(out->y_sha256);
    } else {
      for (std::size_t k = 0; k < names.size(); ++k) {
        data.push_back(read_dataset(names[k], options[k]));
        now_sha.push_back(sha256_hex(data.back().digest_bytes()));
      }
    }
    std::string sha_recorded, sha_now;
    for (std::size_t k = 0; k < names.size(); ++k) {
      if (recorded_sha[k] != now_sha[k] && sha_now.empty()) {
        sha_recorded = recorded_sha[k];
        sha_now = now_sha[k];
      }
    }
    any_streamed = any_streamed || streamed;
    const std::vector<compute_path> used =
        streamed ? std::vector<compute_path>{paths[0]} : paths;  // streamed inputs are reduced on the CPU
    const std::string input = names.size() == 2 ? names[0] + " and " + names[1] : names[0];
    const std::string report_input =
        report_names.size() == 2 ? report_names[0] + " and " + report_names[1] : report_names[0];
    for (const auto& r : f["results"]) {
      result_check c;
      c.input = input;
      c.report_input = report_input;
      c.op = r.value("op", std::string("sum"));
      c.output = r.value("output", std::string());
      c.mode = r.value("mode", std::string());
      const std::optional<dtype> type = r.contains("type") ? parse_dtype(r["type"].get<std::string>()) : ro.type;
      c.golden = *parse_bits(r["bits"].get<std::string>(), *type);
      c.sha256_recorded = sha_recorded;
      c.sha256_now = sha_now;
      const op operation = *parse_op(c.op);
      const std::optional<operands> in =
          streamed ? std::nullopt : std::optional<operands>(make_operands(operation, data, ro).at(0));
      const std::optional<detred::mode> m = c.mode.empty() ? std::nullopt : std::optional(parse_mode(c.mode));
      // Computed for changed data too: the reports then say how the result moved.
      const auto start = std::chrono::steady_clock::now();
      for (const compute_path& p : used) {
        const auto key = std::make_tuple(c.op, c.mode, p.label());
        if (!computed.contains(key)) computed[key] = run_op(operation, *in, m, p);
        const std::vector<output>& outputs = computed[key];
        const auto found =
            std::find_if(outputs.begin(), outputs.end(), [&](const output& x) { return x.name == c.output; });
        if (found == outputs.end()) {
          throw input_error(o.golden, "malformed golden file: " + c.label() + ": no such result");
        }
        c.paths.push_back({p.label(), found->bits, found->bits == c.golden});
      }
      c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      checks.push_back(std::move(c));
    }
  }

  std::size_t compared = 0, differ = 0;
  std::string last_changed;
  for (const result_check& c : checks) {
    if (c.data_changed()) {
      if (c.input != last_changed) {  // one line and one difference per changed input, as before
        ++differ;
        if (!o.json) {
          std::printf("%s: SHA-256 differs from the golden file (recorded %s, now %s): the data changed\n",
                      c.input.c_str(), c.sha256_recorded.c_str(), c.sha256_now.c_str());
        }
      }
      last_changed = c.input;
      continue;
    }
    compared += c.paths.size();
    for (const path_outcome& p : c.paths) {
      if (p.equal) continue;
      ++differ;
      if (!o.json) {
        std::printf("%s: %s on %s: %s (%s), golden %s (%s): %s\n", c.input.c_str(), c.label().c_str(), p.path.c_str(),
                    p.got.hex().c_str(), p.got.value().c_str(), c.golden.hex().c_str(), c.golden.value().c_str(),
                    distance_text(p.got, c.golden).c_str());
      }
    }
  }
  const int status = differ == 0 ? success : bits_differ;
  const bool gpu = !cuda_problem() && !any_streamed;
  if (!o.junit.empty()) {
    // The report's folder is made (detred_add_golden_test(... JUNIT reports/x.xml) names one in the build tree).
    const std::filesystem::path folder = std::filesystem::path(o.junit).parent_path();
    std::error_code made;
    if (!folder.empty()) std::filesystem::create_directories(folder, made);
    if (made) throw std::runtime_error(o.junit + ": cannot create its folder: " + made.message());
    std::ofstream out(o.junit, std::ios::trunc);
    out << check_junit(o.golden, checks);
    if (!out) throw std::runtime_error(o.junit + ": cannot write the JUnit report");
  }
  if (o.json) {
    nlohmann::ordered_json j;
    j["golden"] = o.golden;
    j["recorded_order_version"] = recorded_order;
    j["order_version"] = detred::order_version;
    j["backends"] = gpu ? "cpu, cuda" : "cpu";
    j["results"] = check_json(checks);
    j["compared"] = compared;
    j["differences"] = differ;
    j["status"] = differ == 0 ? "pass" : "fail";
    j["exit_status"] = status;
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf("check %s: %zu results compared on %s, %zu difference(s): %s\n", o.golden.c_str(), compared,
                gpu ? "the CPU and the GPU" : "the CPU (no GPU)", differ, differ == 0 ? "PASS" : "FAIL");
  }
  return status;
}

}  // namespace

void add_check_command(CLI::App& app, int& status) {
  auto o = std::make_shared<check_options>();
  CLI::App* c = app.add_subcommand("check", "Recompute a golden file's results on this machine and compare bits");
  c->add_option("golden", o->golden, "Golden file written by detred record")->required();
  c->add_option("--data-dir", o->data_dir, "Look for the data files here (by file name) instead of their paths");
  c->add_option("--junit", o->junit, "Also write a JUnit XML report here: one testcase per recorded result");
  c->add_flag("--json", o->json, "Print one JSON object instead of the text report");
  add_stream_options(*c, o->stream);
  c->callback([o, &status] { status = run(*o); });
}

}  // namespace detred::verify::cli
