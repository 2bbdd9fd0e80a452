// SPDX-License-Identifier: BSD-3-Clause
// The public API: the documented call shapes compile and work, invalid arguments raise detred::error with a clear
// message, the order's constants and bounds are what the docs state, and 64-bit sizes work.
#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "detred/detred.hpp"
#include "paths.hpp"
#include "test_data.hpp"

namespace detred::testing {
namespace {

TEST(Api, DocumentedCallShape) {
  const std::vector<double> v = {1.0, 2.0, 3.0};
  const double* p = v.data();
  const std::size_t n = v.size();
  const double s = detred::sum(std::span<const double>(p, n), {.mode = detred::mode::compensated, .threads = 4});
  EXPECT_EQ(bits(s), bits(6.0));
  const std::vector<float> f = {0.5f, 0.25f};
  EXPECT_EQ(bits(detred::sum(f)), bits(0.75f));  // a vector converts to a span; default options
}

TEST(Api, UnknownModeIsRejectedWithItsValue) {
  const std::vector<double> v = {1.0};
  try {
    (void)detred::sum(v, {.mode = static_cast<detred::mode>(7)});
    FAIL() << "no exception";
  } catch (const detred::error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown mode 7"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)reference::sum(std::span<const double>(v), {.mode = static_cast<detred::mode>(-1)}),
               detred::error);
  EXPECT_THROW((void)detred::bound<double>(10, static_cast<detred::mode>(3)), detred::error);
}

TEST(Api, NegativeThreadsAreRejected) {
  const std::vector<float> v = {1.0f};
  try {
    (void)detred::sum(v, {.threads = -1});
    FAIL() << "no exception";
  } catch (const detred::error& e) {
    EXPECT_NE(std::string(e.what()).find("threads must be >= 0"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("-1"), std::string::npos) << e.what();
  }
}

TEST(Api, UnknownIsaAndBackendAreRejected) {
  const std::vector<double> v = {1.0};
  EXPECT_THROW((void)detred::sum(v, {.isa = static_cast<detred::isa>(9)}), detred::error);
  EXPECT_THROW((void)detred::sum(v, {.backend = static_cast<detred::backend>(9)}), detred::error);
}

// DETRED_ISA is read once per process, so each case runs in a fresh process (a "threadsafe" death test re-executes
// the test binary) and reports through its exit status.
TEST(Api, EnvironmentVariableForcesAnIsa) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const std::vector<double> v = {1.0, 2.0};
  EXPECT_EXIT(
      {
        setenv("DETRED_ISA", "baseline", 1);
        const bool forced = resolved_isa(isa::automatic) == isa::baseline;
        std::exit(forced && detred::sum(v) == 3.0 ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

// DETRED_ISA=neon is a known name everywhere: it runs the NEON lanes on aarch64 and is refused as unsupported
// elsewhere (not as an unknown name).
TEST(Api, EnvironmentVariableNamesNeon) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const std::vector<double> v = {1.0, 2.0};
  EXPECT_EXIT(
      {
        setenv("DETRED_ISA", "neon", 1);
        bool ok = false;
        try {
          ok = resolved_isa(isa::automatic) == isa::neon && detred::sum(v) == 3.0 && isa_supported(isa::neon);
        } catch (const detred::error& e) {
          ok = !isa_supported(isa::neon) &&
               std::string(e.what()).find("instruction set neon is not supported") != std::string::npos;
        }
        std::exit(ok ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

// NEON is mandatory on AArch64, so a build for it always has the NEON lanes; x86-64 builds never do.
TEST(Api, NeonExactlyOnAarch64) {
  EXPECT_STREQ(to_string(isa::neon), "neon");
#if defined(__aarch64__)
  EXPECT_TRUE(isa_supported(isa::neon));
  EXPECT_FALSE(isa_supported(isa::avx2));
  EXPECT_FALSE(isa_supported(isa::avx512));
  if (std::getenv("DETRED_ISA") == nullptr) {
    EXPECT_EQ(resolved_isa(isa::automatic), isa::neon);
  }
#else
  EXPECT_FALSE(isa_supported(isa::neon));
  const std::vector<double> v = {1.0};
  try {
    (void)detred::sum(v, {.isa = isa::neon});
    FAIL() << "no exception";
  } catch (const detred::error& e) {
    EXPECT_NE(std::string(e.what()).find("neon is not supported"), std::string::npos) << e.what();
  }
#endif
  EXPECT_TRUE(isa_supported(isa::baseline));
}

TEST(Api, EnvironmentVariableWithAnUnknownNameIsRejectedOnEveryCall) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const std::vector<double> v = {1.0};
  EXPECT_EXIT(
      {
        setenv("DETRED_ISA", "sse9", 1);
        int messages = 0;
        for (int call = 0; call < 2; ++call) {
          try {
            (void)detred::sum(v);
          } catch (const detred::error& e) {
            if (std::string(e.what()).find("DETRED_ISA=sse9") != std::string::npos) ++messages;
          }
        }
        std::exit(messages == 2 ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

// Without a usable GPU (no CUDA in the build, or no device), backend::cuda fails with a message instead of
// silently running on the CPU. tests/cuda covers the GPU itself.
TEST(Api, CudaBackendWithoutAGpuSaysWhy) {
  if (detred::cuda::available()) GTEST_SKIP() << "a CUDA device is present; tests/cuda covers it";
  const std::vector<double> v = {1.0};
  try {
    (void)detred::sum(v, {.backend = detred::backend::cuda});
    FAIL() << "no exception";
  } catch (const detred::error& e) {
    EXPECT_NE(std::string(e.what()).find("CUDA"), std::string::npos) << e.what();
  }
}

// Every name to_string gives parses back to its value; "auto" names automatic for isa and backend; anything else,
// including other spellings, is refused; names<E>() lists exactly what parses.
template <class E>
void expect_names_round_trip(std::initializer_list<E> all) {
  for (E value : all) {
    const std::optional<E> parsed = parse<E>(to_string(value));
    ASSERT_TRUE(parsed.has_value()) << to_string(value);
    EXPECT_EQ(*parsed, value);
    EXPECT_NE(names<E>().find(to_string(value)), std::string::npos) << names<E>();
  }
  EXPECT_FALSE(parse<E>("").has_value());
  EXPECT_FALSE(parse<E>("Tree").has_value());
  EXPECT_FALSE(parse<E>("cuda ").has_value());
}

TEST(Api, OptionNamesParseBackAndNothingElseDoes) {
  expect_names_round_trip({mode::tree, mode::compensated, mode::exact});
  expect_names_round_trip({isa::automatic, isa::baseline, isa::avx2, isa::avx512, isa::neon});
  expect_names_round_trip({backend::automatic, backend::cpu, backend::cuda});
  EXPECT_EQ(parse<isa>("auto"), isa::automatic);
  EXPECT_EQ(parse<backend>("auto"), backend::automatic);
  EXPECT_FALSE(parse<mode>("auto").has_value());
  EXPECT_EQ(names<mode>(), "tree, compensated or exact");
  EXPECT_EQ(names<backend>(), "automatic, cpu or cuda");
}

// supported_isas() lists the concrete instruction sets isa_supported() accepts, baseline first, and each gives the
// reference's bits.
TEST(Api, SupportedIsasAreTheConcreteOnesThisCpuRuns) {
  const std::vector<isa> supported = supported_isas();
  ASSERT_FALSE(supported.empty());
  EXPECT_EQ(supported.front(), isa::baseline);
  for (isa i : {isa::baseline, isa::avx2, isa::avx512, isa::neon}) {
    const bool listed = std::find(supported.begin(), supported.end(), i) != supported.end();
    EXPECT_EQ(listed, isa_supported(i)) << to_string(i);
  }
  EXPECT_EQ(std::find(supported.begin(), supported.end(), isa::automatic), supported.end());
}

// A device failure is a detred::error too, so callers that catch the base type keep working.
TEST(Api, DeviceErrorIsADetredError) {
  try {
    throw detred::device_error("CUDA cudaMalloc failed: cudaErrorMemoryAllocation");
  } catch (const detred::error& e) {
    EXPECT_STREQ(e.what(), "detred: CUDA cudaMalloc failed: cudaErrorMemoryAllocation");
  }
}

TEST(Api, ErrorsCarryThePrefix) {
  try {
    throw detred::error("x");
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "detred: x");
  }
}

// The constants of order version 2 (the shape of version 1) and the depth formula of docs/canonical-order.md, by hand.
TEST(Order, ConstantsAndDepth) {
  EXPECT_EQ(order_version, 2);
  EXPECT_EQ(order::lanes<double>, 64u);
  EXPECT_EQ(order::leaf_size<double>, 2048u);
  EXPECT_EQ(order::lanes<float>, 128u);
  EXPECT_EQ(order::leaf_size<float>, 4096u);
  EXPECT_EQ(order::depth<double>(0), 0);
  EXPECT_EQ(order::depth<double>(1), 0 + 6 + 0);
  EXPECT_EQ(order::depth<double>(64), 0 + 6 + 0);
  EXPECT_EQ(order::depth<double>(65), 1 + 6 + 0);
  EXPECT_EQ(order::depth<double>(2048), 31 + 6 + 0);
  EXPECT_EQ(order::depth<double>(2049), 31 + 6 + 1);
  EXPECT_EQ(order::depth<double>(1000), 15 + 6 + 0);         // ceil(1000/64) = 16
  EXPECT_EQ(order::depth<double>(1000000), 31 + 6 + 9);      // 489 leaves
  EXPECT_EQ(order::depth<double>(1000000000), 31 + 6 + 19);  // 488282 leaves
  EXPECT_EQ(order::depth<float>(1000), 7 + 7 + 0);           // ceil(1000/128) = 8
  EXPECT_EQ(order::depth<float>(1000000000), 31 + 7 + 18);   // 244141 leaves
  EXPECT_EQ(order::depth<double>(std::uint64_t{1} << 40), 31 + 6 + 29);
  EXPECT_EQ(order::correction_depth<double>(2049), 38 + 7);
}

TEST(Order, BoundFactors) {
  const error_bound tree = detred::bound<double>(1000, mode::tree);
  EXPECT_EQ(tree.depth, 21);
  EXPECT_EQ(tree.result_factor, 0.0);
  const double u = 0x1p-53;
  EXPECT_GE(tree.abs_sum_factor, 21 * u / (1 - 21 * u));
  EXPECT_LE(tree.abs_sum_factor, 21 * u / (1 - 21 * u) * (1 + 4 * u));
  const error_bound comp = detred::bound<float>(1000, mode::compensated);
  EXPECT_EQ(comp.result_factor, 0x1p-24);
  EXPECT_EQ(comp.depth, 14);
  EXPECT_EQ(comp.correction_depth, 14 + 7);
  EXPECT_GT(comp.abs_sum_factor, 0.0);
  EXPECT_LT(comp.abs_sum_factor, 1e-9);
  EXPECT_EQ(detred::bound<double>(0, mode::tree).abs_sum_factor, 0.0);
}

// n past 2^32: an anonymous mapping reads as zeros without using memory; a few pages are written, including ones
// past element 2^32, so a 32-bit index anywhere would lose or misplace them.
TEST(Api, SizesBeyondTwoToThe32) {
  using T = float;
  const std::uint64_t n = (std::uint64_t{1} << 32) + 4096 * 3 + 77;
  void* mem = mmap(nullptr, n * sizeof(T), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  ASSERT_NE(mem, MAP_FAILED);
  T* x = static_cast<T*>(mem);
  const std::uint64_t marks[] = {5,
                                 (std::uint64_t{1} << 31) + 3,
                                 (std::uint64_t{1} << 32) - 1,
                                 std::uint64_t{1} << 32,
                                 (std::uint64_t{1} << 32) + 4096,
                                 n - 1};
  T expected = 0;
  for (std::uint64_t k = 0; k < std::size(marks); ++k) {
    x[marks[k]] = static_cast<T>(k + 1);  // small integers: every order sums them exactly
    expected += static_cast<T>(k + 1);
  }
  const std::span<const T> all(x, n);
  for (mode m : {mode::tree, mode::compensated}) {
    const T one = detred::sum(all, {.mode = m, .threads = 1});
    const T two = detred::sum(all, {.mode = m, .threads = 2});
    EXPECT_EQ(bits(one), bits(expected)) << to_string(m);
    EXPECT_EQ(bits(two), bits(expected)) << to_string(m);
  }
  EXPECT_EQ(order::depth<float>(n), 31 + 7 + 21);
  munmap(mem, n * sizeof(T));
}

}  // namespace
}  // namespace detred::testing
