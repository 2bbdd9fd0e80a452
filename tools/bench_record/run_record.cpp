// SPDX-License-Identifier: BSD-3-Clause
#include "run_record.hpp"

#include <sys/utsname.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <thread>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "bench_commit.hpp"  // DETRED_BENCH_COMMIT, regenerated at every build (commit.cmake)

namespace detred::bench {
namespace {

/// The one-minute load average, or -1 where /proc/loadavg does not exist.
double load_average() {
  std::ifstream in("/proc/loadavg");
  double load = -1;
  if (!(in >> load)) return -1;
  return load;
}

/// The CPU's model name as the kernel reports it (x86 "model name", Arm "Hardware" or "CPU part"), or "unknown".
std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    for (const char* key : {"model name", "Hardware"}) {
      if (line.rfind(key, 0) == 0) {
        const auto colon = line.find(':');
        if (colon != std::string::npos && colon + 2 <= line.size()) return line.substr(colon + 2);
      }
    }
  }
  return "unknown";
}

std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

nlohmann::ordered_json to_json(const cell& c) {
  return std::visit(
      [](const auto& v) {
        if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::monostate>) {
          return nlohmann::ordered_json(nullptr);
        } else {
          return nlohmann::ordered_json(v);
        }
      },
      c);
}

nlohmann::ordered_json machine() {
  utsname u{};
  uname(&u);
  return {{"cpu", cpu_model()},
          {"logical_cpus", std::thread::hardware_concurrency()},
          {"system", std::string(u.sysname) + " " + u.release},
          {"architecture", u.machine},
          {"compiler", __VERSION__}};
}

}  // namespace

run_record::run_record(std::string tool, int argc, const char* const* argv)
    : tool_(std::move(tool)),
      arguments_(argv + (argc > 0 ? 1 : 0), argv + argc),
      date_(utc_now()),
      load_at_start_(load_average()) {}

void run_record::set(const std::string& key, cell value) { facts_.emplace_back(key, std::move(value)); }

void run_record::add(record_row row) { rows_.push_back(std::move(row)); }

bool run_record::write(const std::string& path) const {
  nlohmann::ordered_json doc;
  doc["tool"] = tool_;
  doc["arguments"] = arguments_;
  doc["commit"] = DETRED_BENCH_COMMIT;
  doc["date"] = date_;
  doc["machine"] = machine();
  doc["load_average"] = {{"start", load_at_start_}, {"end", load_average()}};
  nlohmann::ordered_json& facts = doc["run"] = nlohmann::ordered_json::object();
  for (const auto& [key, value] : facts_) facts[key] = to_json(value);
  nlohmann::ordered_json& rows = doc["rows"] = nlohmann::ordered_json::array();
  for (const record_row& row : rows_) {
    nlohmann::ordered_json r = nlohmann::ordered_json::object();
    for (const auto& [key, value] : row) r[key] = to_json(value);
    rows.push_back(std::move(r));
  }
  const std::string text = doc.dump(2) + "\n";
  if (path == "-") {
    std::cout << text << std::flush;
    return true;
  }
  std::ofstream out(path);
  out << text;
  out.close();
  if (!out) {
    std::cerr << tool_ << ": cannot write the results to " << path << "\n";
    return false;
  }
  return true;
}

}  // namespace detred::bench
