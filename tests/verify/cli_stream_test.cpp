// SPDX-License-Identifier: BSD-3-Clause
// The tool's streaming mode end to end: reduce, verify, record and check with --stream (chunks forced small, cutting
// elements, leaves and (x, y) pairs) give the reports of the mapped mode bit for bit, for every format and for dot;
// inputs above the memory budget stream by themselves in bounded memory; bad input found mid-stream gives one line
// and status 2.
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "container_files.hpp"
#include "temp_files.hpp"
#include "tool_runner.hpp"

namespace detred::verify {
namespace {

using testing::expect_bad_input;
using testing::generated;
using testing::le_bytes;
using testing::npy_bytes;
using testing::outcome;
using testing::path_of;
using testing::tool;
using testing::write_file;

#if defined(__SANITIZE_ADDRESS__)
constexpr bool address_sanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool address_sanitized = true;
#else
constexpr bool address_sanitized = false;
#endif
#else
constexpr bool address_sanitized = false;
#endif

// verify's JSON report without what differs by design: which paths ran (the GPU is not used when streaming) and
// the mode's own fields. Every row's value, bits, oracle figures and status stay.
nlohmann::json verify_json(const std::string& arguments, const std::string& environment = "") {
  const outcome o = tool("verify " + arguments + " --threads 1,2 --json", environment);
  EXPECT_EQ(o.status, 0) << arguments << "\n" << o.err;
  nlohmann::json j = nlohmann::json::parse(o.out.empty() ? "{}" : o.out);
  for (auto& f : j["files"]) {
    f.erase("cuda");
    f.erase("streamed");
    for (const char* rows : {"modes", "outputs"}) {
      for (auto& r : f[rows]) {
        EXPECT_TRUE(r.value("backends_equal", false)) << arguments;
        r.erase("results");
      }
      if (f[rows].is_null()) f.erase(rows);
    }
  }
  return j;
}

// verify and reduce --json of the mapped mode against streams of several chunk sizes.
void expect_streamed_same(const std::string& arguments, const std::vector<std::string>& chunks = {"1000", "49155"}) {
  const nlohmann::json mapped = verify_json(arguments);
  const outcome reduced = tool("reduce " + arguments + " --json");
  for (const std::string& chunk : chunks) {
    const std::string stream = " --stream --chunk-bytes " + chunk;
    EXPECT_EQ(verify_json(arguments + stream), mapped) << arguments << stream;
    const outcome r = tool("reduce " + arguments + stream + " --json");
    EXPECT_EQ(r.status, reduced.status) << r.err;
    EXPECT_EQ(r.out, reduced.out) << arguments << stream;
  }
}

TEST(ToolStream, EveryOperationGivesTheMappedBits) {
  // 10007 doubles: 4 whole leaves and a ragged one; 1000-byte chunks cut leaves, 49155-byte chunks cut an element.
  const std::string x = generated("st-x.npy", "--dist ill-conditioned --n 10007 --seed 4");
  const std::string f = generated("st-f.npy", "--dist normal --n 9001 --dtype float32 --seed 5");
  for (const char* op : {"sum", "asum", "nrm2", "stats", "argmin", "max"}) {
    expect_streamed_same(std::string("--op ") + op + " " + x);
  }
  expect_streamed_same(f);
  expect_streamed_same("--op stats " + f, {"999"});
  const std::vector<std::int16_t> i2 = {-32768, 32767, -1, 0, 5, 7, 9, -300};
  const std::string ints =
      write_file("st-i2.npy", npy_bytes("{'descr': '<i2', 'fortran_order': False, 'shape': (8,), }", le_bytes(i2)));
  expect_streamed_same(ints, {"3"});
  expect_streamed_same("--op argmax " + ints, {"3"});
}

TEST(ToolStream, EveryFormatAndDotGiveTheMappedBits) {
  std::vector<double> x(3000), y(3000);
  std::string text, csv = "x,y\n";
  for (std::size_t k = 0; k < x.size(); ++k) {
    x[k] = std::ldexp(static_cast<double>((k * 7919) % 1000) - 499.5, static_cast<int>(k % 60) - 30);
    y[k] = std::ldexp(static_cast<double>((k * 104729) % 997) - 500.25, static_cast<int>(k % 17) - 8);
    char line[96];
    std::snprintf(line, sizeof line, "%.17g\n", x[k]);
    text += line;
    std::snprintf(line, sizeof line, "%.17g,%.17g\n", x[k], y[k]);
    csv += line;
  }
  const std::string t = write_file("st.txt", text), c = write_file("st.csv", csv);
  expect_streamed_same(t, {"7"});
  expect_streamed_same("--op dot --column x,y " + c, {"7"});
  expect_streamed_same("--dtype float64 " + write_file("st.bin", le_bytes(x)), {"1001"});
  const std::string xn = write_file("st-xd.npy", npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': "
                                                           "(3000,), }",
                                                           le_bytes(x)));
  const std::string yn = write_file("st-yd.npy", npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': "
                                                           "(3000,), }",
                                                           le_bytes(y)));
  expect_streamed_same("--op dot " + xn + " " + yn, {"1000", "12"});
  std::vector<double> rows;
  for (std::size_t k = 0; k < x.size(); ++k) {
    rows.push_back(x[k]);
    rows.push_back(y[k]);
  }
  // 12-byte chunks cut every other pair in half.
  expect_streamed_same("--op dot " + write_file("st-pairs.npy", npy_bytes("{'descr': '<f8', 'fortran_order': False, "
                                                                          "'shape': (3000, 2), }",
                                                                          le_bytes(rows))),
                       {"12"});
  nlohmann::json header;
  header["w"] = {{"dtype", "F64"}, {"shape", {3000}}, {"data_offsets", {0, 24000}}};
  expect_streamed_same(write_file("st.safetensors", testing::safetensors_bytes(header, le_bytes(x), 3)) + ":w",
                       {"1000"});
  std::vector<double> field = x;
  for (std::size_t k = 0; k < field.size(); k += 31) field[k] = -999;
  testing::netcdf_layout nc;
  nc.chunks = {7, 100};
  nc.deflate = 1;
  nc.fill = -999;
  const std::string n = testing::write_netcdf("st.nc", "v", {30, 100}, field, nc);
  expect_streamed_same(n + ":v", {"1000"});
  expect_streamed_same("--skip-missing " + n + ":v", {"1000"});
  testing::hdf5_layout h5;
  h5.chunks = {9, 100};
  h5.gzip = 1;
  expect_streamed_same(testing::write_hdf5("st.h5", "/g/v", {30, 100}, x, h5) + ":/g/v", {"1000"});
}

