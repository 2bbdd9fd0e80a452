// SPDX-License-Identifier: BSD-3-Clause
// Reductions over MPI ranks with the bits of one call (library detred_mpi, CMake target detred::mpi; built when
// MPI is found). Two kinds:
//
//   Distributed arrays: each rank passes its local piece; the pieces in rank order form the global array (any
//   sizes, empty ones too). Every rank gets (allreduce), or the root gets (reduce), the bits of the single-array
//   call on the whole array, for any rank count and any split.
//
//     double s = detred::mpi::sum(std::span(local), MPI_COMM_WORLD);   // == detred::sum(global array)
//
//   Element-wise (gradients, multi-field sums): every rank passes a vector of the same length; element i of the
//   result is detred::sum of the p values {rank 0's x[i], ..., rank p-1's x[i]} (in rank order), on every rank,
//   whatever the length and however the work is split.
//
// Every call is collective over `comm`: every rank calls it with the same operation, mode and element type. An
// invalid argument on any rank (lengths, options) is a detred::error on every rank: the ranks agree on the checks in
// the first collective, before any could wait for another (local_state alone is local after its MPI_Exscan: it
// throws on the rank whose arguments are invalid).
// docs/partial-states.md has the guarantee table and the cost of each call.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include <mpi.h>

#include "detred/options.hpp"
#include "detred/partial.hpp"
#include "detred/statistics.hpp"

// Exported from a shared libdetred, whose other symbols are hidden (cmake/DetredShared.cmake); function templates
// also each with [[gnu::visibility("default")]], which their explicit instantiations in lib/ need.
#pragma GCC visibility push(default)

namespace detred::mpi {

/// The global index of this rank's first element: the local sizes of the lower ranks added up (MPI_Exscan).
std::uint64_t offset_of(std::uint64_t local_count, MPI_Comm comm);

/// Every rank's state merged, on every rank: the states of the pieces of one global array (partial_state::of with
/// offset_of) give a complete state. Cost: one MPI_Allgather of the state sizes and one MPI_Allgatherv of the
/// states (each at most about two leaves of elements plus 2 log2(n / L) nodes), then p merges on every rank.
partial_state allreduce(const partial_state& local, MPI_Comm comm);
/// The same on `root` only; the other ranks get nothing (the sizes by MPI_Allgather, so that every rank sees a
/// failure, then the states by MPI_Gatherv).
std::optional<partial_state> reduce(const partial_state& local, int root, MPI_Comm comm);

/// This rank's state of op over its piece, placed by offset_of.
template <class T>
[[gnu::visibility("default")]] partial_state local_state(operation op, std::span<const T> local, MPI_Comm comm,
                                                         const options& opt = {});

/// The single-array calls over the distributed array, on every rank.
double sum(std::span<const double> local, MPI_Comm comm, const options& opt = {});
float sum(std::span<const float> local, MPI_Comm comm, const options& opt = {});
double dot(std::span<const double> x, std::span<const double> y, MPI_Comm comm, const options& opt = {});
float dot(std::span<const float> x, std::span<const float> y, MPI_Comm comm, const options& opt = {});
double nrm2(std::span<const double> local, MPI_Comm comm, const options& opt = {});
float nrm2(std::span<const float> local, MPI_Comm comm, const options& opt = {});
statistics<double> stats(std::span<const double> local, MPI_Comm comm, const options& opt = {});
statistics<float> stats(std::span<const float> local, MPI_Comm comm, const options& opt = {});

/// Element-wise: out[i] = detred::sum({x[i] of rank 0, ..., x[i] of rank p-1}, opt.mode) on every rank (tree,
/// compensated or exact mode). x and out have the same length on every rank (detred::error on every rank otherwise)
/// and may be the same memory.
/// Cost: an MPI_Alltoallv that gives rank r the slice r of every vector, the column sums of that p x slice matrix
/// (detred::sum along axis 0), and an MPI_Allgatherv of the slices' sums: about what a reduce-scatter and an
/// allgather (MPI_Allreduce's large-message algorithms) move.
void allreduce_sum(std::span<const double> x, std::span<double> out, MPI_Comm comm, const options& opt = {});
void allreduce_sum(std::span<const float> x, std::span<float> out, MPI_Comm comm, const options& opt = {});

/// The inclusive scan of the distributed array: y (this rank's length) gets the outputs at this rank's positions,
/// bit for bit those of detred::cumsum over the whole array, for any rank count and any split (empty pieces too);
/// y may be `local` itself. double and float, tree and compensated mode, the same on every rank.
/// Cost: an MPI_Allgather of the lengths; a rank holding the start of a leaf that continues on later ranks receives
/// the rest of it from them (less than one leaf) and later sends their outputs back (two MPI_Alltoallv); an
/// MPI_Allgatherv of the leaf totals (8 or 16 bytes per leaf of L elements, about 1/1000 of the data); then the
/// pieces' scans (detred/scan.hpp: cumsum_totals, cumsum_piece).
void cumsum(std::span<const double> local, std::span<double> y, MPI_Comm comm, const options& opt = {});
void cumsum(std::span<const float> local, std::span<float> y, MPI_Comm comm, const options& opt = {});

}  // namespace detred::mpi

#pragma GCC visibility pop
