// SPDX-License-Identifier: BSD-3-Clause
// The readers: every accepted layout, and one clear error naming the file for every kind of bad input.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "dataset.hpp"
#include "input_error.hpp"
#include "npy.hpp"
#include "temp_files.hpp"
#include "text.hpp"

namespace detred::verify {
namespace {

using testing::le_bytes;
using testing::npy_bytes;
using testing::write_file;

const std::string dict_f8_3 = "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }";
const std::vector<double> three = {1.5, -2.25, 1e300};

std::vector<double> doubles(const dataset& d) {
  const auto s = std::get<std::span<const double>>(d.values());
  return {s.begin(), s.end()};
}

// Reading path must fail with an input_error whose message names the file and contains `problem`.
void expect_error(const std::string& path, const std::string& problem, read_options options = {}) {
  try {
    read_dataset(path, options);
    ADD_FAILURE() << path << ": no error, expected '" << problem << "'";
  } catch (const input_error& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind(path + ": ", 0), 0U) << what;
    EXPECT_NE(what.find(problem), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << "one line: " << what;
  }
}

TEST(Npy, ReadsVersionsOneTwoAndThreeInPlace) {
  for (int major : {1, 2, 3}) {
    std::string name = "v";
    name += std::to_string(major);
    name += ".npy";
    const auto path = write_file(name, npy_bytes(dict_f8_3, le_bytes(three), major));
    const dataset d = read_dataset(path, {});
    EXPECT_EQ(d.type(), dtype::float64);
    EXPECT_EQ(d.format(), file_format::npy);
    EXPECT_TRUE(d.mapped_in_place());
    EXPECT_EQ(doubles(d), three);
  }
}

TEST(Npy, ReadsFloat32AndBigEndian) {
  const std::vector<float> f = {0.5f, -3.0f};
  const dataset le = read_dataset(
      write_file("f4.npy", npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)}", le_bytes(f))), {});
  const auto s = std::get<std::span<const float>>(le.values());
  EXPECT_EQ(std::vector<float>(s.begin(), s.end()), f);

  std::string swapped = le_bytes(three);
  for (std::size_t k = 0; k < swapped.size(); k += 8) std::reverse(swapped.begin() + k, swapped.begin() + k + 8);
  const dataset be = read_dataset(
      write_file("be.npy", npy_bytes("{'descr': '>f8', 'fortran_order': False, 'shape': (3,)}", swapped)), {});
  EXPECT_FALSE(be.mapped_in_place());
  const auto got = doubles(be);
  ASSERT_EQ(got.size(), 3U);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(std::bit_cast<std::uint64_t>(got[k]), std::bit_cast<std::uint64_t>(three[k]));
}

TEST(Npy, FlattensAnyCOrderShapeAndScalars) {
  const std::vector<double> six = {1, 2, 3, 4, 5, 6};
  const dataset d = read_dataset(
      write_file("2d.npy", npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", le_bytes(six))),
      {});
  EXPECT_EQ(doubles(d), six);
  const dataset scalar =
      read_dataset(write_file("0d.npy", npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (), }",
                                                  le_bytes(std::vector<double>{7.0}))),
                   {});
  EXPECT_EQ(doubles(scalar), std::vector<double>{7.0});
  const dataset empty = read_dataset(
      write_file("empty-array.npy", npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (0,), }", "")), {});
  EXPECT_EQ(empty.size(), 0U);
}

TEST(Npy, FortranOrderOnlyWhenTheOrderCannotDiffer) {
  const std::vector<double> six = {1, 2, 3, 4, 5, 6};
  EXPECT_EQ(doubles(read_dataset(write_file("f1.npy", npy_bytes("{'descr': '<f8', 'fortran_order': True, "
                                                                "'shape': (1, 6, 1), }",
                                                                le_bytes(six))),
                                 {})),
            six);
  expect_error(
      write_file("f2.npy", npy_bytes("{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }", le_bytes(six))),
      "Fortran-order");
}

TEST(Npy, BadInputGetsOneClearLine) {
  expect_error(write_file("empty.npy", ""), "empty file");
  expect_error((testing::scratch_dir() / "missing.npy").string(), "cannot open");
  expect_error(testing::scratch_dir().string(), "is a directory");
  expect_error(write_file("magic.npy", "NUMPY not really"), "magic");
  expect_error(write_file("short.npy", "\x93NUMPY\x01"), "truncated .npy header");
  std::string bad_version = npy_bytes(dict_f8_3, le_bytes(three));
  bad_version[6] = 9;
  expect_error(write_file("version.npy", bad_version), "unsupported .npy format version 9");
  // The header length field claims more bytes than the file has.
  std::string cut_header = npy_bytes(dict_f8_3, "");
  cut_header.resize(30);
  expect_error(write_file("cut-header.npy", cut_header), "truncated .npy header");
  // Oversized: a version 2 header of 1 MiB.
  std::string huge = "\x93NUMPY\x02";
  huge += std::string("\0\0\0\x10\0", 5);
  expect_error(write_file("huge.npy", huge + std::string(64, ' ')), "oversized .npy header");
  // Truncated data: the header claims 3 elements, the file holds 2.5.
  expect_error(write_file("truncated.npy", npy_bytes(dict_f8_3, le_bytes(three).substr(0, 20))), "truncated data");
  // A header claiming far more data than the file holds, and a shape that overflows.
  expect_error(write_file("claims.npy", npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000,), }",
                                                  le_bytes(three))),
               "claims 1000000000 elements");
  expect_error(
      write_file("overflow.npy",
                 npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", "")),
      "overflows");
  expect_error(write_file("trailing.npy", npy_bytes(dict_f8_3, le_bytes(three) + "xyz")), "3 bytes after");
  expect_error(write_file("complex.npy", npy_bytes("{'descr': '<c16', 'fortran_order': False, 'shape': (3,), }",
                                                   std::string(48, '\0'))),
               "unsupported dtype '<c16'");
  expect_error(write_file("bool.npy",
                          npy_bytes("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }", std::string(3, '\0'))),
               "unsupported dtype '|b1'");
  for (const std::string& dict : {std::string("{'descr': '<f8', 'shape': (3,), }"),
                                  std::string("{'descr': '<f8', 'fortran_order': Maybe, 'shape': (3,), }"),
                                  std::string("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), 'x': 1}"),
                                  std::string("{'descr': '<f8', 'fortran_order': False, 'shape': (-3,), }"),
                                  std::string("{'descr': '<f8' 'fortran_order': False, 'shape': (3,), }"),
                                  std::string("['descr']"), std::string("{'descr: '<f8'")}) {
    SCOPED_TRACE(dict);
    expect_error(write_file("malformed.npy", npy_bytes(dict, le_bytes(three))), "malformed .npy header");
  }
  // --dtype that contradicts the header.
  read_options f32;
  f32.type = dtype::float32;
  expect_error(write_file("ok.npy", npy_bytes(dict_f8_3, le_bytes(three))), "contradicts", f32);
}