TEST(ToolStream, RecordAndCheckStream) {
  const std::string data = generated("st-rec.npy", "--dist uniform --n 5000 --seed 8");
  const std::string mapped = path_of("st-mapped.json"), streamed = path_of("st-streamed.json");
  ASSERT_EQ(tool("record --op stats " + data + " -o " + mapped).status, 0);
  const outcome r = tool("record --op stats " + data + " --stream --chunk-bytes 999 -o " + streamed);
  ASSERT_EQ(r.status, 0) << r.err;
  auto read = [](const std::string& path) {
    nlohmann::json j = nlohmann::json::parse(std::ifstream(path));
    return j["files"];
  };
  EXPECT_EQ(read(streamed), read(mapped));
  const outcome c = tool("check " + mapped + " --stream --chunk-bytes 1001");
  EXPECT_EQ(c.status, 0) << c.out << c.err;
  EXPECT_NE(c.out.find("9 results compared"), std::string::npos) << c.out;
  // A changed element: the streamed SHA-256 sees it.
  std::fstream f(data, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(-3, std::ios::end);
  f.put('\x7f');
  f.close();
  const outcome changed = tool("check " + mapped + " --stream");
  EXPECT_EQ(changed.status, 1) << changed.out << changed.err;
  EXPECT_NE(changed.out.find("SHA-256 differs"), std::string::npos) << changed.out;
}

TEST(ToolStream, InputsAboveTheBudgetStreamInBoundedMemory) {
  // 2^22 doubles (32 MiB) against a 1 MiB budget: streamed by itself, in 1 MiB reads. Written here, not by a child
  // process, so that the children's peak memory below is the streaming tool's alone.
  const std::size_t n = std::size_t{1} << 22;
  const std::string big = path_of("st-big.npy");
  {
    std::ofstream out(big, std::ios::binary | std::ios::trunc);
    out << npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (" + std::to_string(n) + ",), }", "");
    std::vector<double> block(1 << 16);
    for (std::size_t k = 0; k < n; k += block.size()) {
      for (std::size_t i = 0; i < block.size(); ++i) block[i] = std::sin(static_cast<double>(k + i)) * 1e3;
      out.write(reinterpret_cast<const char*>(block.data()), static_cast<std::streamsize>(block.size() * 8));
    }
  }
  const outcome o = tool("reduce --op asum --json " + big + " --chunk-bytes 1048576", "DETRED_MEMORY_BUDGET=1M");
  ASSERT_EQ(o.status, 0) << o.err;
  rusage children{};
  ::getrusage(RUSAGE_CHILDREN, &children);
  // Mapped, the file alone would add 32 MiB of resident pages; streamed, the tool stays near its own size. (Not under
  // AddressSanitizer, whose shadow memory and quarantine make resident sizes meaningless.)
  if (!address_sanitized) {
    EXPECT_LT(children.ru_maxrss, 28 * 1024) << "peak resident KiB of the tool";
  }
  EXPECT_EQ(o.out, tool("reduce --op asum --json " + big).out);

  const outcome v = tool("verify " + big + " --threads 1", "DETRED_MEMORY_BUDGET=1M");
  EXPECT_EQ(v.status, 0) << v.err;
  EXPECT_NE(v.out.find("streamed, cuda: not used"), std::string::npos) << v.out;
  const outcome bad = tool("verify " + big, "DETRED_MEMORY_BUDGET=lots");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("DETRED_MEMORY_BUDGET=lots"), std::string::npos) << bad.err;
}

