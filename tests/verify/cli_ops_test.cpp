// SPDX-License-Identifier: BSD-3-Clause
// The tool's operations end to end (--op): reduce gives the library's bits for every op and element type, verify
// passes and reports each op's checks, dot takes its operands three ways, record/check keep the op, and bad
// combinations give one line with status 2.
#include <bit>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common.hpp"
#include "dataset.hpp"
#include "detred/detred.hpp"
#include "sha256.hpp"
#include "temp_files.hpp"
#include "tool_runner.hpp"

namespace detred::verify {
namespace {

using testing::expect_bad_input;
using testing::faulty_tool;
using testing::generated;
using testing::le_bytes;
using testing::npy_bytes;
using testing::outcome;
using testing::path_of;
using testing::tool;
using testing::write_file;

std::vector<double> doubles_of(const std::string& path) {
  const dataset d = read_dataset(path, {});
  const auto s = std::get<std::span<const double>>(d.values());
  return {s.begin(), s.end()};
}

template <class T>
std::string npy_file(const std::string& name, const std::string& descr, const std::vector<T>& x,
                     const std::string& shape = "") {
  const std::string dims = shape.empty() ? "(" + std::to_string(x.size()) + ",)" : shape;
  return write_file(
      name, npy_bytes("{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + dims + ", }", le_bytes(x)));
}

// "value\nbits\n", as reduce prints one result.
template <class T>
std::string printed(T x) {
  const cli::result_bits r = cli::bits_of(x);
  return r.value() + "\n" + r.hex() + "\n";
}

TEST(ToolOps, ReduceGivesTheLibrarysBitsForEveryOperation) {
  const std::string a = generated("ops-a.npy", "--dist dynamic-range --n 50001 --seed 31");
  const std::string b = generated("ops-b.npy", "--dist normal --n 50001 --seed 32");
  const std::vector<double> x = doubles_of(a), y = doubles_of(b);
  const std::span<const double> sx(x), sy(y);
  const detred::options comp{.mode = mode::compensated};
  EXPECT_EQ(tool("reduce --op asum " + a).out, printed(detred::asum(sx)));
  EXPECT_EQ(tool("reduce --op nrm2 --mode compensated " + a).out, printed(detred::nrm2(sx, comp)));
  EXPECT_EQ(tool("reduce --op min " + a).out, printed(detred::min(sx)));
  EXPECT_EQ(tool("reduce --op max " + a).out, printed(detred::max(sx)));
  EXPECT_EQ(tool("reduce --op argmin " + a).out, printed(detred::argmin(sx)));
  EXPECT_EQ(tool("reduce --op argmax " + a).out, printed(detred::argmax(sx)));
  EXPECT_EQ(tool("reduce --op dot --mode compensated " + a + " " + b).out, printed(detred::dot(sx, sy, comp)));
  // stats: one line per member, name value bits.
  const statistics<double> s = detred::stats(sy);
  const outcome st = tool("reduce --op stats " + b);
  ASSERT_EQ(st.status, 0) << st.err;
  EXPECT_NE(st.out.find("mean " + cli::shortest_decimal(s.mean) + " " + cli::hex_bits(s.mean) + "\n"),
            std::string::npos)
      << st.out;
  EXPECT_NE(st.out.find("sample_stddev " + cli::shortest_decimal(s.sample_stddev)), std::string::npos) << st.out;
  const auto j = nlohmann::json::parse(tool("reduce --op stats --json " + b).out);
  EXPECT_EQ(j["outputs"]["variance"]["bits"], cli::hex_bits(s.variance));
  EXPECT_EQ(j["outputs"]["count"]["value"], "50001");
  // A bound in the JSON for the operations that have one.
  const auto jd = nlohmann::json::parse(tool("reduce --op dot --json " + a + " " + b).out);
  EXPECT_TRUE(jd.contains("bound"));
  EXPECT_EQ(jd["x"], a);
  EXPECT_EQ(jd["y"], b);
  EXPECT_FALSE(nlohmann::json::parse(tool("reduce --op argmax --json " + a).out).contains("bound"));
}

TEST(ToolOps, VerifyPassesForEveryOperationAndSaysWhatItChecked) {
  const std::string a = generated("vops-a.npy", "--dist ill-conditioned --n 30001 --seed 41");
  const std::string b = generated("vops-b.npy", "--dist normal --n 30001 --seed 42 --dtype float32");
  for (const char* op : {"sum", "asum", "nrm2", "min", "max", "argmin", "argmax", "stats", "sumsq"}) {
    for (const std::string& file : {a, b}) {
      const outcome o = tool(std::string("verify --op ") + op + " " + file + " --threads 1,2");
      EXPECT_EQ(o.status, 0) << op << " " << file << "\n" << o.out << o.err;
      EXPECT_NE(o.out.find("verdict " + file + ": PASS"), std::string::npos) << o.out;
    }
  }
  EXPECT_EQ(tool("verify --op dot " + a + " " + a + " --threads 1,2").status, 0);
  const outcome sel = tool("verify --op argmin " + a + " --threads 1");
  EXPECT_NE(sel.out.find(a + ": argmin, npy, float64, n = 30001"), std::string::npos) << sel.out;
  EXPECT_NE(sel.out.find("equal to the exact result"), std::string::npos) << sel.out;
  const outcome st = tool("verify --op stats " + b + " --threads 1");
  EXPECT_NE(st.out.find("  sample_variance "), std::string::npos) << st.out;
  EXPECT_EQ(st.out.find("measured"), std::string::npos) << st.out;
  EXPECT_NE(st.out.find("sum, mean, variances and standard deviations within their bounds"), std::string::npos)
      << st.out;
  // JSON: the op, and per output what was checked.
  const auto j = nlohmann::json::parse(tool("verify --op stats --json " + b + " --threads 1").out);
  const auto& f = j["files"][0];
  EXPECT_EQ(f["op"], "stats");
  ASSERT_EQ(f["outputs"].size(), 9U);
  EXPECT_EQ(f["outputs"][0]["output"], "count");
  EXPECT_EQ(f["outputs"][0]["check"], "exact");
  EXPECT_EQ(f["outputs"][2]["output"], "mean");
  EXPECT_EQ(f["outputs"][2]["check"], "bound");
  EXPECT_EQ(f["outputs"][2]["status"], "within bound");
  EXPECT_EQ(f["outputs"][3]["output"], "variance");
  EXPECT_EQ(f["outputs"][3]["check"], "bound");
  EXPECT_EQ(f["outputs"][3]["status"], "within bound");
  const auto jd = nlohmann::json::parse(tool("verify --op dot --json " + a + " " + a + " --threads 1").out);
  EXPECT_EQ(jd["files"][0]["modes"].size(), 3U);  // tree, compensated, exact
  EXPECT_EQ(jd["files"][0]["file"], a + " and " + a);
}

TEST(ToolOps, DotTakesTwoInputsAnNByTwoArrayOrTwoTextColumns) {
  const std::vector<double> x = {1.5, -2.25, 1e10, 3.0, -1e10};
  const std::vector<double> y = {4.0, 0.5, 1.0, 0.1, 1.0};
  const std::string xs = npy_file("dot-x.npy", "<f8", x), ys = npy_file("dot-y.npy", "<f8", y);
  std::vector<double> rows;
  std::string csv = "x,y\n";
  for (std::size_t i = 0; i < x.size(); ++i) {
    rows.push_back(x[i]);
    rows.push_back(y[i]);
    csv += cli::shortest_decimal(x[i]) + "," + cli::shortest_decimal(y[i]) + "\n";
  }
  const std::string pairs = npy_file("dot-pairs.npy", "<f8", rows, "(5, 2)");
  const std::string text = write_file("dot.csv", csv);
  const std::string expected =
      printed(detred::dot(std::span<const double>(x), std::span<const double>(y), {.mode = mode::compensated}));
  EXPECT_EQ(tool("reduce --op dot --mode compensated " + xs + " " + ys).out, expected);
  EXPECT_EQ(tool("reduce --op dot --mode compensated " + pairs).out, expected);
  EXPECT_EQ(tool("reduce --op dot --mode compensated --column x,y " + text).out, expected);
  EXPECT_EQ(tool("verify --op dot " + pairs + " " + xs + " " + ys + " --threads 1").status, 0);
  // The same (n, 2) array summed is the flattened array's sum.
  EXPECT_EQ(tool("reduce " + pairs).out, printed(detred::sum(std::span<const double>(rows))));

  expect_bad_input("verify --op dot " + xs, xs, "--op dot needs a y");
  const std::string shorter = npy_file("dot-short.npy", "<f8", std::vector<double>{1, 2});
  expect_bad_input("verify --op dot " + xs + " " + shorter, shorter, "dot needs equal lengths");
  const std::string floats = npy_file("dot-f.npy", "<f4", std::vector<float>{1, 2, 3, 4, 5});
  expect_bad_input("verify --op dot " + xs + " " + floats, floats, "dot needs one element type");
  const outcome columns = tool("verify --column x,y " + text);
  EXPECT_EQ(columns.status, 2);
  EXPECT_NE(columns.err.find("two columns are the x and y of --op dot"), std::string::npos) << columns.err;
}

TEST(ToolOps, IntegerAndSixteenBitInputs) {
  const std::vector<std::int32_t> ints = {7, -3, 2147483647, 2147483647, -9};
  const std::string i4 = npy_file("ints.npy", "<i4", ints);
  const std::span<const std::int32_t> si(ints);
  EXPECT_EQ(tool("reduce " + i4).out, printed(detred::sum(si)));
  EXPECT_EQ(tool("reduce --op argmax " + i4).out, printed(std::uint64_t{2}));
  EXPECT_EQ(tool("reduce --op min " + i4).out, printed(std::int32_t{-9}));
  for (const char* op : {"sum", "min", "max", "argmin", "argmax"}) {
    const outcome o = tool(std::string("verify --op ") + op + " " + i4 + " --threads 1,2");
    EXPECT_EQ(o.status, 0) << op << o.out << o.err;
  }
  expect_bad_input("verify --op nrm2 " + i4, i4, "--op nrm2 does not read int32 elements");
  // uint8 widens to uint32; its sum is a uint64.
  const std::string u1 = npy_file("bytes.npy", "|u1", std::vector<std::uint8_t>{255, 255, 1});
  EXPECT_EQ(tool("reduce " + u1).out, printed(std::uint64_t{511}));
  EXPECT_NE(tool("verify " + u1 + " --threads 1").out.find("npy, uint8, n = 3"), std::string::npos);
  // An int64 sum that does not fit: verify agrees with the oracle, reduce and record refuse with status 2.
  const std::string over =
      npy_file("over.npy", "<i8", std::vector<std::int64_t>{std::numeric_limits<std::int64_t>::max(), 1});
  const outcome v = tool("verify " + over + " --threads 1");
  EXPECT_EQ(v.status, 0) << v.out << v.err;
  EXPECT_NE(v.out.find("the exact sum 9223372036854775808 does not fit in int64"), std::string::npos) << v.out;
  expect_bad_input("reduce " + over, over, "does not fit in int64");
  expect_bad_input("record " + over + " -o " + path_of("never-int.json"), over, "does not fit in int64");

  // float16 and bfloat16: summed and dotted in float.
  const std::vector<std::uint16_t> half_bits = {0x3c00, 0x4000, 0x0001, 0xb800};  // 1 2 2^-24 -0.5
  const std::string f2 = npy_file("half.npy", "<f2", half_bits);
  std::vector<float16> halves;
  for (std::uint16_t h : half_bits) halves.push_back(float16{h});
  EXPECT_EQ(tool("reduce " + f2).out, printed(detred::sum(std::span<const float16>(halves))));
  EXPECT_EQ(tool("verify " + f2 + " --threads 1").status, 0);
  EXPECT_EQ(tool("verify --op dot " + f2 + " " + f2 + " --threads 1").status, 0);
  expect_bad_input("verify --op max " + f2, f2, "16-bit floats: sum, dot, cumsum, exclusive_cumsum, sumsq and mean");
  const std::string v2 = npy_file("brain.npy", "|V2", std::vector<std::uint16_t>{0x3f80, 0x4040});
  expect_bad_input("reduce " + v2, v2, "add --dtype bfloat16");
  EXPECT_EQ(tool("reduce --dtype bfloat16 " + v2).out, "4\n0x40800000\n");
  const std::string bf = npy_file("brain-named.npy", "bfloat16", std::vector<std::uint16_t>{0x3f80, 0x4040});
  EXPECT_EQ(tool("verify " + bf + " --threads 1").status, 0);
}

TEST(ToolOps, EmptyInputsHaveNoMinimumButASum) {
  const std::string empty = npy_file("empty.npy", "<f8", std::vector<double>{});
  expect_bad_input("verify --op min " + empty, empty, "an empty array has no min");
  EXPECT_EQ(tool("reduce " + empty).out, "-0\n0x8000000000000000\n");
  EXPECT_EQ(tool("verify --op stats " + empty + " --threads 1").status, 0);
  EXPECT_EQ(tool("reduce --op nrm2 " + empty).out, "0\n0x0000000000000000\n");
}

TEST(ToolOps, NormsAndDotsAtTheEndsOfTheRangeVerify) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"big.npy", npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }",
                            le_bytes(std::vector<double>{1e200, 1e200}))},
      {"tiny.npy", npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }",
                             le_bytes(std::vector<double>{1e-200, 1e-200}))},
      {"sub.npy", npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }",
                            le_bytes(std::vector<double>{4.9e-324, -1e-310, 2e-320}))},
      {"fbig.npy", npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
                             le_bytes(std::vector<float>{3e38f, 1e37f}))},
      {"ftiny.npy", npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
                              le_bytes(std::vector<float>{1e-38f, 1e-38f}))},
      {"fsub.npy", npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
                             le_bytes(std::vector<float>{1e-45f, 3e-42f}))},
  };
  for (const auto& [name, bytes] : cases) {
    const std::string file = write_file(name, bytes);
    for (const char* op : {"nrm2", "asum", "dot"}) {
      // Squares of the big ones overflow, so their dot products do (below); their norms do not.
      if (std::string(op) == "dot" && name.find("big") != std::string::npos) continue;
      const std::string args =
          std::string("verify --op ") + op + " " + file + (std::string(op) == "dot" ? " " + file : "");
      const outcome o = tool(args + " --threads 1,2");
      EXPECT_EQ(o.status, 0) << args << "\n" << o.out << o.err;
      EXPECT_EQ(o.out.find("overflow"), std::string::npos) << args << "\n" << o.out;
    }
  }
  // [1e200, 1e200] as a dot product overflows double: reported, not a failure.
  const std::string big = path_of("big.npy");
  const outcome o = tool("verify --op dot " + big + " " + big + " --threads 1");
  EXPECT_EQ(o.status, 0);
  EXPECT_NE(o.out.find("overflow (no bound applies)"), std::string::npos) << o.out;
}

