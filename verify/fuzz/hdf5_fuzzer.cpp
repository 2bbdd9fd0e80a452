// SPDX-License-Identifier: BSD-3-Clause
// libFuzzer target, structure-aware (container_fuzzer.hpp says why): an HDF5 dataset of the fuzzer's choosing
// (float32 or float64, either byte order, scalar or any rank, contiguous or chunked with shuffle and deflate, a
// fill value) is written into memory by libhdf5's core driver and must be read back exactly by the reader's
// in-memory entry point.
#include <cstddef>
#include <cstdint>
#include <vector>

#include <hdf5.h>

#include "container_fuzzer.hpp"
#include "hdf5_reader.hpp"

namespace {

using detred::verify::fuzzing::variable_case;

// Writes the case into a file image; false when libhdf5 refuses it (not a finding).
bool write(const variable_case& c, bool big_endian, std::vector<unsigned char>& image) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const hid_t access = H5Pcreate(H5P_FILE_ACCESS);
  H5Pset_fapl_core(access, 4096, 0);
  const hid_t file = H5Fcreate("fuzz-write.h5", H5F_ACC_TRUNC, H5P_DEFAULT, access);
  H5Pclose(access);
  if (file < 0) return false;
  const std::vector<hsize_t> dims(c.shape.begin(), c.shape.end());
  const hid_t space =
      dims.empty() ? H5Screate(H5S_SCALAR) : H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
  const hid_t create = H5Pcreate(H5P_DATASET_CREATE);
  bool ok = space >= 0 && create >= 0;
  if (ok && !c.chunks.empty()) {
    const std::vector<hsize_t> chunks(c.chunks.begin(), c.chunks.end());
    ok = H5Pset_chunk(create, static_cast<int>(chunks.size()), chunks.data()) >= 0;
    if (ok && c.shuffle) ok = H5Pset_shuffle(create) >= 0;
    if (ok && c.deflate > 0) ok = H5Pset_deflate(create, static_cast<unsigned>(c.deflate)) >= 0;
  }
  const hid_t memory_type = c.is_float ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
  if (ok && c.fill) {
    const auto f32 = static_cast<std::uint32_t>(*c.fill);
    const std::uint64_t f64 = *c.fill;
    ok = H5Pset_fill_value(create, memory_type, c.is_float ? static_cast<const void*>(&f32) : &f64) >= 0;
  }
  const hid_t file_type =
      c.is_float ? (big_endian ? H5T_IEEE_F32BE : H5T_IEEE_F32LE) : (big_endian ? H5T_IEEE_F64BE : H5T_IEEE_F64LE);
  const hid_t dataset = ok ? H5Dcreate2(file, "v", file_type, space, H5P_DEFAULT, create, H5P_DEFAULT) : -1;
  ok = dataset >= 0;
  if (ok && c.count() > 0) {
    ok = c.is_float ? H5Dwrite(dataset, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, c.values<float>().data()) >= 0
                    : H5Dwrite(dataset, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, c.values<double>().data()) >= 0;
  }
  if (dataset >= 0) H5Dclose(dataset);
  if (create >= 0) H5Pclose(create);
  if (space >= 0) H5Sclose(space);
  if (ok) ok = H5Fflush(file, H5F_SCOPE_GLOBAL) >= 0;
  const ssize_t size = ok ? H5Fget_file_image(file, nullptr, 0) : -1;
  if (size > 0) {
    image.resize(static_cast<std::size_t>(size));
    ok = H5Fget_file_image(file, image.data(), image.size()) == size;
  }
  H5Fclose(file);
  return ok && size > 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const bool big_endian = in.ConsumeBool();
  const variable_case c =
      detred::verify::fuzzing::decode_case(in, false, {"w", "", "/", "g/v", "/g/v", "vv", "V", "/w/v", "v\n"});
  std::vector<unsigned char> image;
  if (!write(c, big_endian, image)) return 0;
  detred::verify::fuzzing::expect_read_back(c, [&] {
    return detred::verify::open_hdf5_variable_in_memory("fuzz.h5", image.data(), image.size(), c.requested,
                                                        c.block_bytes);
  });
  return 0;
}