/// Writes n doubles as a .npy file (here, not by a child process: the peak memory measured below is the tool's).
std::string write_doubles_npy(const std::string& name, std::size_t n) {
  const std::string path = path_of(name);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (" + std::to_string(n) + ",), }", "");
  std::vector<double> block(1 << 16);
  for (std::size_t k = 0; k < n; k += block.size()) {
    for (std::size_t i = 0; i < block.size(); ++i) block[i] = std::cos(static_cast<double>(k + i));
    out.write(reinterpret_cast<const char*>(block.data()), static_cast<std::streamsize>(block.size() * 8));
  }
  return path;
}

/// The peak resident KiB of `command` run by /bin/sh and everything it started (wait4 of that child alone). Linux
/// starts a spawned child's peak at this process's resident size (exec keeps the larger of the two), so a peak at
/// or below peak_resident_kib("true") says nothing about the command.
long peak_resident_kib(const std::string& command) {
  const char* argv[] = {"sh", "-c", command.c_str(), nullptr};
  pid_t child = -1;
  if (::posix_spawn(&child, "/bin/sh", nullptr, nullptr, const_cast<char* const*>(argv), environ) != 0) return -1;
  int status = 0;
  rusage usage{};
  if (::wait4(child, &status, 0, &usage) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1;
  return usage.ru_maxrss;
}

/// The budget bounds the reading, not only the choice to stream: without --chunk-bytes the chunks are derived from
/// it, so a 48 MiB input takes no more memory than a 6 MiB one under a 4 MiB budget (with 32 MiB chunks whatever the
/// budget, the peak grew by three chunks: 93 MiB for a 45 MiB file).
TEST(ToolStream, TheBudgetBoundsTheReadingsMemory) {
  const std::string small = write_doubles_npy("st-6mib.npy", std::size_t{6} << 17);
  const std::string large = write_doubles_npy("st-48mib.npy", std::size_t{6} << 20);
  const auto run = [](const std::string& file) {
    return peak_resident_kib("DETRED_MEMORY_BUDGET=4M " + std::string(DETRED_TOOL_PATH) + " reduce --threads 1 " +
                             file + " >/dev/null");
  };
  const long floor = peak_resident_kib("true"), small_peak = run(small), large_peak = run(large);
  ASSERT_GT(small_peak, 0);
  ASSERT_GT(large_peak, 0);
  std::printf("peak resident KiB under a 4 MiB budget: 6 MiB input %ld, 48 MiB input %ld (this process: %ld)\n",
              small_peak, large_peak, floor);
  if (floor >= small_peak) {
    GTEST_SKIP() << "this test process is larger (" << floor << " KiB) than the tool's peak: run the test alone "
                 << "(ctest does) to measure the tool";
  }
  if (!address_sanitized) {
    EXPECT_LT(large_peak - small_peak, 4 * 1024)
        << "peak resident KiB: 6 MiB input " << small_peak << ", 48 MiB input " << large_peak;
  }
  EXPECT_EQ(tool("reduce --json " + large, "DETRED_MEMORY_BUDGET=4M").out, tool("reduce --json " + large).out);
}

TEST(ToolStream, BadInputMidStreamGivesOneLineAndStatusTwo) {
  const std::string good = generated("st-good.npy", "--dist uniform --n 100");
  std::string text;
  for (int k = 0; k < 3000; ++k) text += std::to_string(k) + ".5\n";
  const std::string bad = write_file("st-bad.txt", text + "12x\n");
  expect_bad_input("verify " + good + " " + bad + " --stream --chunk-bytes 100", bad, "line 3001: cannot parse '12x'");
  // A truncated .npy, and a deflated NetCDF chunk damaged on disk (its library's error, while reading).
  const std::string trunc = path_of("st-trunc.npy");
  std::filesystem::copy_file(good, trunc, std::filesystem::copy_options::overwrite_existing);
  std::filesystem::resize_file(trunc, 500);
  expect_bad_input("verify --stream " + trunc, trunc, "truncated data");
  std::vector<double> v(200 * 100);
  for (std::size_t k = 0; k < v.size(); ++k) v[k] = std::sin(static_cast<double>(k));
  testing::netcdf_layout nc;
  nc.chunks = {10, 100};
  nc.deflate = 1;
  const std::string n = testing::write_netcdf("st-bad.nc", "v", {200, 100}, v, nc);
  const auto size = std::filesystem::file_size(n);
  std::fstream f(n, std::ios::in | std::ios::out | std::ios::binary);
  for (std::uintmax_t at = size / 2; at < size / 2 + 4096 && at < size; at += 64) {
    f.seekp(static_cast<std::streamoff>(at));
    f.put('\x55');
  }
  f.close();
  const outcome o = tool("verify --stream --chunk-bytes 8000 " + n + ":v");
  EXPECT_EQ(o.status, 2) << o.out << o.err;
  EXPECT_EQ(o.out, "");
  EXPECT_NE(o.err.find(n), std::string::npos) << o.err;
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
}

}  // namespace
}  // namespace detred::verify
