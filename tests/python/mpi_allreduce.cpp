// SPDX-License-Identifier: BSD-3-Clause
// detred::mpi::allreduce_sum of vectors read from files, for test_torch_distributed.py: the MPI path's bits for
// the vectors the torch.distributed path summed. Run under mpiexec with R ranks:
//
//   python_mpi_allreduce N {DTYPE MODE IN OUT}...
//
// DTYPE is float64 or float32, MODE tree, compensated or exact; IN holds R rows of N elements (row r: rank r's
// vector), raw, native byte order; rank 0 writes the N sums to OUT. Exits 1 with a message on any failure.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <span>
#include <string>
#include <vector>

#include <mpi.h>

#include "detred/mpi.hpp"

namespace {

template <class T>
void one(std::size_t n, const detred::options& opt, const char* in, const char* out, int rank) {
  std::vector<T> x(n), sums(n);
  std::ifstream file(in, std::ios::binary);
  file.seekg(static_cast<std::streamoff>(static_cast<std::size_t>(rank) * n * sizeof(T)));
  file.read(reinterpret_cast<char*>(x.data()), static_cast<std::streamsize>(n * sizeof(T)));
  if (!file) throw std::runtime_error(std::string(in) + ": cannot read row " + std::to_string(rank));
  detred::mpi::allreduce_sum(std::span<const T>(x), std::span<T>(sums), MPI_COMM_WORLD, opt);
  if (rank == 0) {
    std::ofstream result(out, std::ios::binary);
    result.write(reinterpret_cast<const char*>(sums.data()), static_cast<std::streamsize>(n * sizeof(T)));
    if (!result) throw std::runtime_error(std::string(out) + ": cannot write");
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int status = 0;
  try {
    if (argc < 2 || (argc - 2) % 4 != 0)
      throw std::runtime_error("usage: python_mpi_allreduce N {DTYPE MODE IN OUT}...");
    const std::size_t n = std::stoull(argv[1]);
    for (int k = 2; k < argc; k += 4) {
      const std::string type = argv[k];
      detred::options opt;
      const auto m = detred::parse<detred::mode>(argv[k + 1]);
      if (!m) throw std::runtime_error(std::string("unknown mode ") + argv[k + 1]);
      opt.mode = *m;
      if (type == "float64") {
        one<double>(n, opt, argv[k + 2], argv[k + 3], rank);
      } else if (type == "float32") {
        one<float>(n, opt, argv[k + 2], argv[k + 3], rank);
      } else {
        throw std::runtime_error("unknown dtype " + type);
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rank %d: %s\n", rank, e.what());
    status = 1;
  }
  MPI_Finalize();
  return status;
}
