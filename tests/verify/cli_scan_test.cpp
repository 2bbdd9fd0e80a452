// SPDX-License-Identifier: BSD-3-Clause
// detred verify --op cumsum and --op exclusive_cumsum end to end: every output checked on .npy, text and raw inputs
// of floating-point and integer types, the worst output named in the table and the JSON, integer overflow refused as
// the oracle agrees, exit statuses 1 and 3 through the fault-injecting build, and the commands that give one result
// per operation (reduce, record, verify --stream) refusing scans with status 2.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "temp_files.hpp"
#include "tool_runner.hpp"

namespace detred::verify {
namespace {

using testing::faulty_tool;
using testing::generated;
using testing::le_bytes;
using testing::npy_bytes;
using testing::outcome;
using testing::tool;
using testing::write_file;

template <class T>
std::string npy_file(const std::string& name, const std::string& descr, const std::vector<T>& x) {
  return write_file(name, npy_bytes("{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" +
                                        std::to_string(x.size()) + ",), }",
                                    le_bytes(x)));
}

TEST(ToolScan, VerifyChecksEveryOutputAndNamesTheWorst) {
  const std::string x = generated("scan-x.npy", "--dist ill-conditioned --n 20001 --seed 5");
  for (const char* op : {"cumsum", "exclusive_cumsum"}) {
    const outcome o = tool(std::string("verify --op ") + op + " " + x + " --threads 1,2");
    EXPECT_EQ(o.status, 0) << o.out << o.err;
    EXPECT_NE(o.out.find(std::string(": ") + op + ", npy, float64, n = 20001"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("  tree "), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("  compensated "), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("worst output i = "), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("20001 outputs checked, 0 above their bounds"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("PASS"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("every output within its documented bound"), std::string::npos) << o.out;
  }
}

TEST(ToolScan, JsonGivesTheWorstOutputsFigures) {
  const std::string x = generated("scan-json.npy", "--dist dynamic-range --n 5000 --seed 6");
  const outcome o = tool("verify --op cumsum --json " + x + " --threads 1");
  ASSERT_EQ(o.status, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["exit_status"], 0);
  const auto& f = j["files"][0];
  EXPECT_EQ(f["op"], "cumsum");
  EXPECT_EQ(f["n"], 5000);
  ASSERT_EQ(f["modes"].size(), 2U);
  for (const auto& m : f["modes"]) {
    EXPECT_EQ(m["outputs"], 5000);
    EXPECT_EQ(m["backends_equal"], true);
    EXPECT_EQ(m["failures"], 0);
    EXPECT_EQ(m["check"], "bound");
    const auto& w = m["worst"];
    EXPECT_LT(w["index"].get<std::uint64_t>(), 5000U);
    EXPECT_LE(w["error_over_bound"].get<double>(), 1.0);
    EXPECT_EQ(w["status"], "within bound");
    EXPECT_GT(w["depth"].get<int>(), 0);
    EXPECT_TRUE(w.contains("bound") && w.contains("error") && w.contains("correctly_rounded"));
  }
  EXPECT_EQ(f["verdict"], "pass");
}

TEST(ToolScan, TextRawAndSixteenBitInputs) {
  const std::string text = write_file("scan.txt", "1.5\n-2.25\n1e10\n3\n-1e10\n0.125\n");
  outcome o = tool("verify --op cumsum " + text + " --threads 1");
  EXPECT_EQ(o.status, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("6 outputs checked"), std::string::npos) << o.out;
  const std::vector<float> values = {1.0F, 1e-8F, -1.0F, 3.0F, std::numeric_limits<float>::infinity(), 2.0F};
  const std::string raw = write_file("scan.f32", le_bytes(values));
  o = tool("verify --op exclusive_cumsum --dtype float32 " + raw + " --threads 1");
  EXPECT_EQ(o.status, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("non-finite as IEEE requires"), std::string::npos) << o.out;
  const std::vector<std::uint16_t> halves = {0x3c00, 0x3800, 0xbc00, 0x4000};  // 1, 0.5, -1, 2
  o = tool("verify --op cumsum " + npy_file("scan-f16.npy", "<f2", halves) + " --threads 1");
  EXPECT_EQ(o.status, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("float16, n = 4"), std::string::npos) << o.out;
}

TEST(ToolScan, IntegerScansAreExactAndRefuseOverflowAsTheOracleDoes) {
  const std::vector<std::int32_t> small = {3, -7, 11, std::numeric_limits<std::int32_t>::min(), 5};
  outcome o = tool("verify --op cumsum " + npy_file("scan-i4.npy", "<i4", small) + " --threads 1,2");
  EXPECT_EQ(o.status, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("every one of the 5 outputs equals the exact prefix sum"), std::string::npos) << o.out;
  const std::vector<std::int64_t> big = {std::numeric_limits<std::int64_t>::max(), 1, -5};
  o = tool("verify --op cumsum " + npy_file("scan-i8.npy", "<i8", big) + " --threads 1");
  EXPECT_EQ(o.status, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("refused, as it must"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("output 1"), std::string::npos) << o.out;
  // The exclusive scan's total after the last element is no output: no refusal.
  const std::vector<std::uint64_t> top = {1, std::numeric_limits<std::uint64_t>::max() - 1, 7};
  o = tool("verify --op exclusive_cumsum " + npy_file("scan-u8.npy", "<u8", top) + " --threads 1");
  EXPECT_EQ(o.status, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("every one of the 3 outputs equals"), std::string::npos) << o.out;
}

TEST(ToolScan, MismatchesAndBoundViolationsFail) {
  const std::string x = generated("scan-fault.npy", "--dist normal --n 3000 --seed 8");
  outcome o = faulty_tool("verify --op cumsum " + x + " --threads 1,2", "mismatch");
  EXPECT_EQ(o.status, 1) << o.out << o.err;
  EXPECT_NE(o.out.find("first at output 2999"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("bitwise mismatch"), std::string::npos) << o.out;
  o = faulty_tool("verify --op cumsum " + x + " --threads 1", "bound");
  EXPECT_EQ(o.status, 3) << o.out << o.err;
  EXPECT_NE(o.out.find("worst output i = 2999"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("1 above their bounds"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("exceeds its documented bound"), std::string::npos) << o.out;
  const std::vector<std::int32_t> small = {1, 2, 3};
  o = faulty_tool("verify --op cumsum " + npy_file("scan-fault-i4.npy", "<i4", small) + " --threads 1", "bound");
  EXPECT_EQ(o.status, 3) << o.out << o.err;
  EXPECT_NE(o.out.find("output 2 differs from the exact prefix sum"), std::string::npos) << o.out;
}

TEST(ToolScan, CommandsWithOneResultRefuseScans) {
  const std::string x = generated("scan-refuse.npy", "--dist uniform --n 100 --seed 9");
  for (const std::string& command :
       {"reduce --op cumsum " + x, "record --op exclusive_cumsum -o " + testing::path_of("scan-golden.json") + " " + x,
        "verify --stream --op cumsum " + x}) {
    const outcome o = tool(command);
    EXPECT_EQ(o.status, 2) << command << "\n" << o.out << o.err;
    EXPECT_EQ(o.out, "") << command;
    EXPECT_NE(o.err.find("a scan has one output per element"), std::string::npos) << o.err;
  }
  const outcome empty = tool("verify --op cumsum " + write_file("scan-empty.npy", ""));
  EXPECT_EQ(empty.status, 2) << empty.out << empty.err;
}

}  // namespace
}  // namespace detred::verify
