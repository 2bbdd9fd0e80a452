// SPDX-License-Identifier: BSD-3-Clause
// See input_spec.hpp.
#include "input_spec.hpp"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include <glob.h>

#include "input_error.hpp"

namespace detred::verify {
namespace {

bool is_pattern(const std::string& s) { return s.find_first_of("*?[") != std::string::npos; }

std::vector<std::string> glob_files(const std::string& pattern) {
  std::vector<std::string> out;
  glob_t g{};
  if (::glob(pattern.c_str(), 0, nullptr, &g) == 0) {
    for (std::size_t i = 0; i < g.gl_pathc; ++i) {
      std::error_code ec;
      if (std::filesystem::is_regular_file(g.gl_pathv[i], ec)) out.emplace_back(g.gl_pathv[i]);
    }
  }
  ::globfree(&g);
  std::sort(out.begin(), out.end());
  return out;
}

bool exists(const std::string& path) {
  std::error_code ec;
  return std::filesystem::exists(path, ec);
}

}  // namespace

input_spec split_input_spec(const std::string& spec) {
  if (exists(spec)) return {spec, ""};
  for (std::size_t colon = spec.find(':'); colon != std::string::npos; colon = spec.find(':', colon + 1)) {
    const std::string left = spec.substr(0, colon);
    if (left.empty()) continue;
    if (exists(left) || (is_pattern(left) && !glob_files(left).empty())) return {left, spec.substr(colon + 1)};
  }
  if (is_pattern(spec)) return {spec, ""};
  const std::size_t colon = spec.find(':');
  if (colon != std::string::npos && colon > 0 && colon + 1 < spec.size()) {
    return {spec.substr(0, colon), spec.substr(colon + 1)};
  }
  return {spec, ""};
}

std::string join_input_spec(const input_spec& spec) {
  return spec.variable.empty() ? spec.file : spec.file + ":" + spec.variable;
}

std::vector<std::string> expand_inputs(const std::vector<std::string>& specs) {
  std::vector<std::string> out;
  for (const std::string& s : specs) {
    const input_spec spec = split_input_spec(s);
    std::error_code ec;
    std::vector<std::string> files;
    if (std::filesystem::is_directory(spec.file, ec)) {
      for (const auto& entry : std::filesystem::directory_iterator(spec.file, ec)) {
        const std::string name = entry.path().filename().string();
        std::error_code type_ec;
        if (!name.empty() && name[0] != '.' && entry.is_regular_file(type_ec)) files.push_back(entry.path().string());
      }
      if (ec) throw input_error(spec.file, "cannot list the directory: " + ec.message());
      if (files.empty()) throw input_error(spec.file, "the directory holds no data files");
      std::sort(files.begin(), files.end());
    } else if (!exists(spec.file) && is_pattern(spec.file)) {
      files = glob_files(spec.file);
      if (files.empty()) throw input_error(spec.file, "no file matches the pattern");
    } else {
      out.push_back(s);
      continue;
    }
    for (const std::string& f : files) out.push_back(join_input_spec({f, spec.variable}));
  }
  return out;
}

}  // namespace detred::verify