TEST(Npy, WriterOutputReadsBack) {
  const std::string path = (testing::scratch_dir() / "written.npy").string();
  npy_writer w(path, dtype::float64, 3);
  w.write(std::span<const double>(three));
  w.finish();
  const dataset d = read_dataset(path, {});
  EXPECT_EQ(doubles(d), three);
  EXPECT_EQ(parse_npy_header(d.digest_bytes(), path).data_offset % 64, 0U);
}

TEST(Raw, NeedsADtypeAndWholeElements) {
  read_options f8;
  f8.type = dtype::float64;
  EXPECT_EQ(doubles(read_dataset(write_file("data.bin", le_bytes(three)), f8)), three);
  expect_error(write_file("data2.bin", le_bytes(three)), "cannot tell the format");
  expect_error(write_file("cut.bin", le_bytes(three).substr(0, 13)), "truncated data: 13 bytes", f8);
  expect_error(write_file("empty.bin", ""), "empty file", f8);
}

TEST(Text, OneNumberPerLineAndCsvColumns) {
  EXPECT_EQ(doubles(read_dataset(write_file("a.txt", "1.5\n# comment\n\n  -2.25 \r\n1e300\n"), {})), three);
  EXPECT_EQ(doubles(read_dataset(write_file("b.txt", "1.5\n-2.25\n1e300"), {})), three);  // no final newline
  read_options by_index;
  by_index.column = "1";
  EXPECT_EQ(doubles(read_dataset(write_file("c.csv", "x,y\n0,1.5\n0,-2.25\n0,\"1e300\"\n"), by_index)), three);
  EXPECT_EQ(doubles(read_dataset(write_file("d.csv", "0,1.5\n0,-2.25\n0,1e300\n"), by_index)), three);
  read_options by_name;
  by_name.column = "y";
  EXPECT_EQ(doubles(read_dataset(write_file("e.csv", "x, y\n0, 1.5\n0, -2.25\n0, 1e300\n"), by_name)), three);
  // Correct rounding, decimal to binary: 0.1 is the double nearest to 1/10; float text is rounded to float once.
  EXPECT_EQ(doubles(read_dataset(write_file("f.txt", "0.1\n4.9e-324\n-inf\n"), {})),
            (std::vector<double>{0.1, 4.9e-324, -std::numeric_limits<double>::infinity()}));
  read_options f4;
  f4.type = dtype::float32;
  const dataset d = read_dataset(write_file("g.txt", "0.1\n16777217\n"), f4);
  const auto s = std::get<std::span<const float>>(d.values());
  EXPECT_EQ(std::vector<float>(s.begin(), s.end()), (std::vector<float>{0.1f, 16777216.0f}));
}

TEST(Text, BadInputGetsOneClearLineWithTheLineNumber) {
  expect_error(write_file("nan.txt", "1\nnan\n"), "line 2: NaN is not accepted");
  expect_error(write_file("word.txt", "1\n2\nthree\n"), "line 3: cannot parse 'three'");
  expect_error(write_file("junk.txt", "1.5x\n"), "line 1: cannot parse");
  expect_error(write_file("big.txt", "1e400\n"), "line 1: '1e400' is out of the range of float64");
  expect_error(write_file("comma.txt", "1,2\n"), "use --column");
  expect_error(write_file("blank.txt", "\n\n# nothing\n"), "no numbers found");
  expect_error(write_file("empty.txt", ""), "empty file");
  read_options col;
  col.column = "z";
  expect_error(write_file("h.csv", "x,y\n1,2\n"), "no column named 'z'", col);
  col.column = "5";
  expect_error(write_file("i.csv", "1,2\n"), "has 2 fields, column 5", col);
  read_options f4;
  f4.type = dtype::float32;
  expect_error(write_file("tiny.txt", "1e-50\n"), "out of the range of float32", f4);
}

}  // namespace
}  // namespace detred::verify
