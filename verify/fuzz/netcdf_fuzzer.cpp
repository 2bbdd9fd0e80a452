// SPDX-License-Identifier: BSD-3-Clause
// libFuzzer target, structure-aware (container_fuzzer.hpp says why): a NetCDF variable of the fuzzer's choosing
// (classic, 64-bit offset, CDF-5 or netCDF-4; any rank; chunked and compressed in netCDF-4) is written into memory
// by libnetcdf and must be read back exactly by the reader's in-memory entry point.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include <netcdf.h>
#include <netcdf_mem.h>

#include "container_fuzzer.hpp"
#include "netcdf_reader.hpp"

namespace {

using detred::verify::fuzzing::variable_case;

// Writes the case into a file image; false when libnetcdf refuses it (not a finding).
bool write(const variable_case& c, int cmode, NC_memio& image) {
  int ncid = -1;
  if (nc_create_mem("fuzz.nc", cmode, 4096, &ncid) != NC_NOERR) return false;
  bool ok = true;
  std::vector<int> dims;
  for (std::size_t d = 0; d < c.shape.size() && ok; ++d) {
    int id = -1;
    const std::string name = "d" + std::to_string(d);
    ok = nc_def_dim(ncid, name.c_str(), c.shape[d] == 0 ? NC_UNLIMITED : c.shape[d], &id) == NC_NOERR;
    dims.push_back(id);
  }
  const nc_type type = c.is_float ? NC_FLOAT : NC_DOUBLE;
  int var = -1;
  ok = ok && nc_def_var(ncid, "v", type, static_cast<int>(dims.size()), dims.data(), &var) == NC_NOERR;
  if (ok && !c.chunks.empty()) {
    const std::vector<std::size_t> chunks(c.chunks.begin(), c.chunks.end());
    ok = nc_def_var_chunking(ncid, var, NC_CHUNKED, chunks.data()) == NC_NOERR;
    if (ok && (c.deflate > 0 || c.shuffle)) {
      ok = nc_def_var_deflate(ncid, var, c.shuffle, c.deflate > 0, c.deflate) == NC_NOERR;
    }
  }
  if (ok && c.fill) {
    const auto f32 = static_cast<std::uint32_t>(*c.fill);
    const std::uint64_t f64 = *c.fill;
    ok = nc_put_att(ncid, var, "_FillValue", type, 1, c.is_float ? static_cast<const void*>(&f32) : &f64) == NC_NOERR;
  }
  ok = ok && nc_enddef(ncid) == NC_NOERR;
  if (ok && c.count() > 0) {
    if (c.is_float) {
      ok = nc_put_var_float(ncid, var, c.values<float>().data()) == NC_NOERR;
    } else {
      ok = nc_put_var_double(ncid, var, c.values<double>().data()) == NC_NOERR;
    }
  }
  if (!ok) {
    nc_abort(ncid);
    return false;
  }
  return nc_close_memio(ncid, &image) == NC_NOERR;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  static const int formats[] = {0, NC_64BIT_OFFSET, NC_64BIT_DATA, NC_NETCDF4};
  const int cmode = formats[in.ConsumeIntegralInRange(0, 3)];
  variable_case c =
      detred::verify::fuzzing::decode_case(in, true, {"w", "", "/", "v/", "g/v", "/g/v", "vv", "V", "/w/v", "v\n"});
  if (cmode != NC_NETCDF4) {
    c.chunks.clear();
    c.deflate = 0;
    c.shuffle = false;
  }
  NC_memio image{};
  if (!write(c, cmode, image)) return 0;
  detred::verify::fuzzing::expect_read_back(c, [&] {
    return detred::verify::open_netcdf_variable_in_memory("fuzz.nc", image.memory, image.size, c.requested,
                                                          c.block_bytes);
  });
  std::free(image.memory);
  return 0;
}
