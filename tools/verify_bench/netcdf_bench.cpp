// SPDX-License-Identifier: BSD-3-Clause
// detred-netcdf-bench: the file and the baseline of the verify tool's NetCDF measurement (docs/verify.md).
//   detred-netcdf-bench make FILE ROWS   a ROWS x 8192 float64 variable "v" (ROWS/16 MiB), netCDF-4, chunks of
//                                        64 x 8192, shuffle + deflate level 1, uniform values in [-0.5, 0.5)
//   detred-netcdf-bench read FILE        the baseline: nc_get_vara of the whole variable into one buffer; prints the
//                                        seconds and the peak resident memory
#include <sys/resource.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <netcdf.h>

namespace {

constexpr std::size_t columns = 8192, chunk_rows = 64;

void check(int status, const char* what) {
  if (status != NC_NOERR) {
    std::fprintf(stderr, "detred-netcdf-bench: %s: %s\n", what, nc_strerror(status));
    std::exit(1);
  }
}

int make(const char* path, std::size_t rows) {
  int nc = -1, dims[2] = {}, v = -1;
  check(nc_create(path, NC_CLOBBER | NC_NETCDF4, &nc), "nc_create");
  check(nc_def_dim(nc, "y", rows, &dims[0]), "nc_def_dim");
  check(nc_def_dim(nc, "x", columns, &dims[1]), "nc_def_dim");
  check(nc_def_var(nc, "v", NC_DOUBLE, 2, dims, &v), "nc_def_var");
  std::size_t chunks[2] = {chunk_rows, columns};
  check(nc_def_var_chunking(nc, v, NC_CHUNKED, chunks), "nc_def_var_chunking");
  check(nc_def_var_deflate(nc, v, 1, 1, 1), "nc_def_var_deflate");
  check(nc_enddef(nc), "nc_enddef");
  std::vector<double> block(chunk_rows * columns);
  std::uint64_t s = 1;
  for (std::size_t r = 0; r < rows; r += chunk_rows) {
    for (double& x : block) {
      s = s * 6364136223846793005ULL + 1442695040888963407ULL;
      x = static_cast<double>(s >> 11) * 0x1p-53 - 0.5;
    }
    std::size_t start[2] = {r, 0}, count[2] = {std::min(chunk_rows, rows - r), columns};
    check(nc_put_vara_double(nc, v, start, count, block.data()), "nc_put_vara_double");
  }
  check(nc_close(nc), "nc_close");
  return 0;
}

int read(const char* path) {
  const auto start = std::chrono::steady_clock::now();
  int nc = -1, v = -1, dims[2] = {};
  check(nc_open(path, NC_NOWRITE, &nc), "nc_open");
  check(nc_inq_varid(nc, "v", &v), "nc_inq_varid");
  check(nc_inq_vardimid(nc, v, dims), "nc_inq_vardimid");
  std::size_t shape[2] = {};
  check(nc_inq_dimlen(nc, dims[0], &shape[0]), "nc_inq_dimlen");
  check(nc_inq_dimlen(nc, dims[1], &shape[1]), "nc_inq_dimlen");
  std::vector<double> all(shape[0] * shape[1]);
  const std::size_t origin[2] = {0, 0};
  check(nc_get_vara_double(nc, v, origin, shape, all.data()), "nc_get_vara_double");
  check(nc_close(nc), "nc_close");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  // Touch the result so that the read cannot be dropped.
  std::printf("nc_get_vara of %zu x %zu float64: %.2f s, peak RSS %ld MiB (element 0: %g)\n", shape[0], shape[1],
              seconds, usage.ru_maxrss / 1024, all[0]);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string command = argc > 2 ? argv[1] : "";
  if (command == "make" && argc == 4) return make(argv[2], std::strtoull(argv[3], nullptr, 10));
  if (command == "read" && argc == 3) return read(argv[2]);
  std::fprintf(stderr, "usage: detred-netcdf-bench make FILE ROWS | read FILE\n");
  return 2;
}
