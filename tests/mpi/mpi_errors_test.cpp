// SPDX-License-Identifier: BSD-3-Clause
// Invalid arguments on one rank only are a detred::error on every rank, never a deadlock: each case below makes one
// rank's arguments wrong, expects the error on every rank, then meets at an MPI_Barrier that a rank left waiting in a
// collective would never reach. A watchdog (alarm) ends a hung run, so that a regression fails instead of hanging.
#include <unistd.h>

#include <span>
#include <vector>

#include <gtest/gtest.h>
#include <mpi.h>

#include "detred/detred.hpp"
#include "detred/mpi.hpp"

namespace detred::testing {
namespace {

int my_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int last_rank() {
  int p = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  return p - 1;
}

/// Runs `call` on every rank: it must throw detred::error everywhere; then every rank meets at a barrier.
template <class Call>
void expect_error_on_every_rank(Call call, const char* what) {
  bool threw = false;
  try {
    call();
  } catch (const error&) {
    threw = true;
  }
  EXPECT_TRUE(threw) << what << ": no detred::error on rank " << my_rank();
  EXPECT_EQ(MPI_Barrier(MPI_COMM_WORLD), MPI_SUCCESS) << what;
}

TEST(MpiErrors, OutShorterOnOneRankOnly) {
  std::vector<double> x(4, 1.0), out(my_rank() == 0 ? 3 : 4);
  expect_error_on_every_rank(
      [&] { mpi::allreduce_sum(std::span<const double>(x), std::span<double>(out), MPI_COMM_WORLD); },
      "allreduce_sum, out of 3 on rank 0");
  std::vector<float> xf(1000, 1.0f), outf(my_rank() == last_rank() ? 999 : 1000);
  expect_error_on_every_rank(
      [&] { mpi::allreduce_sum(std::span<const float>(xf), std::span<float>(outf), MPI_COMM_WORLD); },
      "allreduce_sum, out of 999 on the last rank");
}

TEST(MpiErrors, InvalidOptionsOnOneRankOnly) {
  std::vector<double> x(100, 1.0), out(100);
  const options bad{.threads = my_rank() == last_rank() ? -1 : 0};
  expect_error_on_every_rank(
      [&] { mpi::allreduce_sum(std::span<const double>(x), std::span<double>(out), MPI_COMM_WORLD, bad); },
      "allreduce_sum, negative threads on the last rank");
  expect_error_on_every_rank([&] { mpi::sum(std::span<const double>(x), MPI_COMM_WORLD, bad); },
                             "sum, negative threads on the last rank");
  const options stats_mode{.mode = my_rank() == 0 ? mode::compensated : mode::tree};
  expect_error_on_every_rank([&] { mpi::stats(std::span<const double>(x), MPI_COMM_WORLD, stats_mode); },
                             "stats, compensated mode on rank 0");
}

TEST(MpiErrors, CumsumArgumentsOnOneRankOnly) {
  std::vector<double> x(5000, 1.0), y(my_rank() == last_rank() ? 4999 : 5000);
  expect_error_on_every_rank([&] { mpi::cumsum(std::span<const double>(x), std::span<double>(y), MPI_COMM_WORLD); },
                             "cumsum, y shorter on the last rank");
  std::vector<float> xf(100, 1.0f), yf(100);
  const options mixed{.mode = my_rank() == 0 ? mode::compensated : mode::tree};
  expect_error_on_every_rank(
      [&] { mpi::cumsum(std::span<const float>(xf), std::span<float>(yf), MPI_COMM_WORLD, mixed); },
      "cumsum, compensated mode on rank 0 only");
  const options bad{.threads = my_rank() == last_rank() ? -1 : 0};
  expect_error_on_every_rank(
      [&] { mpi::cumsum(std::span<const float>(xf), std::span<float>(yf), MPI_COMM_WORLD, bad); },
      "cumsum, negative threads on the last rank");
}

TEST(MpiErrors, DotOfUnequalPiecesOnOneRankOnly) {
  std::vector<double> x(50, 1.0), y(my_rank() == last_rank() ? 49 : 50, 2.0);
  expect_error_on_every_rank([&] { mpi::dot(std::span<const double>(x), std::span<const double>(y), MPI_COMM_WORLD); },
                             "dot, y shorter on the last rank");
}

TEST(MpiErrors, TheCommunicatorStillWorksAfterwards) {
  std::vector<double> x(10, 1.0), out(10);
  mpi::allreduce_sum(std::span<const double>(x), std::span<double>(out), MPI_COMM_WORLD);
  EXPECT_EQ(out[9], static_cast<double>(last_rank() + 1));
  EXPECT_EQ(mpi::sum(std::span<const double>(x), MPI_COMM_WORLD), 10.0 * (last_rank() + 1));
}

}  // namespace
}  // namespace detred::testing

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  ::alarm(60);  // SIGALRM's default action ends the process: a deadlock fails the test in a minute
  ::testing::InitGoogleTest(&argc, argv);
  const int failed = RUN_ALL_TESTS();
  int any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any;
}