TEST(ToolOps, RecordAndCheckKeepTheOperation) {
  const std::string a = generated("rec-a.npy", "--dist normal --n 20000 --seed 51");
  const std::string b = generated("rec-b.npy", "--dist uniform --n 20000 --seed 52");
  const std::string stats_golden = path_of("stats-golden.json");
  ASSERT_EQ(tool("record --op stats " + a + " -o " + stats_golden).status, 0);
  std::ifstream in(stats_golden);
  nlohmann::json g = nlohmann::json::parse(in);
  ASSERT_EQ(g["files"][0]["results"].size(), 9U);
  EXPECT_EQ(g["files"][0]["results"][2]["op"], "stats");
  EXPECT_EQ(g["files"][0]["results"][2]["output"], "mean");
  EXPECT_EQ(g["files"][0]["results"][2]["mode"], "tree");
  EXPECT_EQ(g["files"][0]["results"][0]["type"], "uint64");
  EXPECT_EQ(tool("check " + stats_golden).status, 0);
  // One changed bit of the mean is found and named.
  const std::string bits = g["files"][0]["results"][2]["bits"];
  char next[32];
  std::snprintf(next, sizeof next, "0x%016llx", std::stoull(bits.substr(2), nullptr, 16) + 1);
  g["files"][0]["results"][2]["bits"] = next;
  const outcome changed = tool("check " + write_file("stats-changed.json", g.dump()));
  EXPECT_EQ(changed.status, 1);
  EXPECT_NE(changed.out.find(a + ": stats.mean tree on cpu/automatic"), std::string::npos) << changed.out;
  EXPECT_NE(changed.out.find("1 ulp apart"), std::string::npos) << changed.out;

  // argmin: an integer result; a changed golden index is "integers differ".
  const std::string arg_golden = path_of("argmin-golden.json");
  ASSERT_EQ(tool("record --op argmin " + a + " -o " + arg_golden).status, 0);
  std::ifstream arg_in(arg_golden);
  nlohmann::json ag = nlohmann::json::parse(arg_in);
  EXPECT_FALSE(ag["files"][0]["results"][0].contains("mode"));
  ag["files"][0]["results"][0]["bits"] = "0x0000000000000000";
  const outcome moved = tool("check " + write_file("argmin-changed.json", ag.dump()));
  EXPECT_EQ(moved.status, 1);
  EXPECT_NE(moved.out.find("argmin on cpu/automatic"), std::string::npos) << moved.out;
  EXPECT_NE(moved.out.find("integers differ"), std::string::npos) << moved.out;

  // dot of two inputs records both; a changed y is a changed input.
  const std::string dot_golden = path_of("dot-golden.json");
  ASSERT_EQ(tool("record --op dot " + a + " " + b + " -o " + dot_golden).status, 0);
  std::ifstream dot_in(dot_golden);
  const nlohmann::json dg = nlohmann::json::parse(dot_in);
  EXPECT_EQ(dg["files"][0]["y"]["path"], b);
  EXPECT_EQ(tool("check " + dot_golden).status, 0);
  EXPECT_EQ(tool("check " + dot_golden + " --data-dir " + testing::scratch_dir().string()).status, 0);
  std::fstream f(b, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(128 + 8 * 5);
  const char one[8] = {0, 0, 0, 0, 0, 0, char(0xf0), 0x3f};
  f.write(one, 8);
  f.close();
  const outcome tampered = tool("check " + dot_golden);
  EXPECT_EQ(tampered.status, 1);
  EXPECT_NE(tampered.out.find("SHA-256 differs"), std::string::npos) << tampered.out;
}

TEST(ToolOps, GoldenFilesWithoutOpsTypesOrOutputsStillCheck) {
  // The format before --op: results of op sum with a mode, bits of the file's dtype, no "type" (and a result without
  // an op is a sum).
  const std::string data = write_file("old.npy", npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }",
                                                           le_bytes(std::vector<double>{0.5, 0.25, 2})));
  const std::string sha = sha256_hex(read_dataset(data, {}).digest_bytes());
  const std::string old = R"({"detred_golden": 1, "order_version": 1, "files": [{"path": ")" + data +
                          R"(", "sha256": ")" + sha + R"(", "format": "npy", "dtype": "float64", "results": [
      {"op": "sum", "mode": "tree", "bits": "0x4006000000000000", "value": "2.75"},
      {"mode": "compensated", "bits": "0x4006000000000000", "value": "2.75"}]}]})";
  const outcome o = tool("check " + write_file("old-golden.json", old));
  EXPECT_EQ(o.status, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("2 results compared"), std::string::npos) << o.out;
  expect_bad_input("check " + write_file("badop.json", R"({"detred_golden": 1, "order_version": 1, "files": [
      {"path": "x.npy", "sha256": "", "format": "npy", "dtype": "float64",
       "results": [{"op": "median", "mode": "tree", "bits": "0x0000000000000000"}]}]})"),
                   "badop.json", "malformed golden file: unknown op median");
  expect_bad_input("check " + write_file("badtype.json", R"({"detred_golden": 1, "order_version": 1, "files": [
      {"path": "x.npy", "sha256": "", "format": "npy", "dtype": "float64",
       "results": [{"op": "argmin", "type": "uint64", "bits": "0x00000000"}]}]})"),
                   "badtype.json", "malformed golden file: bits 0x00000000 are not a uint64 pattern");
}

TEST(ToolOps, FaultsAreCaughtForEveryKindOfCheck) {
  const std::string data = generated("faults.npy", "--dist uniform --n 1000 --seed 61");
  EXPECT_EQ(faulty_tool("verify --op argmin " + data, "mismatch").status, 1);
  const outcome differs = faulty_tool("verify --op min " + data, "bound");
  EXPECT_EQ(differs.status, 3);
  EXPECT_NE(differs.out.find("FAIL: a result differs from the exact oracle"), std::string::npos) << differs.out;
  EXPECT_EQ(faulty_tool("verify --op nrm2 " + data, "bound").status, 3);
  EXPECT_EQ(faulty_tool("verify --op dot " + data + " " + data, "bound").status, 3);
  EXPECT_EQ(faulty_tool("verify --op stats " + data, "bound").status, 3);  // sum, mean and count are judged
  const std::string ints = npy_file("fault-ints.npy", "<i4", std::vector<std::int32_t>{5, 6, 7});
  EXPECT_EQ(faulty_tool("verify " + ints, "bound").status, 3);
}

}  // namespace
}  // namespace detred::verify
