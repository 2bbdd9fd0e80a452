// SPDX-License-Identifier: BSD-3-Clause
// detred_mpi on however many ranks mpiexec started: distributed arrays split at random (uneven pieces, empty ranks,
// cuts inside leaves) give every rank the single-array call's bits; reduce gives them to the root only; element-wise
// sums equal the single-process reference for lengths below, at and above the rank count; the distributed cumsum
// gives each rank its positions of the one-call scan. Every rank generates the
// whole data from the same seeds, so each can compute the reference itself.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include <gtest/gtest.h>
#include <mpi.h>

#include "detred/detred.hpp"
#include "detred/mpi.hpp"
#include "portable_random.hpp"
#include "value_classes.hpp"

namespace detred::testing {
namespace {

using namespace detred::generators;

int rank_count() {
  int p = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  return p;
}
int my_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

template <class R>
std::vector<unsigned char> bits(const R& r) {
  std::vector<unsigned char> b(sizeof(R));
  std::memcpy(b.data(), &r, sizeof(R));
  return b;
}

/// The rank pieces' bounds: p + 1 cut points from 0 to n, drawn from `seed` (equal on every rank). Some ranks get
/// nothing; cuts fall on leaf boundaries, next to them and anywhere.
std::vector<std::uint64_t> split(std::uint64_t n, std::uint64_t seed) {
  rng r(seed);
  const auto p = static_cast<std::uint64_t>(rank_count());
  std::vector<std::uint64_t> cuts(p + 1, n);
  cuts[0] = 0;
  for (std::uint64_t k = 1; k < p; ++k) {
    std::uint64_t c = r.below(n + 1);
    if (r.below(3) == 0) c = c / 2048 * 2048 + r.below(3);
    cuts[k] = std::min(c, n);
  }
  std::sort(cuts.begin(), cuts.end());
  if (p > 2 && r.below(2) == 0) cuts[1] = cuts[0];  // rank 0 empty
  return cuts;
}

template <class T>
std::span<const T> my_piece(const std::vector<T>& x, const std::vector<std::uint64_t>& cuts) {
  const auto r = static_cast<std::size_t>(my_rank());
  return std::span<const T>(x).subspan(cuts[r], cuts[r + 1] - cuts[r]);
}

TEST(MpiDistributed, SumsOfRandomSplitsHaveTheOneCallBits) {
  for (std::uint64_t n : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{7}, std::uint64_t{2048},
                          std::uint64_t{4097}, std::uint64_t{50000}, std::uint64_t{300000}}) {
    for (values v : {values::uniform, values::ill_conditioned, values::with_nan, values::negative_zeros}) {
      const std::vector<double> x = generate<double>(v, n, n + 1);
      const std::vector<float> xf = generate<float>(v, n, n + 2);
      for (std::uint64_t round = 0; round < 3; ++round) {
        const std::vector<std::uint64_t> cuts = split(n, n * 31 + round);
        for (mode m : {mode::tree, mode::compensated, mode::exact}) {
          const options opt{.mode = m, .threads = 1};
          EXPECT_EQ(bits(mpi::sum(my_piece(x, cuts), MPI_COMM_WORLD, opt)), bits(detred::sum(x, opt)))
              << name(v) << " n=" << n;
          EXPECT_EQ(bits(mpi::sum(my_piece(xf, cuts), MPI_COMM_WORLD, opt)), bits(detred::sum(xf, opt)))
              << name(v) << " n=" << n;
          EXPECT_EQ(bits(mpi::dot(my_piece(x, cuts), my_piece(x, cuts), MPI_COMM_WORLD, opt)),
                    bits(detred::dot(x, x, opt)));
          if (m != mode::exact) {
            EXPECT_EQ(bits(mpi::nrm2(my_piece(xf, cuts), MPI_COMM_WORLD, opt)), bits(detred::nrm2(xf, opt)));
          }
        }
        EXPECT_EQ(bits(mpi::stats(my_piece(x, cuts), MPI_COMM_WORLD)), bits(detred::stats(x))) << name(v);
      }
    }
  }
}

TEST(MpiDistributed, EveryOperationThroughStatesAndReduceToARoot) {
  const std::uint64_t n = 70001;
  const std::vector<double> x = generate<double>(values::uniform, n, 3);
  std::vector<std::int64_t> k(n);
  rng g(5);
  for (auto& e : k) e = static_cast<std::int64_t>(g.below(1u << 20)) - (1 << 19);
  const std::vector<std::uint64_t> cuts = split(n, 77);
  const int root = rank_count() - 1;

  const auto argmax =
      mpi::allreduce(mpi::local_state(operation::argmax, my_piece(x, cuts), MPI_COMM_WORLD), MPI_COMM_WORLD);
  EXPECT_EQ(argmax.result<std::uint64_t>(), detred::argmax(x));
  const auto min =
      mpi::reduce(mpi::local_state(operation::min, my_piece(x, cuts), MPI_COMM_WORLD), root, MPI_COMM_WORLD);
  EXPECT_EQ(min.has_value(), my_rank() == root);
  if (min) {
    EXPECT_EQ(bits(min->result<double>()), bits(detred::min(x)));
  }
  const auto ksum = mpi::allreduce(mpi::local_state(operation::sum, my_piece(k, cuts), MPI_COMM_WORLD), MPI_COMM_WORLD);
  EXPECT_EQ(ksum.result<std::int64_t>(), detred::sum(std::span<const std::int64_t>(k)));
  EXPECT_EQ(mpi::offset_of(cuts[static_cast<std::size_t>(my_rank()) + 1] - cuts[static_cast<std::size_t>(my_rank())],
                           MPI_COMM_WORLD),
            cuts[static_cast<std::size_t>(my_rank())]);
}

/// Element i over ranks, computed in one process: detred::sum of the p values in rank order.
template <class T>
std::vector<T> reference(const std::vector<std::vector<T>>& per_rank, mode m) {
  const std::size_t n = per_rank.front().size();
  std::vector<T> out(n), column(per_rank.size());
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t r = 0; r < per_rank.size(); ++r) column[r] = per_rank[r][i];
    out[i] = detred::sum(std::span<const T>(column), {.mode = m});
  }
  return out;
}

