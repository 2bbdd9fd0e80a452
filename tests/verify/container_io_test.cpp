// SPDX-License-Identifier: BSD-3-Clause
// The NetCDF, HDF5 and safetensors readers and the input names: files written by the formats' own libraries are
// read bit for bit in row-major order, and every kind of bad input gives one clear error naming the file.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "container_files.hpp"
#include "dataset.hpp"
#include "detred/detred.hpp"
#include "hdf5_reader.hpp"
#include "input_error.hpp"
#include "input_spec.hpp"
#include "netcdf_reader.hpp"
#include "temp_files.hpp"

namespace detred::verify {
namespace {

using testing::hdf5_layout;
using testing::netcdf_layout;
using testing::safetensors_bytes;
using testing::scratch_dir;
using testing::write_file;
using testing::write_hdf5;
using testing::write_netcdf;

// Values of every magnitude and sign, so that an element read out of order changes the sum's bits.
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

template <class T>
std::vector<T> read_values(const dataset& d) {
  const auto s = std::get<std::span<const T>>(d.values());
  return {s.begin(), s.end()};
}

std::uint64_t bits(double x) { return std::bit_cast<std::uint64_t>(x); }
std::uint64_t bits(float x) { return std::bit_cast<std::uint32_t>(x); }

template <class T>
void expect_bits_equal(const std::vector<T>& got, const std::vector<T>& expected) {
  ASSERT_EQ(got.size(), expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(bits(got[i]), bits(expected[i])) << "element " << i;
}

// Reading `input` must fail with an input_error that starts with "file: " and contains `problem`, on one line.
void expect_error(const std::string& input, const std::string& file, const std::string& problem,
                  read_options options = {}) {
  try {
    read_dataset(input, options);
    ADD_FAILURE() << input << ": no error, expected '" << problem << "'";
  } catch (const input_error& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind(file + ": ", 0), 0U) << what;
    EXPECT_NE(what.find(problem), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << "one line: " << what;
  }
}

// Every block of a reader, concatenated.
template <class T>
std::vector<T> all_blocks(variable_reader& r) {
  std::vector<T> out(r.size());
  for (std::uint64_t k = 0; k < r.block_count(); ++k) {
    const std::uint64_t first = k * r.block_elements(), n = std::min(r.block_elements(), r.size() - first);
    r.read_block(k, std::as_writable_bytes(std::span<T>(out.data() + first, n)));
  }
  return out;
}

TEST(NetCDF, EveryFormatReadsInRowMajorOrderAndSumsLikeTheSameValues) {
  const std::vector<std::size_t> shape = {7, 6, 5};
  const auto x = values<double>(7 * 6 * 5);
  const double expected = detred::sum(std::span<const double>(x));
  struct format {
    const char* name;
    netcdf_layout layout;
  };
  const std::vector<format> formats = {
      {"classic.nc", {.cmode = 0}},
      {"offset64.nc", {.cmode = NC_64BIT_OFFSET, .unlimited_first = true}},
      {"cdf5.nc", {.cmode = NC_64BIT_DATA}},
      {"nc4.nc", {.cmode = NC_NETCDF4}},
      {"nc4-chunked.nc", {.cmode = NC_NETCDF4, .chunks = {2, 4, 3}, .deflate = 4, .shuffle = true}},
  };
  for (const format& f : formats) {
    SCOPED_TRACE(f.name);
    const std::string path = write_netcdf(f.name, "temp", shape, x, f.layout);
    const dataset d = read_dataset(path + ":temp", {});
    EXPECT_EQ(d.format(), file_format::netcdf);
    EXPECT_EQ(d.type(), dtype::float64);
    EXPECT_EQ(d.path(), path + ":temp");
    EXPECT_EQ(d.file(), path);
    EXPECT_EQ(d.variable(), "temp");
    expect_bits_equal(read_values<double>(d), x);
    EXPECT_EQ(std::bit_cast<std::uint64_t>(detred::sum(std::get<std::span<const double>>(d.values()))),
              std::bit_cast<std::uint64_t>(expected));
    EXPECT_EQ(d.digest_bytes().size(), x.size() * 8);
    // Small blocks: several hyperslabs (whole chunks along the first dimension), the same elements.
    const auto reader = open_netcdf_variable(path, "temp", 100);
    EXPECT_GT(reader->block_count(), 2U);
    expect_bits_equal(all_blocks<double>(*reader), x);
  }
}

TEST(NetCDF, Float32ScalarsGroupsAndEmptyVariables) {
  const auto f = values<float>(24, 7);
  const std::string p = write_netcdf("f32.nc", "pr", {4, 6}, f, {.chunks = {3, 6}, .deflate = 1});
  const dataset d = read_dataset(p + ":pr", {});
  EXPECT_EQ(d.type(), dtype::float32);
  expect_bits_equal(read_values<float>(d), f);

  const std::vector<double> one = {42.5};
  const std::string s = write_netcdf("scalar.nc", "s", {}, one, {.cmode = 0});
  expect_bits_equal(read_values<double>(read_dataset(s + ":s", {})), one);

  const auto g = values<double>(10, 3);
  const std::string grouped = write_netcdf("groups.nc", "v", {10}, g, {.group = "model/run1"});
  expect_bits_equal(read_values<double>(read_dataset(grouped + ":model/run1/v", {})), g);
  expect_bits_equal(read_values<double>(read_dataset(grouped + ":/model/run1/v", {})), g);
  expect_error(grouped + ":model/v", grouped, "no variable 'model/v' (float variables: model/run1/v)");

  const std::string empty =
      write_netcdf("empty.nc", "e", {0}, std::vector<double>{}, {.cmode = 0, .unlimited_first = true});
  const dataset e = read_dataset(empty + ":e", {});
  EXPECT_EQ(e.size(), 0U);
}

TEST(NetCDF, FillAndMissingValuesAreCountedAndSkippedOnRequest) {
  std::vector<double> x = {1, -999, 2, 3, 1e20, 4, 5, -999};
  const std::string p =
      write_netcdf("fill.nc", "t", {2, 4}, x, {.cmode = NC_NETCDF4, .fill = -999, .missing_value = {1e20}});
  const dataset stored = read_dataset(p + ":t", {});
  EXPECT_EQ(stored.size(), 8U);
  EXPECT_EQ(stored.missing_count(), 3U);
  EXPECT_FALSE(stored.missing_skipped());
  EXPECT_EQ(stored.missing_values(), (std::vector<double>{-999, 1e20}));
  const dataset skipped = read_dataset(p + ":t", {.skip_missing = true});
  EXPECT_EQ(skipped.missing_count(), 3U);
  EXPECT_TRUE(skipped.missing_skipped());
  expect_bits_equal(read_values<double>(skipped), std::vector<double>{1, 2, 3, 4, 5});

  // Rows never written hold NetCDF's default fill value, which counts as missing.
  const auto y = values<float>(12, 5);
  const std::string partial = write_netcdf("partial.nc", "p", {3, 4}, y, {.cmode = 0, .written = 1});
  const dataset d = read_dataset(partial + ":p", {});
  EXPECT_EQ(d.missing_count(), 8U);
  EXPECT_EQ(read_values<float>(d)[11], NC_FILL_FLOAT);
  EXPECT_EQ(read_dataset(partial + ":p", {.skip_missing = true}).size(), 4U);
}

TEST(NetCDF, BadInputsNameTheFileAndTheProblem) {
  const std::string p = write_netcdf("bad.nc", "temp", {3}, std::vector<double>{1, 2, 3}, {.cmode = 0});
  // An integer variable, written with the C API.
  const std::string ints = (scratch_dir() / "ints.nc").string();
  int ncid = -1, dim = -1, var = -1;
  testing::nc_check(nc_create(ints.c_str(), NC_CLOBBER, &ncid));
  testing::nc_check(nc_def_dim(ncid, "n", 2, &dim));
  testing::nc_check(nc_def_var(ncid, "count", NC_INT, 1, &dim, &var));
  testing::nc_check(nc_def_var(ncid, "x", NC_DOUBLE, 1, &dim, &var));
  testing::nc_check(nc_close(ncid));
  expect_error(ints + ":count", ints, "variable 'count' has type int (supported: float, double)");
  expect_error(p + ":nope", p, "no variable 'nope' (float variables: temp)");
  expect_error(p, p, "a NetCDF file: name the variable as FILE:VARIABLE (float variables: temp)");
  expect_error(p + ":temp", p, "--dtype float32 contradicts variable 'temp' (float64)", {.type = dtype::float32});
  const std::string garbage = write_file("garbage.nc", "CDF\x01 this is not really netcdf");
  expect_error(garbage + ":x", garbage, "cannot open as NetCDF");
  const std::string missing = (scratch_dir() / "missing.nc").string();
  expect_error(missing + ":x", missing, "cannot open: No such file or directory");
  const std::string npy = write_file("plain.txt", "1\n2\n");
  expect_error(npy + ":x", npy, "a text file has no variables, ':x' names one");
}

/// A classic, 64-bit offset or CDF-5 file cut short is refused (the NetCDF library would read the missing data as
/// zeros): fixed-size and record variables, a cut of one byte and one inside the header's last variable. The whole
/// file still reads, and so does a netCDF-4 file (HDF5 refuses its truncations itself).
TEST(NetCDF, TruncatedClassicFilesAreRefused) {
  std::vector<double> x(1000);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<double>(i + 1);
  for (int cmode : {0, NC_64BIT_OFFSET, NC_64BIT_DATA}) {
    for (bool records : {false, true}) {
      const std::string name = "cut-" + std::to_string(cmode) + (records ? "-records" : "") + ".nc";
      const std::string whole = write_netcdf(name, "v", {1000}, x, {.cmode = cmode, .unlimited_first = records});
      EXPECT_EQ(detred::sum(std::get<std::span<const double>>(read_dataset(whole + ":v", {}).values())), 500500.0)
          << name;
      const std::uintmax_t size = std::filesystem::file_size(whole);
      for (std::uintmax_t cut : {size - 1, size - 8 * 500}) {
        const std::string shorter = (scratch_dir() / ("short-" + std::to_string(cut) + "-" + name)).string();
        std::filesystem::copy_file(whole, shorter, std::filesystem::copy_options::overwrite_existing);
        std::filesystem::resize_file(shorter, cut);
        expect_error(shorter + ":v", shorter,
                     "truncated NetCDF file: its header places data up to byte " + std::to_string(size) +
                         ", the file has " + std::to_string(cut) + " bytes");
      }
    }
  }
}

TEST(HDF5, ChunkedCompressedBigEndianDatasetsReadInRowMajorOrder) {
  const std::vector<hsize_t> shape = {9, 4, 3};
  const auto x = values<double>(9 * 4 * 3, 11);
  const std::string p = write_hdf5("be.h5", "/results/run/energy", shape, x,
                                   {.file_type = H5T_IEEE_F64BE, .chunks = {2, 4, 2}, .gzip = 6, .shuffle = true});
  for (const std::string name : {"/results/run/energy", "results/run/energy"}) {
    const dataset d = read_dataset(p + ":" + name, {});
    EXPECT_EQ(d.format(), file_format::hdf5);
    EXPECT_EQ(d.type(), dtype::float64);
    expect_bits_equal(read_values<double>(d), x);
  }
  const auto reader = open_hdf5_variable(p, "/results/run/energy", 64);
  EXPECT_GT(reader->block_count(), 2U);
  expect_bits_equal(all_blocks<double>(*reader), x);

  const auto f = values<float>(33, 2);
  const std::string q = write_hdf5("f32.hdf5", "w", {3, 11}, f);
  expect_bits_equal(read_values<float>(read_dataset(q + ":w", {})), f);
  const std::vector<double> one = {-3.25};
  const std::string s = write_hdf5("scalar.h5", "s", {}, one, {.scalar = true});
  expect_bits_equal(read_values<double>(read_dataset(s + ":s", {})), one);
  // A netCDF-4 file is an HDF5 file: both readers give the same elements.
  const auto y = values<double>(20, 9);
  const std::string nc = write_netcdf("nc4-as-h5.nc", "v", {4, 5}, y, {.chunks = {1, 5}, .deflate = 2});
  expect_bits_equal(read_values<double>(read_dataset(nc + ":v", {.format = file_format::hdf5})), y);
}

TEST(HDF5, VariablesLargerThanMemoryAreRefusedBeforeReading) {
  // Chunked datasets whose chunks were never written: the file is small, the shape is not.
  auto huge = [](const std::string& file, std::vector<hsize_t> dims) {
    return write_hdf5(file, "x", dims, std::vector<double>{},
                      {.chunks = std::vector<hsize_t>(dims.size(), 1), .fill = 0.5});
  };
  const std::string big = huge("huge.h5", {hsize_t{1} << 40});
  expect_error(big + ":x", big, "variable 'x' holds 1099511627776 elements (8388608 MiB), more than fits in memory");
  expect_error(big + ":x", big, "(read it with --stream)");
  const std::string overflow = huge("overflow.h5", {hsize_t{1} << 40, hsize_t{1} << 30});
  expect_error(overflow + ":x", overflow, "variable 'x': its shape holds more elements than 64 bits can count");
}

TEST(HDF5, FillValuesAndMissingValueAttributes) {
  const std::vector<float> x = {1, -1, 2, 7, 3, -1};
  const std::string p = write_hdf5("fill.h5", "t", {6}, x, {.chunks = {4}, .fill = -1, .missing_value = {7}});
  const dataset d = read_dataset(p + ":t", {});
  EXPECT_EQ(d.missing_count(), 3U);
  EXPECT_EQ(d.missing_values(), (std::vector<double>{-1, 7}));
  expect_bits_equal(read_values<float>(read_dataset(p + ":t", {.skip_missing = true})), std::vector<float>{1, 2, 3});
}

TEST(HDF5, BadInputsNameTheFileAndTheProblem) {
  const std::string p = write_hdf5("bad.h5", "/g/x", {2}, std::vector<double>{1, 2});
  expect_error(p + ":/g/nope", p, "no dataset '/g/nope' (float datasets: /g/x)");
  expect_error(p + ":/a/b/c", p, "no dataset '/a/b/c'");
  expect_error(p + ":/g", p, "'/g' is a group, not a dataset of floats");
  expect_error(p, p, "an HDF5 file: name the variable as FILE:VARIABLE (float datasets: /g/x)");
  const int ints[3] = {1, 2, 3};
  const std::string i = testing::write_hdf5_typed("ints.h5", "n", H5T_STD_I32LE, H5T_NATIVE_INT, 3, ints);
  expect_error(i + ":n", i, "dataset 'n' has type integer (supported: IEEE float32, float64)");
  const long double wide[2] = {1, 2};
  const std::string w = testing::write_hdf5_typed("wide.h5", "q", H5T_NATIVE_LDOUBLE, H5T_NATIVE_LDOUBLE, 2, wide);
  expect_error(w + ":q", w, "dataset 'q' has type a 128-bit float that is not IEEE float32 or float64");
  const std::string garbage = write_file("garbage.h5", "\x89HDF\r\n\x1a\n then nothing useful");
  expect_error(garbage + ":x", garbage, "cannot open as HDF5");
}

TEST(Safetensors, TensorsReadInPlaceOrCopiedWhenMisaligned) {
  const auto a = values<float>(6, 4);
  const auto b = values<double>(5, 8);
  const std::string data = testing::le_bytes(a) + std::string(8, '\0') + testing::le_bytes(b);
  nlohmann::json h = {{"__metadata__", {{"format", "pt"}}},
                      {"a", {{"dtype", "F32"}, {"shape", {2, 3}}, {"data_offsets", {0, 24}}}},
                      {"b", {{"dtype", "F64"}, {"shape", {5}}, {"data_offsets", {32, 72}}}},
                      {"i", {{"dtype", "I64"}, {"shape", {0}}, {"data_offsets", {72, 72}}}}};
  for (std::size_t pad : {8, 1}) {  // 1: the header's length is not a multiple of 8, the data is misaligned
    const std::string p = write_file(pad == 8 ? "w8.safetensors" : "w1.safetensors", safetensors_bytes(h, data, pad));
    const dataset da = read_dataset(p + ":a", {});
    EXPECT_EQ(da.format(), file_format::safetensors);
    expect_bits_equal(read_values<float>(da), a);
    const dataset db = read_dataset(p + ":b", {});
    expect_bits_equal(read_values<double>(db), b);
    EXPECT_EQ(db.mapped_in_place(), pad == 8);
    EXPECT_EQ(db.digest_bytes().size(), 40U);
  }
  // Detected by layout without the extension.
  const std::string plain = write_file("model.bin", safetensors_bytes(h, data));
  EXPECT_EQ(read_dataset(plain + ":b", {}).format(), file_format::safetensors);
}

TEST(Safetensors, BadInputsNameTheFileAndTheProblem) {
  const std::string eight(8, '\0');
  nlohmann::json good = {{"x", {{"dtype", "F64"}, {"shape", {1}}, {"data_offsets", {0, 8}}}}};
  auto file = [&](const std::string& name, const std::string& bytes) {
    return write_file(name + ".safetensors", bytes);
  };
  const std::string p = file("ok", safetensors_bytes(good, eight));
  expect_error(p + ":y", p, "no tensor 'y' (readable tensors: x)");
  expect_error(p, p, "a safetensors file: name the variable as FILE:VARIABLE (readable tensors: x)");
  expect_error(p + ":x", p, "--dtype float32 contradicts tensor 'x' (float64)", {.type = dtype::float32});
  const std::string short_file = file("short", std::string("\x05\0\0", 3));
  expect_error(short_file + ":x", short_file, "truncated safetensors file: 3 bytes");
  std::string claims = safetensors_bytes(good, eight);
  claims[1] = 1;  // the header length grows by 256
  const std::string cut = file("cut", claims);
  expect_error(cut + ":x", cut,
               "truncated safetensors header: it claims 312 bytes, the file holds 64 after the length");
  std::string huge = claims;
  huge[7] = 1;
  const std::string oversized = file("oversized", huge);
  expect_error(oversized + ":x", oversized, "oversized safetensors header");
  const std::string bad_json = file("badjson", std::string("\x04\0\0\0\0\0\0\0{\"x\"", 12) + eight);
  expect_error(bad_json + ":x", bad_json, "malformed safetensors header: [json.exception.parse_error");
  const std::string array = file("array", safetensors_bytes(nlohmann::json::array({1, 2}), eight));
  expect_error(array + ":x", array, "malformed safetensors header: it must be a JSON object");
  auto entry = [&](const std::string& name, nlohmann::json e) {
    return file(name, safetensors_bytes({{"x", e}}, eight));
  };
  const std::string no_shape = entry("noshape", {{"dtype", "F64"}, {"data_offsets", {0, 8}}});
  expect_error(no_shape + ":x", no_shape, "tensor 'x': expected an object with dtype, shape and data_offsets");
  const std::string negative = entry("negative", {{"dtype", "F64"}, {"shape", {-1}}, {"data_offsets", {0, 8}}});
  expect_error(negative + ":x", negative, "the shape must hold unsigned integers");
  const std::string outside = entry("outside", {{"dtype", "F64"}, {"shape", {2}}, {"data_offsets", {0, 16}}});
  expect_error(outside + ":x", outside, "tensor 'x': data_offsets [0, 16] lie outside the 8 bytes of data");
  const std::string reversed = entry("reversed", {{"dtype", "F64"}, {"shape", {0}}, {"data_offsets", {8, 0}}});
  expect_error(reversed + ":x", reversed, "data_offsets [8, 0] lie outside");
  const std::string mismatch = entry("mismatch", {{"dtype", "F64"}, {"shape", {2, 1}}, {"data_offsets", {0, 8}}});
  expect_error(mismatch + ":x", mismatch, "tensor 'x': the shape holds 2 F64 elements, data_offsets hold 8 bytes");
  const std::string overflow =
      entry("overflow", {{"dtype", "F32"}, {"shape", {1ULL << 40, 1ULL << 40}}, {"data_offsets", {0, 8}}});
  expect_error(overflow + ":x", overflow, "tensor 'x': the shape overflows");
  const std::string boolean = entry("bool", {{"dtype", "BOOL"}, {"shape", {4}}, {"data_offsets", {0, 4}}});
  expect_error(boolean + ":x", boolean,
               "tensor 'x' has dtype BOOL (supported: F64, F32, F16, BF16, I64, I32, I16, I8, U64, U32, U16, U8)");
}

TEST(Inputs, DirectoriesAndPatternsExpandToSortedFilesWithTheVariable) {
  const auto dir = scratch_dir() / "runs";
  std::filesystem::create_directories(dir / "sub");
  for (const char* name : {"b.nc", "a.nc", "c.nc"}) {
    write_netcdf(std::string("runs/") + name, "v", {2}, std::vector<double>{1, 2}, {.cmode = 0});
  }
  write_file("runs/.hidden", "x");
  const std::vector<std::string> expected = {(dir / "a.nc").string() + ":v", (dir / "b.nc").string() + ":v",
                                             (dir / "c.nc").string() + ":v"};
  EXPECT_EQ(expand_inputs({dir.string() + ":v"}), expected);
  EXPECT_EQ(expand_inputs({(dir / "*.nc").string() + ":v"}), expected);
  EXPECT_EQ(expand_inputs({(dir / "[ab].nc").string() + ":v"}), (std::vector<std::string>{expected[0], expected[1]}));
  EXPECT_EQ(expand_inputs({(dir / "a.nc").string()}), std::vector<std::string>{(dir / "a.nc").string()});
  EXPECT_EQ(split_input_spec((dir / "a.nc").string() + ":g/v").variable, "g/v");
  EXPECT_EQ(split_input_spec("/no/such/file.nc:v").file, "/no/such/file.nc");
  std::filesystem::create_directories(scratch_dir() / "nothing");
  try {
    expand_inputs({(scratch_dir() / "nothing").string()});
    ADD_FAILURE() << "an empty directory must be an error";
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("the directory holds no data files"), std::string::npos) << e.what();
  }
  try {
    expand_inputs({(dir / "*.npy").string()});
    ADD_FAILURE() << "a pattern that matches nothing must be an error";
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("no file matches the pattern"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace detred::verify
