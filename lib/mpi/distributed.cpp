// SPDX-License-Identifier: BSD-3-Clause
// Distributed arrays: each rank's partial state, gathered and merged on every rank (or on the root).
#include <climits>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "detred/mpi.hpp"
#include "mpi_check.hpp"

namespace detred::mpi {
namespace {

/// This rank's state, or the detred::error that kept it from having one.
struct local_result {
  std::optional<partial_state> state;
  std::exception_ptr failure;
};

/// The serialized states of every rank (all ranks, or the root only), in rank order. A rank without a state (its
/// arguments were invalid) sends the size -1 in the first collective, an MPI_Allgather on every rank (root or not),
/// so that every rank throws before any could wait in the second: the failing rank its own error, the others one
/// that names it.
std::vector<std::vector<std::byte>> gather_states(const local_result& local, std::optional<int> root, MPI_Comm comm) {
  int ranks = 0, me = 0;
  check(MPI_Comm_size(comm, &ranks), "MPI_Comm_size");
  check(MPI_Comm_rank(comm, &me), "MPI_Comm_rank");
  std::vector<std::byte> mine;
  std::exception_ptr failure = local.failure;
  if (!failure) {
    try {
      mine = local.state->serialize();
      if (mine.size() > static_cast<std::size_t>(INT_MAX)) throw error("detred::mpi: a partial state over 2 GiB");
    } catch (const error&) {
      failure = std::current_exception();
    }
  }
  const int size = failure ? -1 : static_cast<int>(mine.size());
  std::vector<int> sizes(static_cast<std::size_t>(ranks));
  check(MPI_Allgather(&size, 1, MPI_INT, sizes.data(), 1, MPI_INT, comm), "MPI_Allgather");
  if (failure) std::rethrow_exception(failure);
  for (int r = 0; r < ranks; ++r) {
    if (sizes[static_cast<std::size_t>(r)] < 0) {
      throw error("detred::mpi: rank " + std::to_string(r) +
                  " has no partial state (its detred::error names the invalid argument); no rank computes a result");
    }
  }
  long long total = 0;  // every rank knows every size, so all of them throw here or none
  for (const int size_of_rank : sizes) total += size_of_rank;
  if (total > INT_MAX) throw error("detred::mpi: the ranks' partial states add up to over 2 GiB");
  if (root && *root != me) sizes.clear();  // only the root receives
  std::vector<int> displacements(sizes.size());
  for (std::size_t r = 0, at = 0; r < sizes.size(); at += static_cast<std::size_t>(sizes[r]), ++r) {
    displacements[r] = static_cast<int>(at);
  }
  if (sizes.empty()) total = 0;
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
  return merged(gather_states({local, nullptr}, std::nullopt, comm));
}

std::optional<partial_state> reduce(const partial_state& local, int root, MPI_Comm comm) {
  int me = 0;
  check(MPI_Comm_rank(comm, &me), "MPI_Comm_rank");
  std::vector<std::vector<std::byte>> states = gather_states({local, nullptr}, root, comm);
  if (me != root) return std::nullopt;
  return merged(states);
}

template <class T>
partial_state local_state(operation op, std::span<const T> local, MPI_Comm comm, const options& opt) {
  return partial_state::of(op, local, offset_of(local.size(), comm), opt);
}

namespace {

/// This rank's state from `make`, or the detred::error it threw: handed to the gather, which every rank enters, so
/// that an invalid argument on one rank is an error on every rank and none waits.
template <class Make>
local_result attempt(Make make) {
  try {
    return {make(), nullptr};
  } catch (const error&) {
    return {std::nullopt, std::current_exception()};
  }
}

template <class R, class T>
R all_of(operation op, std::span<const T> local, MPI_Comm comm, const options& opt) {
  const std::uint64_t offset = offset_of(local.size(), comm);
  const local_result mine = attempt([&] { return partial_state::of(op, local, offset, opt); });
  return merged(gather_states(mine, std::nullopt, comm)).template result<R>();
}

template <class T>
T dot_of(std::span<const T> x, std::span<const T> y, MPI_Comm comm, const options& opt) {
  const std::uint64_t offset = offset_of(x.size(), comm);
  const local_result mine = attempt([&] { return partial_state::of(operation::dot, x, y, offset, opt); });
  return merged(gather_states(mine, std::nullopt, comm)).template result<T>();
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
