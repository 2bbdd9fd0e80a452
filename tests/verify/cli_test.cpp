// SPDX-License-Identifier: BSD-3-Clause
// The detred tool end to end: exit statuses, messages, JSON, and the record/check round trip.
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common.hpp"
#include "container_files.hpp"
#include "dataset.hpp"
#include "detred/detred.hpp"
#include "temp_files.hpp"
#include "tool_runner.hpp"

namespace detred::verify {
namespace {

using testing::expect_bad_input;
using testing::faulty_tool;
using testing::generated;
using testing::outcome;
using testing::path_of;
using testing::scratch_dir;
using testing::tool;
using testing::write_file;

TEST(Tool, HelpOnEverySubcommand) {
  for (const char* sub : {"", "reduce", "verify", "record", "check", "gen"}) {
    const outcome o = tool(std::string(sub) + " --help");
    EXPECT_EQ(o.status, 0) << sub;
    EXPECT_NE(o.out.find("Usage"), std::string::npos) << sub << o.out;
  }
}

TEST(Tool, UsageErrorsExitWithTwo) {
  EXPECT_EQ(tool("").status, 2);
  EXPECT_EQ(tool("frobnicate").status, 2);
  EXPECT_EQ(tool("reduce").status, 2);
  const std::string data = generated("usage.npy", "--dist uniform --n 100");
  EXPECT_EQ(tool("reduce " + data + " --mode fast").status, 2);
  EXPECT_EQ(tool("verify " + data + " --threads 0").status, 2);
  EXPECT_EQ(tool("gen --dist cauchy --n 10 -o " + path_of("x.npy")).status, 2);
}

TEST(Tool, ReduceJsonHasTheDocumentedKeysAndTheLibrarysBits) {
  const std::string data = generated("reduce.npy", "--dist dynamic-range --n 100003 --seed 3");
  const outcome o = tool("reduce " + data + " --mode compensated --threads 2 --json");
  ASSERT_EQ(o.status, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  for (const char* key :
       {"op", "mode", "dtype", "n", "backend", "threads", "order_version", "depth", "bound", "value", "bits"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  const dataset d = read_dataset(data, {});
  const double expected = detred::sum(std::get<std::span<const double>>(d.values()), {.mode = mode::compensated});
  EXPECT_EQ(j["bits"], cli::hex_bits(expected));
  EXPECT_EQ(j["n"], 100003);
  EXPECT_EQ(j["depth"], detred::order::depth<double>(100003));
  EXPECT_EQ(j["threads"], 2);
  // Plain output: the shortest decimal, then the bits.
  EXPECT_EQ(tool("reduce " + data + " --mode compensated").out,
            cli::shortest_decimal(expected) + "\n" + cli::hex_bits(expected) + "\n");
}

TEST(Tool, VerifyPassesAndPrintsTheTable) {
  const std::string a = generated("va.npy", "--dist ill-conditioned --n 70001 --seed 5");
  const std::string b = generated("vb.npy", "--dist normal --n 5000 --dtype float32");
  const outcome o = tool("verify " + a + " " + b + " --threads 1,3");
  EXPECT_EQ(o.status, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("backends equal"), std::string::npos);
  EXPECT_NE(o.out.find("verdict " + a + ": PASS"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("verdict " + b + ": PASS"), std::string::npos) << o.out;
  const outcome j = tool("verify " + a + " --json");
  ASSERT_EQ(j.status, 0);
  const auto parsed = nlohmann::json::parse(j.out);
  // tree, compensated and exact; exact mode is checked for equality with the oracle's correctly rounded sum.
  ASSERT_EQ(parsed["files"][0]["modes"].size(), 3U);
  EXPECT_EQ(parsed["files"][0]["modes"][2]["mode"], "exact");
  EXPECT_EQ(parsed["files"][0]["modes"][2]["check"], "exact");
  EXPECT_EQ(parsed["files"][0]["verdict"], "pass");
  EXPECT_NE(o.out.find("  exact  "), std::string::npos) << o.out;
}

TEST(Tool, ExitStatusesForMismatchBoundViolationAndInternalFailure) {
  const std::string data = generated("fault.npy", "--dist uniform --n 1000");
  EXPECT_EQ(faulty_tool("verify " + data, "mismatch").status, 1);
  EXPECT_EQ(faulty_tool("verify " + data, "bound").status, 3);
  EXPECT_EQ(faulty_tool("verify " + data + " --json", "bound").status, 3);
  // Exact mode allows 0 ulp: every path one ulp off fails it alone.
  const outcome ulp = faulty_tool("verify " + data + " --json", "ulp");
  EXPECT_EQ(ulp.status, 3) << ulp.out << ulp.err;
  const auto modes = nlohmann::json::parse(ulp.out)["files"][0]["modes"];
  ASSERT_EQ(modes.size(), 3U);
  EXPECT_EQ(modes[0]["status"], "within bound");
  EXPECT_EQ(modes[2]["status"], "DIFFERS");
  const outcome internal = faulty_tool("verify " + data, "internal");
  EXPECT_EQ(internal.status, 4);
  EXPECT_NE(internal.err.find("cudaErrorLaunchFailure"), std::string::npos) << internal.err;
  // The shipped tool has no hook: the same environment changes nothing.
  EXPECT_EQ(tool("verify " + data, "DETRED_VERIFY_INJECT_FAULT=mismatch").status, 0);
  // An output the tool cannot write is its own failure, not bad input.
  const outcome unwritable = tool("gen --dist uniform --n 10 -o " + path_of("no-such-dir/x.npy"));
  EXPECT_EQ(unwritable.status, 4) << unwritable.err;
  EXPECT_NE(unwritable.err.find("no-such-dir/x.npy"), std::string::npos) << unwritable.err;
}

TEST(Tool, BadInputFilesExitWithTwoAndOneLine) {
  const std::string good = generated("good.npy", "--dist uniform --n 10");
  const std::string missing = path_of("no-such-file.npy");
  expect_bad_input("verify " + missing, missing, "cannot open");
  expect_bad_input("verify --json " + good + " " + missing, missing, "cannot open");  // no partial JSON
  const std::string empty = write_file("empty.npy", "");
  expect_bad_input("reduce " + empty, empty, "empty file");
  std::ifstream in(good, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string cut = write_file("cut.npy", bytes.substr(0, bytes.size() - 4));
  expect_bad_input("verify " + cut, cut, "truncated data");
  std::string bad_header = bytes;
  bad_header[20] = '!';
  const std::string malformed = write_file("malformed.npy", bad_header);
  expect_bad_input("reduce " + malformed, malformed, "malformed .npy header");
  const std::string text_nan = write_file("nan.txt", "1\n2\nNaN\n");
  expect_bad_input("verify " + text_nan, text_nan, "line 3: NaN is not accepted");
  const std::string text_bad = write_file("bad.txt", "1\nabc\n");
  expect_bad_input("verify " + text_bad, text_bad, "line 2: cannot parse");
  const std::string raw = write_file("raw.bin", std::string(12, '\0'));
  expect_bad_input("verify " + raw + " --dtype float64", raw, "truncated data: 12 bytes");
  expect_bad_input("verify " + raw + " --dtype int128", "--dtype int128", "expected float32, float64, float16");
}

TEST(Tool, RecordThenCheckPassesAndCatchesChangedDataAndChangedBits) {
  const std::string data = generated("golden-data.npy", "--dist normal --n 20000 --seed 11");
  const std::string golden = path_of("golden.json");
  ASSERT_EQ(tool("record " + data + " -o " + golden).status, 0);
  const outcome pass = tool("check " + golden);
  EXPECT_EQ(pass.status, 0) << pass.out << pass.err;
  EXPECT_NE(pass.out.find("PASS"), std::string::npos);
  // --data-dir finds the file by name elsewhere.
  EXPECT_EQ(tool("check " + golden + " --data-dir " + scratch_dir().string()).status, 0);

  // A changed golden bit.
  std::ifstream in(golden);
  nlohmann::json j = nlohmann::json::parse(in);
  std::string bits = j["files"][0]["results"][0]["bits"];
  bits.back() = bits.back() == '0' ? '1' : '0';
  j["files"][0]["results"][0]["bits"] = bits;
  const std::string changed_golden = write_file("golden-changed.json", j.dump());
  const outcome differ = tool("check " + changed_golden);
  EXPECT_EQ(differ.status, 1);
  EXPECT_NE(differ.out.find("golden " + bits), std::string::npos) << differ.out;

  // One changed element: the SHA-256 no longer matches.
  std::fstream f(data, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(128 + 8 * 100);
  const char one[8] = {0, 0, 0, 0, 0, 0, char(0xf0), 0x3f};
  f.write(one, 8);
  f.close();
  const outcome changed = tool("check " + golden);
  EXPECT_EQ(changed.status, 1);
  EXPECT_NE(changed.out.find("SHA-256 differs"), std::string::npos) << changed.out;

  expect_bad_input("check " + write_file("broken.json", "{\"files\": [}"), "broken.json", "malformed golden file");
  expect_bad_input("check " + write_file("wrong.json", "{\"a\": 1}"), "wrong.json", "not a detred golden file");
}

// The values of a generated .npy file, for writing the same values into other formats.
std::vector<double> npy_values(const std::string& path) {
  const dataset d = read_dataset(path, {});
  const auto s = std::get<std::span<const double>>(d.values());
  return {s.begin(), s.end()};
}

TEST(Tool, ContainerVariablesReduceLikeTheNpyOfTheSameValues) {
  const std::string npy = generated("same.npy", "--dist ill-conditioned --n 60000 --seed 21");
  const std::vector<double> x = npy_values(npy);
  const std::string nc = testing::write_netcdf("same.nc", "v", {300, 200}, x, {.chunks = {7, 200}, .deflate = 3});
  const std::string h5 = testing::write_hdf5("same.h5", "/g/v", {60, 1000}, x, {.chunks = {9, 100}, .gzip = 1});
  const std::string st = write_file(
      "same.safetensors",
      testing::safetensors_bytes({{"v", {{"dtype", "F64"}, {"shape", {60000}}, {"data_offsets", {0, 480000}}}}},
                                 testing::le_bytes(x)));
  for (const char* mode : {"tree", "compensated"}) {
    const outcome expected = tool("reduce " + npy + " --mode " + std::string(mode));
    ASSERT_EQ(expected.status, 0) << expected.err;
    for (const std::string& input : {nc + ":v", h5 + ":/g/v", st + ":v"}) {
      const outcome o = tool("reduce " + input + " --mode " + std::string(mode));
      EXPECT_EQ(o.status, 0) << o.err;
      EXPECT_EQ(o.out, expected.out) << input;
    }
  }
  const outcome v = tool("verify " + nc + ":v " + h5 + ":g/v --threads 1,2");
  EXPECT_EQ(v.status, 0) << v.out << v.err;
  EXPECT_NE(v.out.find(nc + ":v: netcdf, float64, n = 60000; "), std::string::npos) << v.out;
  EXPECT_NE(v.out.find("verdict " + h5 + ":g/v: PASS"), std::string::npos) << v.out;
}

TEST(Tool, BadContainerInputsExitWithTwoAndOneLine) {
  const std::string nc = testing::write_netcdf("bad-tool.nc", "v", {2}, std::vector<double>{1, 2}, {.cmode = 0});
  const std::string ints = path_of("ints-tool.nc");
  int ncid = -1, dim = -1, var = -1;
  testing::nc_check(nc_create(ints.c_str(), NC_CLOBBER, &ncid));
  testing::nc_check(nc_def_dim(ncid, "n", 2, &dim));
  testing::nc_check(nc_def_var(ncid, "count", NC_SHORT, 1, &dim, &var));
  testing::nc_check(nc_close(ncid));
  expect_bad_input("reduce " + ints + ":count", ints, "variable 'count' has type short (supported: float, double)");
  expect_bad_input("verify " + nc + ":w", nc, "no variable 'w' (float variables: v)");
  expect_bad_input("record " + nc + " -o " + path_of("never.json"), nc, "name the variable as FILE:VARIABLE");
  const std::string h5 = testing::write_hdf5("bad-tool.h5", "/g/v", {2}, std::vector<float>{1, 2});
  expect_bad_input("verify --json " + nc + ":v " + h5 + ":/g", h5, "'/g' is a group, not a dataset of floats");
  const std::string st = write_file("bad-tool.safetensors", std::string("\x40\0\0\0\0\0\0\0{\"x\": 1}", 16));
  expect_bad_input("check " + write_file("never-golden.json", "{}") + " --junit " + path_of("never.xml"),
                   "never-golden.json", "not a detred golden file");
  expect_bad_input("reduce " + st + ":x", st, "truncated safetensors header: it claims 64 bytes");
  EXPECT_FALSE(std::filesystem::exists(path_of("never.json")));
  EXPECT_FALSE(std::filesystem::exists(path_of("never.xml")));
}

/// A classic or CDF-5 file written by ncgen and cut by head -c exits with 2 and names the file (the NetCDF library
/// itself reads the missing data as zeros: reduce printed 120295 for the first 4000 bytes of 1..1000).
TEST(Tool, TruncatedClassicNetCDFFilesExitWithTwo) {
  std::string data;
  for (int i = 1; i <= 1000; ++i) data += (i > 1 ? ", " : "") + std::to_string(i);
  const std::string cdl = write_file("cut.cdl",
                                     "netcdf cut {\ndimensions:\n  n = 1000 ;\nvariables:\n  double v(n) ;\n"
                                     "data:\n  v = " +
                                         data + " ;\n}\n");
  for (const char* kind : {"nc3", "cdf5"}) {
    const std::string whole = path_of(std::string("whole-") + kind + ".nc");
    const std::string cut = path_of(std::string("cut-") + kind + ".nc");
    ASSERT_EQ(std::system(("ncgen -k " + std::string(kind) + " -o " + whole + " " + cdl).c_str()), 0)
        << "ncgen (Debian: netcdf-bin, installed by tools/setup.sh)";
    ASSERT_EQ(std::system(("head -c 4000 " + whole + " > " + cut).c_str()), 0);
    const outcome full = tool("reduce --json " + whole + ":v");
    EXPECT_EQ(full.status, 0) << full.err;
    EXPECT_NE(full.out.find("500500"), std::string::npos) << full.out;
    expect_bad_input("reduce " + cut + ":v", cut, "truncated NetCDF file: its header places data up to byte");
    expect_bad_input("record " + cut + ":v -o " + path_of("never-cut.json"), cut, "truncated NetCDF file");
    expect_bad_input("verify --stream " + cut + ":v", cut, "truncated NetCDF file");
  }
  EXPECT_FALSE(std::filesystem::exists(path_of("never-cut.json")));
}

TEST(Tool, FillValuesAreReducedAsStoredUnlessSkipped) {
  const std::string nc =
      testing::write_netcdf("fill-tool.nc", "t", {2, 3}, std::vector<double>{1, -999, 2, 3, 4, 5}, {.fill = -999});
  const outcome stored = tool("verify " + nc + ":t --threads 1");
  EXPECT_EQ(stored.status, 0);
  EXPECT_NE(stored.out.find("n = 6; 1 element equal to a fill/missing value (-999) reduced as stored"),
            std::string::npos)
      << stored.out;
  EXPECT_EQ(tool("reduce " + nc + ":t").out, "-984\n0xc08ec00000000000\n");
  const outcome skipped = tool("verify --skip-missing " + nc + ":t --threads 1");
  EXPECT_NE(skipped.out.find("n = 5; 1 fill/missing value (-999) skipped"), std::string::npos) << skipped.out;
  const auto j = nlohmann::json::parse(tool("reduce --skip-missing --json " + nc + ":t").out);
  EXPECT_EQ(j["value"], "15");
  EXPECT_EQ(j["missing_count"], 1);
  EXPECT_EQ(j["missing_skipped"], true);
  // The choice is recorded, and check reads the data the same way.
  const std::string golden = path_of("fill-golden.json");
  ASSERT_EQ(tool("record --skip-missing " + nc + ":t -o " + golden).status, 0);
  std::ifstream in(golden);
  const auto g = nlohmann::json::parse(in);
  EXPECT_EQ(g["files"][0]["skip_missing"], true);
  EXPECT_EQ(g["files"][0]["variable"], "t");
  EXPECT_EQ(g["files"][0]["n"], 5);
  EXPECT_EQ(tool("check " + golden).status, 0);
}

TEST(Tool, DirectoriesAndPatternsAreExpandedSorted) {
  std::filesystem::create_directories(scratch_dir() / "outputs");
  for (const char* name : {"outputs/r2.nc", "outputs/r1.nc"}) {
    testing::write_netcdf(name, "v", {3}, std::vector<double>{1, 2, name[9] == '1' ? 3.0 : 4.0}, {.cmode = 0});
  }
  const std::string dir = path_of("outputs");
  const outcome v = tool("verify " + dir + ":v --threads 1");
  EXPECT_EQ(v.status, 0) << v.err;
  const std::size_t first = v.out.find("verdict " + dir + "/r1.nc:v: PASS");
  const std::size_t second = v.out.find("verdict " + dir + "/r2.nc:v: PASS");
  EXPECT_NE(first, std::string::npos) << v.out;
  EXPECT_NE(second, std::string::npos) << v.out;
  EXPECT_LT(first, second);
  EXPECT_EQ(tool("verify '" + dir + "/*.nc:v' --threads 1").out, v.out);
  EXPECT_EQ(tool("reduce " + dir + "/r1.nc:v").out, "6\n0x4018000000000000\n");
  const outcome many = tool("reduce " + dir + ":v");
  EXPECT_EQ(many.status, 2);
  EXPECT_NE(many.err.find("names 2 inputs; reduce takes one"), std::string::npos) << many.err;
  expect_bad_input("verify '" + dir + "/*.npy'", dir + "/*.npy", "no file matches the pattern");
}

TEST(Tool, CheckOfAVariableCatchesAChangedValueAndWritesJUnitAndJson) {
  const std::vector<double> x = {0.1, 0.2, 0.3, -0.6, 1e-17, 4.5};
  const std::string nc = testing::write_netcdf("ci.nc", "v", {2, 3}, x, {.chunks = {1, 3}, .deflate = 1});
  const std::string golden = path_of("ci-golden.json");
  ASSERT_EQ(tool("record " + nc + ":v -o " + golden).status, 0);
  const std::string junit = path_of("ci-junit.xml");
  const outcome pass = tool("check " + golden + " --junit " + junit);
  EXPECT_EQ(pass.status, 0) << pass.out << pass.err;
  std::ifstream pass_xml(junit);
  const std::string xml((std::istreambuf_iterator<char>(pass_xml)), std::istreambuf_iterator<char>());
  EXPECT_NE(xml.find("<testsuites name=\"detred check\" tests=\"3\" failures=\"0\""), std::string::npos) << xml;
  // Named relative to the golden file's folder (the same on every checkout), suite and classnames alike.
  EXPECT_NE(xml.find("<testcase classname=\"ci.nc:v\" name=\"sum tree\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<testsuite name=\"ci-golden.json\""), std::string::npos) << xml;
  EXPECT_EQ(xml.find(scratch_dir().string()), std::string::npos) << "an absolute path in the report: " << xml;
  // A report in folders that do not exist yet: they are made (status 0, not 4).
  const std::string nested = (scratch_dir() / "reports-new" / "deeper" / "ci.xml").string();
  std::filesystem::remove_all(scratch_dir() / "reports-new");
  const outcome made = tool("check " + golden + " --junit " + nested);
  EXPECT_EQ(made.status, 0) << made.out << made.err;
  EXPECT_TRUE(std::filesystem::exists(nested));
  // The golden file in another folder, the data found through --data-dir: classnames relative to the golden file.
  std::filesystem::create_directories(scratch_dir() / "ci-sub");
  const std::string moved = (scratch_dir() / "ci-sub" / "golden.json").string();
  std::filesystem::copy_file(golden, moved, std::filesystem::copy_options::overwrite_existing);
  ASSERT_EQ(tool("check " + moved + " --data-dir " + scratch_dir().string() + " --junit " + junit).status, 0);
  std::ifstream moved_xml(junit);
  const std::string m((std::istreambuf_iterator<char>(moved_xml)), std::istreambuf_iterator<char>());
  EXPECT_NE(m.find("<testcase classname=\"../ci.nc:v\""), std::string::npos) << m;
  const auto j = nlohmann::json::parse(tool("check --json " + golden).out);
  EXPECT_EQ(j["status"], "pass");
  EXPECT_EQ(j["results"].size(), 3U);  // tree, compensated, exact
  EXPECT_EQ(j["results"][0]["paths"][0]["equal"], true);

  // --data-dir finds the file by name and keeps the variable.
  EXPECT_EQ(tool("check " + golden + " --data-dir " + scratch_dir().string()).status, 0);

  // A changed golden bit: the JUnit failure and the JSON say which result changed and by how many ulps.
  std::ifstream in(golden);
  nlohmann::json g = nlohmann::json::parse(in);
  const std::string bits = g["files"][0]["results"][1]["bits"];
  std::uint64_t b = std::stoull(bits.substr(2), nullptr, 16) + 1;
  char flipped[32];
  std::snprintf(flipped, sizeof flipped, "0x%016llx", static_cast<unsigned long long>(b));
  g["files"][0]["results"][1]["bits"] = flipped;
  const std::string changed = write_file("ci-changed.json", g.dump());
  const outcome differ = tool("check " + changed + " --junit " + junit);
  EXPECT_EQ(differ.status, 1);
  EXPECT_NE(differ.out.find(std::string("golden ") + flipped), std::string::npos) << differ.out;
  EXPECT_NE(differ.out.find(": 1 ulp apart"), std::string::npos) << differ.out;
  std::ifstream fail_xml(junit);
  const std::string failed((std::istreambuf_iterator<char>(fail_xml)), std::istreambuf_iterator<char>());
  EXPECT_NE(failed.find("failures=\"1\""), std::string::npos) << failed;
  EXPECT_NE(failed.find("<failure type=\"bits differ\" message=\"sum compensated on cpu/automatic: " + bits),
            std::string::npos)
      << failed;
  const auto jd = nlohmann::json::parse(tool("check --json " + changed).out);
  EXPECT_EQ(jd["status"], "fail");
  EXPECT_EQ(jd["exit_status"], 1);
  EXPECT_EQ(jd["results"][1]["paths"][0]["ulps_apart"], 1);

  // One changed value in the variable: the data's SHA-256 no longer matches.
  std::vector<double> y = x;
  y[4] = 2e-17;
  testing::write_netcdf("ci.nc", "v", {2, 3}, y, {.chunks = {1, 3}, .deflate = 1});
  const outcome tampered = tool("check " + golden + " --junit " + junit);
  EXPECT_EQ(tampered.status, 1);
  EXPECT_NE(tampered.out.find(nc + ":v: SHA-256 differs from the golden file"), std::string::npos) << tampered.out;
  std::ifstream tampered_xml(junit);
  const std::string t((std::istreambuf_iterator<char>(tampered_xml)), std::istreambuf_iterator<char>());
  EXPECT_NE(t.find("failures=\"3\""), std::string::npos) << t;
  EXPECT_NE(t.find("type=\"data changed\""), std::string::npos) << t;

  expect_bad_input("check " + write_file("badbits.json", R"({"detred_golden": 1, "order_version": 1, "files": [
      {"path": "x.npy", "sha256": "", "format": "npy", "dtype": "float64",
       "results": [{"op": "sum", "mode": "tree", "bits": "0x12"}]}]})"),
                   "badbits.json", "malformed golden file: bits 0x12 are not a float64 pattern");
}

TEST(Tool, GenIsDeterministicAndNamesItsFormat) {
  const std::string a = generated("gen-a.npy", "--dist dynamic-range --n 3000000 --dtype float32 --seed 9");
  const std::string b = generated("gen-b.npy", "--dist dynamic-range --n 3000000 --dtype float32 --seed 9");
  const outcome ra = tool("reduce " + a), rb = tool("reduce " + b);
  EXPECT_EQ(ra.out, rb.out);
  // A fixed value, frozen: the generator must give these bits on every machine.
  const std::string frozen = generated("frozen.npy", "--dist normal --n 1000 --seed 1");
  EXPECT_EQ(tool("reduce " + frozen).out, tool("reduce " + frozen).out);
}

}  // namespace
}  // namespace detred::verify
