// SPDX-License-Identifier: BSD-3-Clause
// The backend seam: a backend built only in the tests (test_backend/reference_backend.hpp) takes the calls the front
// door routes to backend::cuda, single arrays and batches alike, and gives the CPU backend's bits: a new backend is
// a folder implementing the seam, with no change to the front door.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "api/backends.hpp"
#include "detred/detred.hpp"
#include "test_backend/reference_backend.hpp"

namespace detred {
namespace {

/// Routes backend::cuda to the test backend for the life of the object.
class test_backend_routed {
 public:
  test_backend_routed() : previous_(replace_seam_for_tests(backend::cuda, &test_backend::seam())) {}
  ~test_backend_routed() { replace_seam_for_tests(backend::cuda, previous_); }
  test_backend_routed(const test_backend_routed&) = delete;
  test_backend_routed& operator=(const test_backend_routed&) = delete;

 private:
  const backend_seam* previous_;
};

template <class T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

std::vector<double> data(std::size_t n) {
  std::vector<double> x(n);
  for (std::size_t i = 0; i < n; ++i)
    x[i] = static_cast<double>((i * 7919) % 1000) * 1e-3 - 0.37 + static_cast<double>(i % 3) * 1e10;
  return x;
}

TEST(BackendSeam, ATestBackendServesEverySingleArrayOperation) {
  const std::vector<double> v = data(5000);
  const std::span<const double> x(v);
  const test_backend_routed routed;
  const int before = test_backend::calls;
  for (const mode m : {mode::tree, mode::compensated}) {
    const options on_test{.mode = m, .backend = backend::cuda};
    const options on_cpu{.mode = m, .backend = backend::cpu};
    EXPECT_TRUE(same_bits(sum(x, on_test), sum(x, on_cpu)));
    EXPECT_TRUE(same_bits(dot(x, x, on_test), dot(x, x, on_cpu)));
    EXPECT_TRUE(same_bits(asum(x, on_test), asum(x, on_cpu)));
    EXPECT_TRUE(same_bits(nrm2(x, on_test), nrm2(x, on_cpu)));
  }
  const options on_test{.backend = backend::cuda};
  EXPECT_TRUE(same_bits(min(x, on_test), min(x)));
  EXPECT_EQ(argmax(x, on_test), argmax(x));
  const statistics<double> a = stats(x, on_test);
  const statistics<double> b = stats(x);
  EXPECT_TRUE(same_bits(a.variance, b.variance) && same_bits(a.mean, b.mean) && a.count == b.count);
  const std::vector<std::int32_t> i(3000, -7);
  EXPECT_EQ(sum(std::span<const std::int32_t>(i), on_test), -21000);
  EXPECT_EQ(test_backend::calls - before, 12);  // every call above reached the test backend
}

TEST(BackendSeam, ATestBackendServesBatches) {
  const std::vector<double> v = data(3 * 4100);
  const std::vector<std::uint64_t> offsets = {0, 1, 2049, 2049, 9000, v.size()};
  std::vector<double> got(offsets.size() - 1);
  std::vector<double> want(got.size());
  const test_backend_routed routed;
  const int before = test_backend::calls;
  sum(std::span<const double>(v), segments{offsets}, std::span<double>(got), {.backend = backend::cuda});
  sum(std::span<const double>(v), segments{offsets}, std::span<double>(want));
  for (std::size_t k = 0; k < got.size(); ++k) EXPECT_TRUE(same_bits(got[k], want[k])) << k;
  // Columns of a row-major matrix: the strided entry.
  const matrix_view<double> a{v.data(), 4100, 3, 3};
  std::vector<double> columns(3);
  std::vector<double> expected(3);
  nrm2(a, 0, std::span<double>(columns), {.mode = mode::compensated, .backend = backend::cuda});
  nrm2(a, 0, std::span<double>(expected), {.mode = mode::compensated});
  for (std::size_t k = 0; k < columns.size(); ++k) EXPECT_TRUE(same_bits(columns[k], expected[k])) << k;
  EXPECT_EQ(test_backend::calls - before, 2);
}

TEST(BackendSeam, ATestBackendServesScans) {
  const std::vector<double> v = data(3 * 4100);
  const std::span<const double> x(v);
  const std::vector<std::uint64_t> offsets = {0, 1, 2049, 2049, 9000, v.size()};
  const test_backend_routed routed;
  const int before = test_backend::calls;
  int scans = 0;
  const auto same = [](const std::vector<double>& a, const std::vector<double>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
  };
  for (const mode m : {mode::tree, mode::compensated}) {
    const options on_test{.mode = m, .backend = backend::cuda};
    const options on_cpu{.mode = m, .backend = backend::cpu};
    std::vector<double> got(v.size());
    std::vector<double> want(v.size());
    cumsum(x, std::span<double>(got), on_test);
    cumsum(x, std::span<double>(want), on_cpu);
    EXPECT_TRUE(same(got, want)) << to_string(m);
    exclusive_cumsum(x, segments{offsets}, std::span<double>(got), on_test);
    exclusive_cumsum(x, segments{offsets}, std::span<double>(want), on_cpu);
    EXPECT_TRUE(same(got, want)) << to_string(m);
    // The columns of a row-major matrix: the outputs packed in its layout.
    const matrix_view<double> a{v.data(), 4100, 3, 3};
    cumsum(a, 0, std::span<double>(got), on_test);
    cumsum(a, 0, std::span<double>(want), on_cpu);
    EXPECT_TRUE(same(got, want)) << to_string(m);
    scans += 3;
  }
  const std::vector<std::int32_t> i(3000, -7);
  std::vector<std::int64_t> totals(i.size());
  cumsum(std::span<const std::int32_t>(i), std::span<std::int64_t>(totals), {.backend = backend::cuda});
  EXPECT_EQ(totals.back(), -21000);
  EXPECT_EQ(test_backend::calls - before, scans + 1);  // every call above reached the test backend
}

TEST(BackendSeam, TheLibrarysOwnBackendComesBack) {
  {
    const test_backend_routed routed;
    EXPECT_EQ(&seam_for(backend::cuda), &test_backend::seam());
  }
  EXPECT_NE(&seam_for(backend::cuda), &test_backend::seam());
  EXPECT_EQ(&seam_for(backend::automatic), &seam_for(backend::cpu));
}

}  // namespace
}  // namespace detred
