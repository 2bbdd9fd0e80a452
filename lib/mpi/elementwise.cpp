// SPDX-License-Identifier: BSD-3-Clause
// Element-wise sums over ranks: rank r reduces slice r of the vectors, as the columns of a p x slice matrix whose
// row q is rank q's slice; then every rank gathers every slice's sums. Element i's sum is detred::sum of the p
// values of element i in rank order, so the slicing (how many elements each rank sums) never shows in the bits.
#include <climits>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "detred/batched.hpp"
#include "detred/mpi.hpp"
#include "mpi_check.hpp"

namespace detred::mpi {
namespace {

template <class T>
void elementwise(std::span<const T> x, std::span<T> out, MPI_Comm comm, const options& opt) {
  int ranks = 0, me = 0;
  check(MPI_Comm_size(comm, &ranks), "MPI_Comm_size");
  check(MPI_Comm_rank(comm, &me), "MPI_Comm_rank");
  // Every argument check agrees across ranks before the first collective that could wait: one MPI_Allreduce
  // carries the extreme lengths and whether any rank's own arguments are invalid, so that all ranks throw or none.
  const std::uint64_t n = x.size();
  std::string problem;  // this rank's invalid argument, if any
  try {
    // The column sums below with no columns: the same option and shape checks, before any rank waits.
    detred::sum(matrix_view<T>{nullptr, static_cast<std::uint64_t>(ranks), 0, 0, layout::row_major}, 0, std::span<T>(),
                opt);
  } catch (const error& e) {
    problem = e.what();
  }
  if (problem.empty() && out.size() != n) {
    problem = "detred::mpi::allreduce_sum: out has " + std::to_string(out.size()) + " elements, x " +
              std::to_string(n) + " (this rank)";
  }
  std::uint64_t agreed[3] = {n, ~n, problem.empty() ? 0u : 1u};
  check(MPI_Allreduce(MPI_IN_PLACE, agreed, 3, MPI_UINT64_T, MPI_MAX, comm), "MPI_Allreduce");
  if (!problem.empty()) throw error(problem);
  if (agreed[2] != 0) {
    throw error(
        "detred::mpi::allreduce_sum: another rank's arguments are invalid (that rank's detred::error names "
        "them); no rank computes a result");
  }
  if (agreed[0] != n || ~agreed[1] != n) {
    throw error("detred::mpi::allreduce_sum: the vectors must have one length on every rank (this rank: x " +
                std::to_string(n) + ", out " + std::to_string(out.size()) + "; lengths from " +
                std::to_string(~agreed[1]) + " to " + std::to_string(agreed[0]) + ")");
  }
  const auto p = static_cast<std::uint64_t>(ranks);
  const auto slice_begin = [&](std::uint64_t r) { return n * r / p; };
  if (n / p + 1 > static_cast<std::uint64_t>(INT_MAX) / p) {
    throw error("detred::mpi::allreduce_sum: " + std::to_string(n) + " elements over " + std::to_string(p) +
                " ranks overflow MPI's int counts");
  }
  const std::uint64_t mine = slice_begin(me + 1) - slice_begin(me);

  // Rank q sends its slice r to rank r; rank r receives row q of its p x mine matrix from rank q.
  std::vector<int> send_counts(ranks), send_displacements(ranks), receive_counts(ranks), receive_displacements(ranks);
  for (std::uint64_t r = 0; r < p; ++r) {
    send_counts[r] = static_cast<int>(slice_begin(r + 1) - slice_begin(r));
    send_displacements[r] = static_cast<int>(slice_begin(r));
    receive_counts[r] = static_cast<int>(mine);
    receive_displacements[r] = static_cast<int>(r * mine);
  }
  // Kept between calls (per thread) and left uninitialized: MPI_Alltoallv writes all of it. A fresh allocation of
  // this size is a new mapping each call, whose page faults cost more than the column sums.
  thread_local std::unique_ptr<T[]> kept;
  thread_local std::uint64_t kept_size = 0;
  if (kept_size < p * mine) {
    kept.reset(new T[p * mine]);
    kept_size = p * mine;
  }
  T* const matrix = kept.get();
  check(MPI_Alltoallv(x.data(), send_counts.data(), send_displacements.data(), datatype<T>(), matrix,
                      receive_counts.data(), receive_displacements.data(), datatype<T>(), comm),
        "MPI_Alltoallv");

  std::vector<T> sums(mine);
  if (mine > 0) {
    detred::sum(matrix_view<T>{matrix, p, mine, mine, layout::row_major}, 0, std::span<T>(sums), opt);
  }
  // out may alias x: x is no longer read.
  check(MPI_Allgatherv(sums.data(), static_cast<int>(mine), datatype<T>(), out.data(), send_counts.data(),
                       send_displacements.data(), datatype<T>(), comm),
        "MPI_Allgatherv");
}

}  // namespace

void allreduce_sum(std::span<const double> x, std::span<double> out, MPI_Comm comm, const options& opt) {
  elementwise(x, out, comm, opt);
}
void allreduce_sum(std::span<const float> x, std::span<float> out, MPI_Comm comm, const options& opt) {
  elementwise(x, out, comm, opt);
}

}  // namespace detred::mpi