template <class T>
void check_elementwise() {
  const auto p = static_cast<std::uint64_t>(rank_count());
  for (std::uint64_t n :
       {std::uint64_t{0}, std::uint64_t{1}, p - 1, p, p + 1, std::uint64_t{1000}, std::uint64_t{65537}}) {
    for (values v : {values::uniform, values::dynamic_range, values::signed_zeros, values::with_nan}) {
      std::vector<std::vector<T>> per_rank;
      for (std::uint64_t r = 0; r < p; ++r) per_rank.push_back(generate<T>(v, n, 1000 * r + n));
      for (mode m : {mode::tree, mode::compensated, mode::exact}) {
        const std::vector<T> expected = reference(per_rank, m);
        std::vector<T> out(n);
        mpi::allreduce_sum(std::span<const T>(per_rank[static_cast<std::size_t>(my_rank())]), std::span<T>(out),
                           MPI_COMM_WORLD, {.mode = m, .threads = 1});
        EXPECT_TRUE(n == 0 || std::memcmp(out.data(), expected.data(), n * sizeof(T)) == 0) << name(v) << " n=" << n;
        // In place.
        std::vector<T> inout = per_rank[static_cast<std::size_t>(my_rank())];
        mpi::allreduce_sum(std::span<const T>(inout), std::span<T>(inout), MPI_COMM_WORLD, {.mode = m});
        EXPECT_TRUE(n == 0 || std::memcmp(inout.data(), expected.data(), n * sizeof(T)) == 0)
            << name(v) << " in place n=" << n;
      }
    }
  }
}

/// The scan of a distributed array: every rank's outputs are its positions of detred::cumsum of the whole array,
/// bit for bit, for random splits (cuts inside leaves, next to their boundaries, empty ranks, pieces smaller than a
/// leaf), sizes around the leaf boundaries, both modes, and in place.
template <class T>
void check_distributed_cumsum() {
  constexpr std::uint64_t L = order::leaf_size<T>;
  for (std::uint64_t n :
       {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{5}, L - 1, L, L + 1, 3 * L + 7, std::uint64_t{70001}}) {
    for (values v : {values::dynamic_range, values::with_nan, values::negative_zeros}) {
      const std::vector<T> x = generate<T>(v, n, n + 11);
      for (std::uint64_t round = 0; round < 4; ++round) {
        const std::vector<std::uint64_t> cuts = split(n, n * 17 + round);
        const std::span<const T> piece = my_piece(x, cuts);
        for (mode m : {mode::tree, mode::compensated}) {
          const options opt{.mode = m, .threads = 1};
          std::vector<T> whole(n);
          detred::cumsum(std::span<const T>(x), std::span<T>(whole), opt);
          std::vector<T> y(piece.size());
          mpi::cumsum(piece, std::span<T>(y), MPI_COMM_WORLD, opt);
          std::vector<T> in_place(piece.begin(), piece.end());
          mpi::cumsum(std::span<const T>(in_place), std::span<T>(in_place), MPI_COMM_WORLD, opt);
          const std::uint64_t first = cuts[static_cast<std::size_t>(my_rank())];
          for (std::uint64_t i = 0; i < piece.size(); ++i) {
            ASSERT_EQ(bits(y[i]), bits(whole[first + i])) << name(v) << " n=" << n << " position " << first + i;
            ASSERT_EQ(bits(in_place[i]), bits(whole[first + i])) << "in place, n=" << n;
          }
        }
      }
    }
  }
}

TEST(MpiDistributed, CumsumOfRandomSplitsHasTheOneCallBits) {
  check_distributed_cumsum<double>();
  check_distributed_cumsum<float>();
}

TEST(MpiElementwise, MatchesTheSingleProcessReference) {
  check_elementwise<double>();
  check_elementwise<float>();
}

TEST(MpiElementwise, UnequalLengthsFailOnEveryRank) {
  if (rank_count() == 1) GTEST_SKIP() << "one rank: every length agrees";
  std::vector<double> x(static_cast<std::size_t>(10 + my_rank() % 2)), out(x.size());
  EXPECT_THROW(mpi::allreduce_sum(std::span<const double>(x), std::span<double>(out), MPI_COMM_WORLD), error);
}

}  // namespace
}  // namespace detred::testing

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  const int failed = RUN_ALL_TESTS();
  int any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any;
}
