// SPDX-License-Identifier: BSD-3-Clause
// See check_report.hpp.
#include "check_report.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>

namespace detred::verify::cli {
namespace {

// Maps bits to an unsigned integer in the order of the values (-max ... -0, +0 ... +max).
std::uint64_t ordered(const result_bits& r) {
  const std::uint64_t sign = r.type == dtype::float32 ? std::uint64_t{1} << 31 : std::uint64_t{1} << 63;
  const std::uint64_t mask = r.type == dtype::float32 ? 0xffffffffULL : ~std::uint64_t{0};
  return (r.bits & sign) ? (~r.bits & mask) : (r.bits | sign);
}

bool is_nan(const result_bits& r) {
  if (r.type == dtype::float32) return (r.bits & 0x7f800000ULL) == 0x7f800000ULL && (r.bits & 0x007fffffULL) != 0;
  return (r.bits & 0x7ff0000000000000ULL) == 0x7ff0000000000000ULL && (r.bits & 0x000fffffffffffffULL) != 0;
}

std::string xml_escape(const std::string& s) {
  std::string out;
  for (const char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        // XML 1.0 allows no control characters but tab, newline and carriage return.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') {
          out += '?';
        } else {
          out += c;
        }
    }
  }
  return out;
}

}  // namespace

std::optional<std::uint64_t> ulps_apart(const result_bits& a, const result_bits& b) {
  if (a.type != b.type || !is_floating(a.type) || !a.refused.empty() || !b.refused.empty() || is_nan(a) || is_nan(b)) {
    return std::nullopt;
  }
  const std::uint64_t x = ordered(a), y = ordered(b);
  return x > y ? x - y : y - x;
}

std::string distance_text(const result_bits& a, const result_bits& b) {
  if (const std::optional<std::uint64_t> ulps = ulps_apart(a, b)) {
    return std::to_string(*ulps) + (*ulps == 1 ? " ulp apart" : " ulps apart");
  }
  return is_floating(a.type) && a.refused.empty() && b.refused.empty() ? "NaN, no distance" : "integers differ";
}

std::optional<result_bits> parse_bits(const std::string& hex, dtype t) {
  const std::size_t digits = item_size(t) == 4 ? 8 : 16;
  if (hex.size() != 2 + digits || hex[0] != '0' || (hex[1] != 'x' && hex[1] != 'X')) return std::nullopt;
  std::uint64_t bits = 0;
  const auto [end, ec] = std::from_chars(hex.data() + 2, hex.data() + hex.size(), bits, 16);
  if (ec != std::errc() || end != hex.data() + hex.size()) return std::nullopt;
  return result_bits{t, bits, {}};
}

std::string result_check::label() const {
  std::string out = output.empty() ? op : op + "." + output;
  return mode.empty() ? out : out + " " + mode;
}

bool result_check::passed() const {
  return !data_changed() && std::all_of(paths.begin(), paths.end(), [](const path_outcome& p) { return p.equal; });
}

std::string result_check::failure_message() const {
  std::string out;
  if (data_changed()) out = "the data changed: SHA-256 recorded " + sha256_recorded + ", now " + sha256_now;
  for (const path_outcome& p : paths) {
    if (p.equal) {
      if (data_changed()) out += "; " + label() + " on " + p.path + ": the bits are the golden ones";
      continue;
    }
    if (!out.empty()) out += "; ";
    out += label() + " on " + p.path + ": " + p.got.hex() + " (" + p.got.value() + "), golden " + golden.hex() + " (" +
           golden.value() + "): " + distance_text(p.got, golden);
  }
  return out;
}

nlohmann::ordered_json check_json(const std::vector<result_check>& checks) {
  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  for (const result_check& c : checks) {
    nlohmann::ordered_json r;
    r["input"] = c.input;
    r["op"] = c.op;
    if (!c.output.empty()) r["output"] = c.output;
    r["mode"] = c.mode.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(c.mode);
    r["dtype"] = to_string(c.golden.type);
    r["golden"] = {{"bits", c.golden.hex()}, {"value", c.golden.value()}};
    r["data"] = c.data_changed() ? "changed" : "unchanged";
    if (c.data_changed()) {
      r["sha256_recorded"] = c.sha256_recorded;
      r["sha256_now"] = c.sha256_now;
    }
    nlohmann::ordered_json paths = nlohmann::ordered_json::array();
    for (const path_outcome& p : c.paths) {
      nlohmann::ordered_json j;
      j["path"] = p.path;
      j["bits"] = p.got.hex();
      j["value"] = p.got.value();
      j["equal"] = p.equal;
      const std::optional<std::uint64_t> ulps = ulps_apart(p.got, c.golden);
      j["ulps_apart"] = ulps ? nlohmann::ordered_json(*ulps) : nlohmann::ordered_json(nullptr);
      paths.push_back(j);
    }
    r["paths"] = paths;
    r["status"] = c.passed() ? "pass" : "fail";
    if (!c.passed()) r["message"] = c.failure_message();
    results.push_back(r);
  }
  return results;
}

std::string check_junit(const std::string& golden, const std::vector<result_check>& checks) {
  const auto failures = std::count_if(checks.begin(), checks.end(), [](const result_check& c) { return !c.passed(); });
  double total = 0;
  for (const result_check& c : checks) total += c.seconds;
  char time[32];
  std::snprintf(time, sizeof time, "%.3f", total);
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<testsuites name=\"detred check\" tests=\"" + std::to_string(checks.size()) + "\" failures=\"" +
         std::to_string(failures) + "\" errors=\"0\" time=\"" + time + "\">\n";
  // The golden file's name without its folder, like the classnames: one test has one name on every checkout.
  const std::string suite = std::filesystem::path(golden).filename().string();
  out += "  <testsuite name=\"" + xml_escape(suite) + "\" tests=\"" + std::to_string(checks.size()) + "\" failures=\"" +
         std::to_string(failures) + "\" errors=\"0\" skipped=\"0\" time=\"" + time + "\">\n";
  for (const result_check& c : checks) {
    std::snprintf(time, sizeof time, "%.3f", c.seconds);
    out += "    <testcase classname=\"" + xml_escape(c.report_input) + "\" name=\"" + xml_escape(c.label()) +
           "\" time=\"" + time + "\"";
    if (c.passed()) {
      out += "/>\n";
      continue;
    }
    const std::string message = xml_escape(c.failure_message());
    out += ">\n      <failure type=\"" + std::string(c.data_changed() ? "data changed" : "bits differ") +
           "\" message=\"" + message + "\">" + message + "</failure>\n    </testcase>\n";
  }
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

}  // namespace detred::verify::cli
