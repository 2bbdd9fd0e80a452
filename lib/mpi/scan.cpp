// SPDX-License-Identifier: BSD-3-Clause
// A scan of an array distributed over ranks (detred::mpi::cumsum), any split, through the scan's pieces
// (detred/scan.hpp: cumsum_totals, then cumsum_piece from the totals of every leaf before). Pieces must start on
// leaf boundaries there, so the ranks first move the elements around their boundaries: a leaf belongs to the rank
// that holds its first element, and that rank receives the rest of its last leaf from the ranks after it (less than
// one leaf, from one or more ranks) and sends them their outputs back. Everything else stays where it is.
#include <climits>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "detred/mpi.hpp"
#include "detred/order/shape.hpp"
#include "detred/scan.hpp"
#include "mpi_check.hpp"

namespace detred::mpi {
namespace {

/// The global layout, the same on every rank: rank r holds [start[r], start[r + 1]); the leaves whose first element
/// it holds make its owned range [owned_begin(r), owned_end(r)), which ends where the next leaf starts (or at n).
struct layout_of_ranks {
  std::vector<std::uint64_t> start;  ///< p + 1 offsets
  std::uint64_t leaf = 0;

  std::uint64_t n() const { return start.back(); }
  std::uint64_t round_up(std::uint64_t i) const { return (i + leaf - 1) / leaf * leaf; }
  std::uint64_t owned_begin(std::size_t r) const {
    const std::uint64_t b = round_up(start[r]);
    return b < start[r + 1] ? b : start[r + 1];
  }
  std::uint64_t owned_end(std::size_t r) const {
    const std::uint64_t b = owned_begin(r);
    if (b == start[r + 1]) return b;  // no leaf starts here: everything goes to an earlier rank
    const std::uint64_t e = round_up(start[r + 1]);
    return e < n() ? e : n();
  }
  /// The elements of rank r in [lo, hi).
  std::uint64_t overlap(std::size_t r, std::uint64_t lo, std::uint64_t hi) const {
    const std::uint64_t a = start[r] > lo ? start[r] : lo;
    const std::uint64_t b = start[r + 1] < hi ? start[r + 1] : hi;
    return b > a ? b - a : 0;
  }
};

template <class T>
void distributed_cumsum(std::span<const T> local, std::span<T> y, MPI_Comm comm, const options& opt) {
  int ranks = 0, me = 0;
  check(MPI_Comm_size(comm, &ranks), "MPI_Comm_size");
  check(MPI_Comm_rank(comm, &me), "MPI_Comm_rank");
  const auto p = static_cast<std::size_t>(ranks);
  const auto r = static_cast<std::size_t>(me);
  // Every check agrees across ranks before any rank could wait: one MPI_Allgather carries each rank's length, mode
  // and whether its own arguments are invalid.
  std::string problem;
  try {
    cumsum_totals(std::span<const T>(), std::span<scan_total<T>>(), opt);  // the options' checks, no elements
  } catch (const error& e) {
    problem = e.what();
  }
  if (problem.empty() && y.size() != local.size()) {
    problem = "detred::mpi::cumsum: y has " + std::to_string(y.size()) + " elements, the local piece " +
              std::to_string(local.size()) + " (this rank)";
  }
  const std::uint64_t mine[3] = {local.size(), static_cast<std::uint64_t>(opt.mode), problem.empty() ? 0u : 1u};
  std::vector<std::uint64_t> all(3 * p);
  check(MPI_Allgather(mine, 3, MPI_UINT64_T, all.data(), 3, MPI_UINT64_T, comm), "MPI_Allgather");
  if (!problem.empty()) throw error(problem);
  layout_of_ranks at{std::vector<std::uint64_t>(p + 1, 0), order::leaf_size<T>};
  for (std::size_t q = 0; q < p; ++q) {
    if (all[3 * q + 2] != 0) {
      throw error("detred::mpi::cumsum: rank " + std::to_string(q) +
                  "'s arguments are invalid (that rank's detred::error names them); no rank computes a result");
    }
    if (all[3 * q + 1] != mine[1]) {
      throw error("detred::mpi::cumsum: the ranks pass different modes (rank " + std::to_string(q) + " and rank " +
                  std::to_string(r) + ")");
    }
    at.start[q + 1] = at.start[q] + all[3 * q];
  }
  const std::uint64_t begin = at.owned_begin(r);
  const std::uint64_t end = at.owned_end(r);
  const std::uint64_t here = at.start[r];
  const std::uint64_t there = at.start[r + 1];
  const std::uint64_t leaves = (end - begin + at.leaf - 1) / at.leaf;
  if (at.n() / at.leaf + 1 > static_cast<std::uint64_t>(INT_MAX) / sizeof(scan_total<T>)) {
    throw error("detred::mpi::cumsum: " + std::to_string(at.n()) + " elements overflow MPI's int counts");
  }

  // Rank r sends its elements before `begin` to the rank that owns them (the owner of the leaf of its first
  // element) and receives from the ranks after it their elements before `end`. Counts below one leaf each.
  std::vector<int> send_counts(p, 0), send_at(p, 0), receive_counts(p, 0), receive_at(p, 0);
  for (std::size_t q = 0; q < p; ++q) {
    // Rank q's owned range takes these elements of rank r, and rank r's owned range these of rank q.
    if (q != r) {
      send_counts[q] = static_cast<int>(at.overlap(r, at.owned_begin(q), at.owned_end(q)));
      receive_counts[q] = static_cast<int>(at.overlap(q, begin, end));
    }
  }
  std::vector<T> piece(end - begin);
  const std::uint64_t kept = there > begin ? there - begin : 0;  // this rank's own elements in its owned range
  if (kept > 0) std::memcpy(piece.data(), local.data() + (begin - here), kept * sizeof(T));
  int offset = 0;  // after the kept elements; the received ones are fewer than a leaf
  for (std::size_t q = 0; q < p; ++q) {
    receive_at[q] = offset;
    offset += receive_counts[q];
  }
  // The elements this rank sends are its first ones, [here, min(begin, there)).
  check(MPI_Alltoallv(local.data(), send_counts.data(), send_at.data(), datatype<T>(), piece.data() + kept,
                      receive_counts.data(), receive_at.data(), datatype<T>(), comm),
        "MPI_Alltoallv");

  // The leaves' totals, every rank's in rank order (that is, in the array's order).
  std::vector<scan_total<T>> totals(at.n() / at.leaf + 1);
  std::vector<int> total_counts(p), total_at(p);
  std::uint64_t before = 0;
  for (std::size_t q = 0; q < p; ++q) {
    const std::uint64_t b = at.owned_begin(q);
    total_at[q] = static_cast<int>(b / at.leaf * sizeof(scan_total<T>));
    total_counts[q] = static_cast<int>((at.owned_end(q) - b + at.leaf - 1) / at.leaf * sizeof(scan_total<T>));
    if (q == r) before = b / at.leaf;
  }
  cumsum_totals(std::span<const T>(piece), std::span<scan_total<T>>(totals.data() + before, leaves), opt);
  check(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_BYTE, totals.data(), total_counts.data(), total_at.data(), MPI_BYTE, comm),
        "MPI_Allgatherv");
  cumsum_piece(std::span<const T>(piece), std::span<const scan_total<T>>(totals.data(), before), std::span<T>(piece),
               opt);

  // The outputs back: this rank's own in place, the received elements' to their ranks (the reverse exchange).
  if (kept > 0) std::memcpy(y.data() + (begin - here), piece.data(), kept * sizeof(T));
  check(MPI_Alltoallv(piece.data() + kept, receive_counts.data(), receive_at.data(), datatype<T>(), y.data(),
                      send_counts.data(), send_at.data(), datatype<T>(), comm),
        "MPI_Alltoallv");
}

}  // namespace

void cumsum(std::span<const double> local, std::span<double> y, MPI_Comm comm, const options& opt) {
  distributed_cumsum(local, y, comm, opt);
}
void cumsum(std::span<const float> local, std::span<float> y, MPI_Comm comm, const options& opt) {
  distributed_cumsum(local, y, comm, opt);
}

}  // namespace detred::mpi
