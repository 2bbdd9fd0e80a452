// SPDX-License-Identifier: BSD-3-Clause
// The streaming reader against the whole-file reader: for every format, chunk sizes that cut elements, leaves and
// (x, y) pairs give the same elements, the same SHA-256 and the same description; bad input gives the same errors.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "container_files.hpp"
#include "dataset.hpp"
#include "element_stream.hpp"
#include "input_error.hpp"
#include "sha256.hpp"
#include "temp_files.hpp"

namespace detred::verify {
namespace {

using testing::hdf5_layout;
using testing::le_bytes;
using testing::netcdf_layout;
using testing::npy_bytes;
using testing::safetensors_bytes;
using testing::write_file;
using testing::write_hdf5;
using testing::write_netcdf;

// Values of every magnitude and sign, so that an element out of order or lost changes what is compared.
template <class T>
std::vector<T> values(std::size_t n, std::uint64_t seed = 1) {
  std::vector<T> out(n);
  std::uint64_t s = seed;
  for (auto& x : out) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    const double mantissa = static_cast<double>(s >> 11) * 0x1p-53;
    const int exponent = static_cast<int>((s >> 3) % 40) - 20;
    x = static_cast<T>(((s & 1) ? -1 : 1) * std::ldexp(mantissa, exponent));
  }
  return out;
}

// The bytes of the elements of a values_type span, to compare streams with the whole-file reader bit for bit.
std::string bytes_of(const dataset::values_type& v) {
  return std::visit(
      [](auto s) {
        const auto b = std::as_bytes(s);
        return std::string(reinterpret_cast<const char*>(b.data()), b.size());
      },
      v);
}

// Reads the input whole and as streams of several chunk sizes (odd byte counts cut elements and pairs); all must
// give the same elements (x and y for pairs), SHA-256, count and missing count.
void expect_same_as_whole(const std::string& input, const read_options& options = {}, bool pairs = false) {
  const dataset whole = read_dataset(input, options);
  std::string x_whole = bytes_of(whole.values()), y_whole;
  if (pairs) {
    ASSERT_TRUE(whole.holds_pair()) << input;
    x_whole = bytes_of(whole.columns()[0]);
    y_whole = bytes_of(whole.columns()[1]);
  }
  const std::string sha = sha256_hex(whole.digest_bytes());
  for (const std::uint64_t chunk :
       {std::uint64_t{1}, std::uint64_t{7}, std::uint64_t{1000}, std::uint64_t{65539}, default_chunk_bytes}) {
    element_stream s(input, options, chunk);
    EXPECT_EQ(s.info().type(), whole.type());
    EXPECT_EQ(s.info().format(), whole.format());
    EXPECT_EQ(s.info().holds_pair(), whole.holds_pair());
    if (pairs) s.read_pairs();
    std::string x, y;
    std::size_t chunks = 0;
    for (element_chunk c = s.next(); c.size() > 0; c = s.next()) {
      x += bytes_of(c.x);
      if (pairs) y += bytes_of(*c.y);
      ++chunks;
    }
    EXPECT_EQ(x, x_whole) << input << " in chunks of " << chunk << " bytes";
    EXPECT_EQ(y, y_whole) << input << " in chunks of " << chunk << " bytes";
    EXPECT_EQ(s.sha256_hex(), sha) << input;
    const auto size = [](const dataset::values_type& v) {
      return std::visit([](auto span) { return static_cast<std::uint64_t>(span.size()); }, v);
    };
    EXPECT_EQ(s.count(), pairs ? size(whole.columns()[0]) : whole.size());
    EXPECT_EQ(s.info().missing_count(), whole.missing_count());
    if (chunk == 1 && whole.size() > 1) {
      EXPECT_GT(chunks, 1U) << input;
    }
  }
}

TEST(ElementStream, NpyOfEveryLayoutAndType) {
  const auto d = values<double>(5000);
  const auto f = values<float>(4099, 2);
  expect_same_as_whole(
      write_file("s-f8.npy", npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (5000,), }", le_bytes(d))));
  expect_same_as_whole(write_file(
      "s-f4.npy", npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (4099,), }", le_bytes(f), 2)));
  // Big-endian: converted per chunk.
  std::string be = le_bytes(d);
  for (std::size_t k = 0; k < be.size(); k += 8) std::reverse(be.begin() + k, be.begin() + k + 8);
  expect_same_as_whole(
      write_file("s-f8be.npy", npy_bytes("{'descr': '>f8', 'fortran_order': False, 'shape': (50, 100), }", be)));
  // Narrow integers, widened per chunk; 16-bit floats as stored.
  const std::vector<std::int16_t> i2 = {-32768, 32767, -1, 0, 5, 7, 9};
  expect_same_as_whole(
      write_file("s-i2.npy", npy_bytes("{'descr': '<i2', 'fortran_order': False, 'shape': (7,), }", le_bytes(i2))));
  const std::vector<std::uint8_t> u1 = {255, 0, 1, 2, 3};
  expect_same_as_whole(
      write_file("s-u1.npy", npy_bytes("{'descr': '|u1', 'fortran_order': False, 'shape': (5,), }", le_bytes(u1))));
  const std::vector<std::uint16_t> halves = {0x3c00, 0xc000, 0x7e00, 0x0001, 0x8000};
  expect_same_as_whole(
      write_file("s-f2.npy", npy_bytes("{'descr': '<f2', 'fortran_order': False, 'shape': (5,), }", le_bytes(halves))));
  // An (n, 2) array: x and y deinterleaved per chunk, pairs cut by the reads.
  expect_same_as_whole(
      write_file("s-pairs.npy",
                 npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2500, 2), }", le_bytes(d))),
      {}, true);
  // An empty array.
  expect_same_as_whole(
      write_file("s-empty.npy", npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (0,), }", "")));
}

TEST(ElementStream, RawTextAndSafetensors) {
  const auto d = values<double>(3001, 3);
  expect_same_as_whole(write_file("s-raw.bin", le_bytes(d)), {.type = dtype::float64});
  std::string text = "# a comment\r\n", csv = "x,y\n";
  for (std::size_t k = 0; k < 1000; ++k) {
    char line[128];
    std::snprintf(line, sizeof line, "%.17g\r\n%s", d[k], k % 100 == 0 ? "\n" : "");
    text += line;
    std::snprintf(line, sizeof line, "%.17g, \"%.9g\"\n", d[k], d[k + 1]);
    csv += line;
  }
  text += "1.5";  // no newline at the end
  expect_same_as_whole(write_file("s-text.txt", text));
  expect_same_as_whole(write_file("s-text32.txt", text), {.type = dtype::float32});
  expect_same_as_whole(write_file("s-col.csv", csv), {.column = "y"});
  expect_same_as_whole(write_file("s-two.csv", csv), {.column = "x,y"}, true);
  // A tensor after a header whose length is not a multiple of 8: read misaligned, converted per chunk.
  const auto f = values<float>(777, 4);
  nlohmann::json header;
  header["a"] = {{"dtype", "F64"}, {"shape", {3}}, {"data_offsets", {0, 24}}};
  header["b"] = {{"dtype", "F32"}, {"shape", {777}}, {"data_offsets", {24, 24 + 777 * 4}}};
  const std::string data = le_bytes(std::vector<double>(d.begin(), d.begin() + 3)) + le_bytes(f);
  const std::string path = write_file("s.safetensors", safetensors_bytes(header, data, 3));
  expect_same_as_whole(path + ":b");
  expect_same_as_whole(path + ":a");
}

TEST(ElementStream, NetcdfAndHdf5BlocksWithMissingValues) {
  auto d = values<double>(60 * 70, 5);
  for (std::size_t k = 0; k < d.size(); k += 97) d[k] = -999;
  netcdf_layout nc;
  nc.chunks = {7, 70};
  nc.deflate = 1;
  nc.shuffle = true;
  nc.fill = -999;
  const std::string n = write_netcdf("s.nc", "v", {60, 70}, d, nc);
  expect_same_as_whole(n + ":v");
  expect_same_as_whole(n + ":v", {.skip_missing = true});
  hdf5_layout h5;
  h5.chunks = {9, 70};
  h5.gzip = 1;
  h5.missing_value = {-999};
  const std::string h = write_hdf5("s.h5", "/g/v", {60, 70}, values<float>(60 * 70, 6), h5);
  expect_same_as_whole(h + ":/g/v");
  expect_same_as_whole(write_hdf5("s2.h5", "/v", {60, 70}, d, h5) + ":/v", {.skip_missing = true});
}

// The same message as the whole-file reader, before any element for a bad header, from next() for a bad line.
void expect_same_error(const std::string& input, const read_options& options = {}) {
  std::string whole, streamed;
  try {
    read_dataset(input, options);
  } catch (const input_error& e) {
    whole = e.what();
  }
  try {
    element_stream s(input, options, 5);
    while (s.next().size() > 0) {
    }
  } catch (const input_error& e) {
    streamed = e.what();
  }
  EXPECT_FALSE(whole.empty()) << input;
  EXPECT_EQ(streamed, whole);
}

TEST(ElementStream, BadInputGivesTheSameErrors) {
  const auto d = values<double>(100);
  const std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': (100,), }";
  expect_same_error(write_file("bad-trunc.npy", npy_bytes(header, le_bytes(d)).substr(0, 500)));
  expect_same_error(write_file("bad-extra.npy", npy_bytes(header, le_bytes(d) + "x")));
  expect_same_error(write_file("bad-dtype.npy", npy_bytes(header, le_bytes(d))), {.type = dtype::float32});
  expect_same_error(write_file("bad-raw.bin", "12345"), {.type = dtype::float64});
  expect_same_error(write_file("bad-line.txt", "1\n2\n3\n4\n5\n6\nabc\n"));
  expect_same_error(write_file("bad-nan.txt", "1\n2\n3\n4\n5\nnan\n"));
  expect_same_error(write_file("bad-none.txt", "# nothing\n\n"));
  expect_same_error(write_file("bad-fields.csv", "1,2\n3,4\n5\n"), {.column = "1"});
  expect_same_error(write_file("bad.safetensors", safetensors_bytes({{"a", {{"dtype", "F64"}}}}, "")) + ":a");
  expect_same_error(write_file("empty.npy", ""));
  // A shape whose element count overflows (chunks never written: the file is small).
  const std::string overflow = write_hdf5("s-overflow.h5", "x", {hsize_t{1} << 40, hsize_t{1} << 30},
                                          std::vector<double>{}, {.chunks = {1, 1}, .fill = 0.5});
  expect_same_error(overflow + ":x");
}

}  // namespace
}  // namespace detred::verify
