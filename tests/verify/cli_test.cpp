// The detred tool end to end: exit statuses, messages, JSON, and the record/check round trip.
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common.hpp"
#include "dataset.hpp"
#include "detred/detred.hpp"
#include "temp_files.hpp"

namespace detred::verify {
namespace {

using testing::scratch_dir;
using testing::write_file;

struct outcome {
  int status = -1;
  std::string out;  ///< stdout
  std::string err;  ///< stderr
};

// Runs the tool with arguments (shell words) and collects both streams and the exit status.
outcome run_tool(const char* executable, const std::string& arguments, const std::string& environment) {
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
outcome tool(const std::string& arguments, const std::string& environment = "") {
  return run_tool(DETRED_TOOL_PATH, arguments, environment);
}

// The test build of the tool, which honours DETRED_VERIFY_INJECT_FAULT.
outcome faulty_tool(const std::string& arguments, const std::string& fault) {
  return run_tool(DETRED_FAULT_TOOL_PATH, arguments, "DETRED_VERIFY_INJECT_FAULT=" + fault);
}

std::string path_of(const std::string& name) { return (scratch_dir() / name).string(); }

std::string generated(const std::string& name, const std::string& options) {
  const std::string path = path_of(name);
  const outcome g = tool("gen " + options + " -o " + path);
  EXPECT_EQ(g.status, 0) << g.err;
  return path;
}

// A bad-input case: status 2, one line on stderr naming the file, nothing on stdout.
void expect_bad_input(const std::string& arguments, const std::string& file, const std::string& problem) {
  const outcome o = tool(arguments);
  EXPECT_EQ(o.status, 2) << arguments << "\n" << o.out << o.err;
  EXPECT_EQ(o.out, "") << "no partial output";
  EXPECT_NE(o.err.find(file), std::string::npos) << o.err;
  EXPECT_NE(o.err.find(problem), std::string::npos) << o.err;
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
}

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
  EXPECT_EQ(parsed["files"][0]["modes"].size(), 2U);
  EXPECT_EQ(parsed["files"][0]["verdict"], "pass");
}

TEST(Tool, ExitStatusesForMismatchBoundViolationAndInternalFailure) {
  const std::string data = generated("fault.npy", "--dist uniform --n 1000");
  EXPECT_EQ(faulty_tool("verify " + data, "mismatch").status, 1);
  EXPECT_EQ(faulty_tool("verify " + data, "bound").status, 3);
  EXPECT_EQ(faulty_tool("verify " + data + " --json", "bound").status, 3);
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
  expect_bad_input("verify " + raw + " --dtype int8", "--dtype int8", "expected float32 or float64");
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
