// SPDX-License-Identifier: BSD-3-Clause
// Runs the built detred tool in the tests: its exit status, stdout and stderr.
#pragma once

#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

#include <gtest/gtest.h>

#include "temp_files.hpp"

namespace detred::verify::testing {

struct outcome {
  int status = -1;
  std::string out;  ///< stdout
  std::string err;  ///< stderr
};

// Runs the tool with arguments (shell words) and collects both streams and the exit status.
inline outcome run_tool(const char* executable, const std::string& arguments, const std::string& environment) {
  const std::string err_path = (scratch_dir() / "stderr.txt").string();
  const std::string command = environment + " " + executable + " " + arguments + " 2>" + err_path;
  outcome o;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return o;
  std::array<char, 4096> buffer{};
  std::size_t got = 0;
  while ((got = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) o.out.append(buffer.data(), got);
  const int raw = ::pclose(pipe);
  o.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  std::ifstream in(err_path);
  o.err.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return o;
}

// The shipped tool.
inline outcome tool(const std::string& arguments, const std::string& environment = "") {
  return run_tool(DETRED_TOOL_PATH, arguments, environment);
}

// The test build of the tool, which honours DETRED_VERIFY_INJECT_FAULT.
inline outcome faulty_tool(const std::string& arguments, const std::string& fault) {
  return run_tool(DETRED_FAULT_TOOL_PATH, arguments, "DETRED_VERIFY_INJECT_FAULT=" + fault);
}

inline std::string path_of(const std::string& name) { return (scratch_dir() / name).string(); }

inline std::string generated(const std::string& name, const std::string& options) {
  const std::string path = path_of(name);
  const outcome g = tool("gen " + options + " -o " + path);
  EXPECT_EQ(g.status, 0) << g.err;
  return path;
}

// A bad-input case: status 2, one line on stderr naming the file, nothing on stdout.
inline void expect_bad_input(const std::string& arguments, const std::string& file, const std::string& problem) {
  const outcome o = tool(arguments);
  EXPECT_EQ(o.status, 2) << arguments << "\n" << o.out << o.err;
  EXPECT_EQ(o.out, "") << "no partial output";
  EXPECT_NE(o.err.find(file), std::string::npos) << o.err;
  EXPECT_NE(o.err.find(problem), std::string::npos) << o.err;
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
}

}  // namespace detred::verify::testing
