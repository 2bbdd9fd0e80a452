// SPDX-License-Identifier: BSD-3-Clause
// The readers' element types beyond float32 and float64: integers (narrow ones widened), float16, bfloat16 (by name,
// or as np.save's opaque V2 with --dtype bfloat16), in both byte orders; the two columns of a dot product (.npy of
// shape (n, 2), two text columns); raw files and safetensors tensors of these types.
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "container_files.hpp"
#include "dataset.hpp"
#include "input_error.hpp"
#include "temp_files.hpp"

namespace detred::verify {
namespace {

using testing::le_bytes;
using testing::npy_bytes;
using testing::write_file;

std::string dict(const std::string& descr, const std::string& shape) {
  return "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
}

template <class T>
std::vector<T> values_of(const dataset::values_type& v) {
  const auto s = std::get<std::span<const T>>(v);
  return {s.begin(), s.end()};
}

void expect_error(const std::string& path, const std::string& problem, read_options options = {}) {
  try {
    read_dataset(path, options);
    ADD_FAILURE() << path << ": no error, expected '" << problem << "'";
  } catch (const input_error& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind(path + ": ", 0), 0U) << what;
    EXPECT_NE(what.find(problem), std::string::npos) << what;
  }
}

TEST(NpyTypes, IntegersInBothByteOrdersAndNarrowOnesWidened) {
  const std::vector<std::int32_t> i4 = {-7, 2147483647, 0};
  const dataset a = read_dataset(write_file("i4.npy", npy_bytes(dict("<i4", "(3,)"), le_bytes(i4))), {});
  EXPECT_EQ(a.type(), dtype::int32);
  EXPECT_TRUE(a.mapped_in_place());
  EXPECT_EQ(values_of<std::int32_t>(a.values()), i4);
  // Big-endian int32: bytes reversed per element.
  std::string be = le_bytes(i4);
  for (std::size_t k = 0; k < be.size(); k += 4) std::swap(be[k], be[k + 3]), std::swap(be[k + 1], be[k + 2]);
  const dataset b = read_dataset(write_file("i4be.npy", npy_bytes(dict(">i4", "(3,)"), be)), {});
  EXPECT_FALSE(b.mapped_in_place());
  EXPECT_EQ(values_of<std::int32_t>(b.values()), i4);
  const std::vector<std::uint64_t> u8 = {18446744073709551615ULL, 1};
  EXPECT_EQ(values_of<std::uint64_t>(
                read_dataset(write_file("u8.npy", npy_bytes(dict("<u8", "(2,)"), le_bytes(u8))), {}).values()),
            u8);
  const std::vector<std::int64_t> i8 = {-9223372036854775807LL - 1, 5};
  EXPECT_EQ(values_of<std::int64_t>(
                read_dataset(write_file("i8.npy", npy_bytes(dict("<i8", "(2,)"), le_bytes(i8))), {}).values()),
            i8);
  // int8 and int16 widen to int32, uint8 and uint16 to uint32, exactly; the stored type is still reported.
  const std::vector<std::int8_t> i1 = {-128, 127, -1};
  const dataset c = read_dataset(write_file("i1.npy", npy_bytes(dict("|i1", "(3,)"), le_bytes(i1))), {});
  EXPECT_EQ(c.type(), dtype::int8);
  EXPECT_EQ(values_of<std::int32_t>(c.values()), (std::vector<std::int32_t>{-128, 127, -1}));
  const std::vector<std::uint16_t> u2 = {65535, 0, 1};
  const dataset d = read_dataset(write_file("u2.npy", npy_bytes(dict("<u2", "(3,)"), le_bytes(u2))), {});
  EXPECT_EQ(d.type(), dtype::uint16);
  EXPECT_EQ(values_of<std::uint32_t>(d.values()), (std::vector<std::uint32_t>{65535, 0, 1}));
  const std::vector<std::int16_t> i2 = {-32768, 300};
  EXPECT_EQ(values_of<std::int32_t>(
                read_dataset(write_file("i2.npy", npy_bytes(dict("<i2", "(2,)"), le_bytes(i2))), {}).values()),
            (std::vector<std::int32_t>{-32768, 300}));
  const std::vector<std::uint8_t> u1 = {255, 7};
  EXPECT_EQ(values_of<std::uint32_t>(
                read_dataset(write_file("u1.npy", npy_bytes(dict("|u1", "(2,)"), le_bytes(u1))), {}).values()),
            (std::vector<std::uint32_t>{255, 7}));
  // --dtype must agree with the header.
  expect_error(write_file("i4-again.npy", npy_bytes(dict("<i4", "(3,)"), le_bytes(i4))),
               "--dtype int64 contradicts the .npy header (int32)", {.type = dtype::int64});
}

TEST(NpyTypes, SixteenBitFloatsKeepTheirBits) {
  const std::vector<std::uint16_t> halves = {0x3c00, 0x7e01, 0x0001, 0xfc00};  // 1, a NaN payload, 2^-24, -Inf
  const dataset h = read_dataset(write_file("f2.npy", npy_bytes(dict("<f2", "(4,)"), le_bytes(halves))), {});
  EXPECT_EQ(h.type(), dtype::float16);
  const auto hs = std::get<std::span<const float16>>(h.values());
  for (std::size_t k = 0; k < halves.size(); ++k) EXPECT_EQ(static_cast<std::uint16_t>(hs[k]), halves[k]);
  std::string be = le_bytes(halves);
  for (std::size_t k = 0; k < be.size(); k += 2) std::swap(be[k], be[k + 1]);
  const dataset hb = read_dataset(write_file("f2be.npy", npy_bytes(dict(">f2", "(4,)"), be)), {});
  const auto hbs = std::get<std::span<const float16>>(hb.values());
  for (std::size_t k = 0; k < halves.size(); ++k) EXPECT_EQ(static_cast<std::uint16_t>(hbs[k]), halves[k]);

  // bfloat16 by ml_dtypes' name, or as np.save's two opaque bytes with --dtype bfloat16.
  const std::vector<std::uint16_t> brains = {0x3f80, 0xc040};  // 1, -3
  const dataset b = read_dataset(write_file("bf.npy", npy_bytes(dict("bfloat16", "(2,)"), le_bytes(brains))), {});
  EXPECT_EQ(b.type(), dtype::bfloat16);
  EXPECT_EQ(static_cast<std::uint16_t>(std::get<std::span<const bfloat16>>(b.values())[1]), 0xc040);
  const std::string opaque = write_file("v2.npy", npy_bytes(dict("|V2", "(2,)"), le_bytes(brains)));
  expect_error(opaque, "dtype 'V2' is two opaque bytes per element");
  expect_error(opaque, "add --dtype bfloat16", {.type = dtype::float16});
  const dataset v = read_dataset(opaque, {.type = dtype::bfloat16});
  EXPECT_EQ(v.type(), dtype::bfloat16);
  EXPECT_EQ(static_cast<std::uint16_t>(std::get<std::span<const bfloat16>>(v.values())[0]), 0x3f80);
}

TEST(NpyTypes, AnArrayOfShapeNByTwoHoldsTheColumnsOfADotProduct) {
  const std::vector<double> rows = {1, 10, 2, 20, 3, 30};  // C order: x0 y0 x1 y1 x2 y2
  const dataset d = read_dataset(write_file("pairs.npy", npy_bytes(dict("<f8", "(3, 2)"), le_bytes(rows))), {});
  EXPECT_EQ(d.size(), 6U);  // as a whole, it is still the flattened array
  ASSERT_TRUE(d.holds_pair());
  const auto columns = d.columns();
  EXPECT_EQ(values_of<double>(columns[0]), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(values_of<double>(columns[1]), (std::vector<double>{10, 20, 30}));
  EXPECT_FALSE(
      read_dataset(write_file("three.npy", npy_bytes(dict("<f8", "(2, 3)"), le_bytes(rows))), {}).holds_pair());
  EXPECT_FALSE(read_dataset(write_file("flat.npy", npy_bytes(dict("<f8", "(6,)"), le_bytes(rows))), {}).holds_pair());
  const std::vector<std::int32_t> ints = {1, -1, 2, -2};
  const dataset i = read_dataset(write_file("ipairs.npy", npy_bytes(dict("<i4", "(2, 2)"), le_bytes(ints))), {});
  EXPECT_EQ(values_of<std::int32_t>(i.columns()[1]), (std::vector<std::int32_t>{-1, -2}));
}

TEST(TextTypes, TwoColumnsAreAPairAndTextIsFloatOnly) {
  const std::string csv = write_file("pair.csv", "t,x,y\n0,1.5,2\n1,-3,0.25\n");
  const dataset d = read_dataset(csv, {.column = "x,y"});
  ASSERT_TRUE(d.holds_pair());
  EXPECT_EQ(values_of<double>(d.columns()[0]), (std::vector<double>{1.5, -3}));
  EXPECT_EQ(values_of<double>(d.columns()[1]), (std::vector<double>{2, 0.25}));
  const dataset by_index = read_dataset(csv, {.type = dtype::float32, .column = "1,2"});
  EXPECT_EQ(values_of<float>(by_index.columns()[1]), (std::vector<float>{2, 0.25f}));
  expect_error(csv, "no column named 'z'", {.column = "x,z"});
  expect_error(write_file("short.csv", "1,2\n3\n"), "line 2: has 1 fields, column 1 (0-based) was requested",
               {.column = "0,1"});
  expect_error(write_file("ints.txt", "1\n2\n"), "text input is read as float32 or float64, not --dtype int32",
               {.type = dtype::int32});
}

TEST(RawTypes, AnyTypeWithDtype) {
  const std::vector<std::uint32_t> u = {1, 4000000000U};
  const dataset d =
      read_dataset(write_file("u4.bin", le_bytes(u)), {.format = file_format::raw, .type = dtype::uint32});
  EXPECT_EQ(values_of<std::uint32_t>(d.values()), u);
  const std::vector<std::uint8_t> bytes = {1, 2, 255};
  const dataset b =
      read_dataset(write_file("u1.bin", le_bytes(bytes)), {.format = file_format::raw, .type = dtype::uint8});
  EXPECT_EQ(values_of<std::uint32_t>(b.values()), (std::vector<std::uint32_t>{1, 2, 255}));
  expect_error(write_file("odd.bin", std::string(7, '\0')), "is not a whole number of int16 elements",
               {.format = file_format::raw, .type = dtype::int16});
  expect_error(write_file("untyped.bin", std::string(8, '\0')), "raw binary input needs --dtype",
               {.format = file_format::raw});
}

TEST(SafetensorsTypes, SixteenBitAndIntegerTensors) {
  const std::vector<std::uint16_t> bf = {0x3f80, 0x4000};
  const std::vector<std::int32_t> i = {-5, 6, 7};
  const std::vector<std::uint8_t> u = {200, 100};
  std::string data = le_bytes(bf) + le_bytes(i) + le_bytes(u);
  const nlohmann::json header = {{"b", {{"dtype", "BF16"}, {"shape", {2}}, {"data_offsets", {0, 4}}}},
                                 {"i", {{"dtype", "I32"}, {"shape", {3}}, {"data_offsets", {4, 16}}}},
                                 {"u", {{"dtype", "U8"}, {"shape", {2}}, {"data_offsets", {16, 18}}}}};
  const std::string path = write_file("typed.safetensors", testing::safetensors_bytes(header, data));
  const dataset b = read_dataset(path + ":b", {});
  EXPECT_EQ(b.type(), dtype::bfloat16);
  EXPECT_EQ(static_cast<std::uint16_t>(std::get<std::span<const bfloat16>>(b.values())[1]), 0x4000);
  EXPECT_EQ(values_of<std::int32_t>(read_dataset(path + ":i", {}).values()), i);
  const dataset w = read_dataset(path + ":u", {});
  EXPECT_EQ(w.type(), dtype::uint8);
  EXPECT_EQ(values_of<std::uint32_t>(w.values()), (std::vector<std::uint32_t>{200, 100}));
}

}  // namespace
}  // namespace detred::verify
