// SPDX-License-Identifier: BSD-3-Clause
// Distributed arrays: each rank's partial state, gathered and merged on every rank (or on the root).
#include <climits>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "detred/mpi.hpp"
#include "mpi_check.hpp"

namespace detred::mpi {
namespace {

/// The serialized states of every rank (all ranks, or the root only), in rank order.
std::vector<std::vector<std::byte>> gather_states(const partial_state& local, std::optional<int> root, MPI_Comm comm) {
  int ranks = 0, me = 0;
  check(MPI_Comm_size(comm, &ranks), "MPI_Comm_size");
  check(MPI_Comm_rank(comm, &me), "MPI_Comm_rank");
  const std::vector<std::byte> mine = local.serialize();
  if (mine.size() > static_cast<std::size_t>(INT_MAX)) throw error("detred::mpi: a partial state over 2 GiB");
  const int size = static_cast<int>(mine.size());
  const bool receives = !root || *root == me;
  std::vector<int> sizes(receives ? ranks : 0);
  if (root) {
    check(MPI_Gather(&size, 1, MPI_INT, sizes.data(), 1, MPI_INT, *root, comm), "MPI_Gather");
  } else {
    check(MPI_Allgather(&size, 1, MPI_INT, sizes.data(), 1, MPI_INT, comm), "MPI_Allgather");
  }
  std::vector<int> displacements(sizes.size());
  long long total = 0;
  for (std::size_t r = 0; r < sizes.size(); ++r) {
    displacements[r] = static_cast<int>(total);
    total += sizes[r];
    if (total > INT_MAX) throw error("detred::mpi: the ranks' partial states add up to over 2 GiB");
  }
  std::vector<std::byte> all(static_cast<std::size_t>(total));
  if (root) {
    check(
        MPI_Gatherv(mine.data(), size, MPI_BYTE, all.data(), sizes.data(), displacements.data(), MPI_BYTE, *root, comm),
        "MPI_Gatherv");
  } else {
    check(MPI_Allgatherv(mine.data(), size, MPI_BYTE, all.data(), sizes.data(), displacements.data(), MPI_BYTE, comm),
          "MPI_Allgatherv");
  }
  std::vector<std::vector<std::byte>> states;
  for (std::size_t r = 0; r < sizes.size(); ++r) {
    const auto* first = all.data() + displacements[r];
    states.emplace_back(first, first + sizes[r]);
  }
  return states;
}

partial_state merged(const std::vector<std::vector<std::byte>>& states) {
  partial_state all = partial_state::deserialize(states.front());
  for (std::size_t r = 1; r < states.size(); ++r) all.merge(partial_state::deserialize(states[r]));
  return all;
}

}  // namespace

std::uint64_t offset_of(std::uint64_t local_count, MPI_Comm comm) {
  std::uint64_t offset = 0;
  check(MPI_Exscan(&local_count, &offset, 1, MPI_UINT64_T, MPI_SUM, comm), "MPI_Exscan");
  int me = 0;
  check(MPI_Comm_rank(comm, &me), "MPI_Comm_rank");
  return me == 0 ? 0 : offset;  // MPI_Exscan leaves rank 0's output undefined
}

partial_state allreduce(const partial_state& local, MPI_Comm comm) {
  return merged(gather_states(local, std::nullopt, comm));
}

std::optional<partial_state> reduce(const partial_state& local, int root, MPI_Comm comm) {
  int me = 0;
  check(MPI_Comm_rank(comm, &me), "MPI_Comm_rank");
  std::vector<std::vector<std::byte>> states = gather_states(local, root, comm);
  if (me != root) return std::nullopt;
  return merged(states);
}

template <class T>
partial_state local_state(operation op, std::span<const T> local, MPI_Comm comm, const options& opt) {
  return partial_state::of(op, local, offset_of(local.size(), comm), opt);
}

namespace {

template <class R, class T>
R all_of(operation op, std::span<const T> local, MPI_Comm comm, const options& opt) {
  return allreduce(local_state(op, local, comm, opt), comm).template result<R>();
}

template <class T>
T dot_of(std::span<const T> x, std::span<const T> y, MPI_Comm comm, const options& opt) {
  const partial_state mine = partial_state::of_dot(x, y, offset_of(x.size(), comm), opt);
  return allreduce(mine, comm).template result<T>();
}

}  // namespace

double sum(std::span<const double> x, MPI_Comm comm, const options& opt) {
  return all_of<double>(operation::sum, x, comm, opt);
}
float sum(std::span<const float> x, MPI_Comm comm, const options& opt) {
  return all_of<float>(operation::sum, x, comm, opt);
}
double dot(std::span<const double> x, std::span<const double> y, MPI_Comm comm, const options& opt) {
  return dot_of(x, y, comm, opt);
}
float dot(std::span<const float> x, std::span<const float> y, MPI_Comm comm, const options& opt) {
  return dot_of(x, y, comm, opt);
}
double nrm2(std::span<const double> x, MPI_Comm comm, const options& opt) {
  return all_of<double>(operation::nrm2, x, comm, opt);
}
float nrm2(std::span<const float> x, MPI_Comm comm, const options& opt) {
  return all_of<float>(operation::nrm2, x, comm, opt);
}
statistics<double> stats(std::span<const double> x, MPI_Comm comm, const options& opt) {
  return all_of<statistics<double>>(operation::stats, x, comm, opt);
}
statistics<float> stats(std::span<const float> x, MPI_Comm comm, const options& opt) {
  return all_of<statistics<float>>(operation::stats, x, comm, opt);
}

#define DETRED_MPI_LOCAL_STATE(T) \
  template partial_state local_state<T>(operation, std::span<const T>, MPI_Comm, const options&);
DETRED_MPI_LOCAL_STATE(double)
DETRED_MPI_LOCAL_STATE(float)
DETRED_MPI_LOCAL_STATE(float16)
DETRED_MPI_LOCAL_STATE(bfloat16)
DETRED_MPI_LOCAL_STATE(std::int32_t)
DETRED_MPI_LOCAL_STATE(std::int64_t)
DETRED_MPI_LOCAL_STATE(std::uint32_t)
DETRED_MPI_LOCAL_STATE(std::uint64_t)
#undef DETRED_MPI_LOCAL_STATE

}  // namespace detred::mpi
