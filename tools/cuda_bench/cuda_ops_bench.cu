// SPDX-License-Identifier: BSD-3-Clause
// detred-cuda-ops-bench: each GPU operation other than the sum against its natural baseline on the same device
// buffers: cuBLAS for dot, nrm2 and asum, CUB for min and max, CUB Sum for stats and the integer sums (bytes per
// second). Each pair runs alternately, round after round, timed with CUDA events; the ratio is the median of the
// per-round time ratios. Every detred result is also checked bit for bit against the CPU.
//
//   detred-cuda-ops-bench [--log2-doubles 27] [--rounds 100] [--only stats,dot]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include <cublas_v2.h>
#include <cub/device/device_reduce.cuh>

#include "detred/detred.hpp"
#include "device_bench.cuh"
#include "run_record.hpp"

namespace {

using namespace detred::cuda_bench;

int rounds = 100;
bool all_bits_ok = true;
std::string only;  // comma-separated row names (the op column, e.g. "stats,dot tree"); empty: every row

/// The rows as data, when --json asks for them.
detred::bench::run_record* record = nullptr;

bool wanted(const char* op) {
  if (only.empty()) return true;
  const std::string list = "," + only + ",";
  return list.find("," + std::string(op) + ",") != std::string::npos;
}

/// Times ours and the baseline alternately; prints the row.
void row(const char* op, const char* type, int log_n, double bytes, const std::function<void()>& ours,
         const char* baseline_name, const std::function<void()>& baseline, double target, bool bits_ok,
         cudaStream_t s) {
  if (!wanted(op)) return;
  const paired_times t = time_paired(ours, baseline, rounds, s);
  const double mo = t.ours_us, mb = t.baseline_us, q = t.ratio;
  const char* verdict = target == 0 ? "(measured)" : (q >= target ? "PASS" : "MISS");
  std::printf("%-18s %-6s 2^%-3d %9.1f %8.0f  %-26s %9.1f %8.0f %7.3f  %-6s %-10s %s\n", op, type, log_n, mo,
              bytes / (mo * 1e-6) / 1e9, baseline_name, mb, bytes / (mb * 1e-6) / 1e9, q,
              target == 0 ? "" : (std::string(">=") + std::to_string(target).substr(0, 4)).c_str(), verdict,
              bits_ok ? "yes" : "NO");
  std::fflush(stdout);
  if (record != nullptr) {
    record->add({{"op", op},
                 {"type", type},
                 {"n", "2^" + std::to_string(log_n)},
                 {"us", mo},
                 {"gb_per_s", bytes / (mo * 1e-6) / 1e9},
                 {"baseline", baseline_name},
                 {"baseline_us", mb},
                 {"ratio", q},
                 {"target", target == 0 ? std::string() : ">= " + std::to_string(target).substr(0, 4)},
                 {"verdict", verdict},
                 {"bits_equal_cpu", bits_ok}});
  }
  all_bits_ok = all_bits_ok && bits_ok;
}

/// Runs an asynchronous reduction, copies its result (at `result`, on the device) back to pinned memory and waits:
/// what a synchronous call does after its kernels.
template <class T>
void fetched(const std::function<void()>& reduction, const T* result, cudaStream_t s) {
  static T* host = [] {
    void* p = nullptr;
    check(cudaMallocHost(&p, 64), "pinned");
    return static_cast<T*>(p);
  }();
  reduction();
  check(cudaMemcpyAsync(host, result, sizeof(T), cudaMemcpyDeviceToHost, s), "fetch");
  check(cudaStreamSynchronize(s), "sync");
}

template <class R>
bool same(const R& a, const R& b) {
  return std::memcmp(&a, &b, sizeof(R)) == 0;
}

void doubles(int log_n, cudaStream_t s, cublasHandle_t blas) {
  using T = double;
  const std::uint64_t n = std::uint64_t{1} << log_n;
  const int ni = static_cast<int>(n);
  T* x = device_data<T>(n, 1, s);
  T* y = device_data<T>(n, 2, s);
  T* out = nullptr;
  check(cudaMalloc(&out, 256), "out");
  const std::vector<T> hx = host_copy(x, n), hy = host_copy(y, n);
  detred::cuda::workspace ws;
  const detred::options on_s{.stream = s, .workspace = &ws};
  const std::span<const T> dx(x, n), dy(y, n), sx(hx), sy(hy);
  const double bytes = static_cast<double>(n * sizeof(T));
  using detred::mode;

  for (mode m : {mode::tree, mode::compensated}) {
    const bool tree = m == mode::tree;
    const detred::options o{.mode = m, .stream = s, .workspace = &ws};
    const std::string name = std::string("dot ") + detred::to_string(m);
    row(
        name.c_str(), "double", log_n, 2 * bytes, [&] { detred::cuda::dot_async(dx, dy, out, o); }, "cublasDdot",
        [&] { check(cublasDdot(blas, ni, x, 1, y, 1, out + 1), "ddot"); }, tree ? 0.95 : 0,
        same(detred::cuda::dot(dx, dy, o), detred::dot(sx, sy, {.mode = m})), s);
    const std::string nname = std::string("nrm2 ") + detred::to_string(m);
    row(
        nname.c_str(), "double", log_n, bytes, [&] { detred::cuda::nrm2_async(dx, out, o); }, "cublasDnrm2",
        [&] { check(cublasDnrm2(blas, ni, x, 1, out + 1), "dnrm2"); }, tree ? 1.0 : 0,
        same(detred::cuda::nrm2(dx, o), detred::nrm2(sx, {.mode = m})), s);
    const std::string aname = std::string("asum ") + detred::to_string(m);
    row(
        aname.c_str(), "double", log_n, bytes, [&] { detred::cuda::asum_async(dx, out, o); }, "cublasDasum",
        [&] { check(cublasDasum(blas, ni, x, 1, out + 1), "dasum"); }, 0,
        same(detred::cuda::asum(dx, o), detred::asum(sx, {.mode = m})), s);
  }

  cub_storage sum_tmp([&](void* p, std::size_t& b) { check(cub::DeviceReduce::Sum(p, b, x, out + 1, n, s), "sum"); });
  auto cub_sum = [&] { check(cub::DeviceReduce::Sum(sum_tmp.p, sum_tmp.bytes, x, out + 1, n, s), "cub sum"); };
  auto* stats_out = reinterpret_cast<detred::statistics<T>*>(out + 4);
  // The stats target is stated for 2^27 doubles, where both sides stream memory; at 2^16 (one block of the leaf pass
  // against CUB's single pass) it is measured only.
  row(
      "stats", "double", log_n, bytes, [&] { detred::cuda::stats_async(dx, stats_out, on_s); },
      "cub::DeviceReduce::Sum", cub_sum, log_n >= 27 ? 0.90 : 0, same(detred::cuda::stats(dx, on_s), detred::stats(sx)),
      s);

  cub_storage min_tmp([&](void* p, std::size_t& b) { check(cub::DeviceReduce::Min(p, b, x, out + 1, n, s), "min"); });
  cub_storage max_tmp([&](void* p, std::size_t& b) { check(cub::DeviceReduce::Max(p, b, x, out + 1, n, s), "max"); });
  // The synchronous min/max/argmin, measured here, wait for their result, so CUB's result is fetched and waited for
  // too.
  row(
      "min", "double", log_n, bytes, [&] { static_cast<void>(detred::cuda::min(dx, on_s)); }, "CUB Min + fetch",
      [&] {
        fetched([&] { check(cub::DeviceReduce::Min(min_tmp.p, min_tmp.bytes, x, out + 1, n, s), "cub min"); }, out + 1,
                s);
      },
      0.95, same(detred::cuda::min(dx, on_s), detred::min(sx)), s);
  row(
      "max", "double", log_n, bytes, [&] { static_cast<void>(detred::cuda::max(dx, on_s)); }, "CUB Max + fetch",
      [&] {
        fetched([&] { check(cub::DeviceReduce::Max(max_tmp.p, max_tmp.bytes, x, out + 1, n, s), "cub max"); }, out + 1,
                s);
      },
      0.95, same(detred::cuda::max(dx, on_s), detred::max(sx)), s);
  row(
      "argmin", "double", log_n, bytes, [&] { static_cast<void>(detred::cuda::argmin(dx, on_s)); }, "CUB Min + fetch",
      [&] {
        fetched([&] { check(cub::DeviceReduce::Min(min_tmp.p, min_tmp.bytes, x, out + 1, n, s), "cub min"); }, out + 1,
                s);
      },
      0, detred::cuda::argmin(dx, on_s) == detred::argmin(sx), s);

  // Integer sums: bytes per second against CUB's double sum of the same bytes. The synchronous integer sum, measured
  // here, waits for its result (to throw an overflow of the result type), so the baseline fetches its result and
  // waits too. The target is stated "at memory bandwidth": the large size only (2^16 is launch-bound).
  auto* xi = device_data<std::int64_t>(n, 3, s);
  const std::vector<std::int64_t> hxi = host_copy(xi, n);
  row(
      "int64 sum", "int64", log_n, bytes,
      [&] { static_cast<void>(detred::cuda::sum(std::span<const std::int64_t>(xi, n), on_s)); }, "CUB Sum f64 + fetch",
      [&] { fetched(cub_sum, out + 1, s); }, log_n >= 27 ? 0.95 : 0,
      detred::cuda::sum(std::span<const std::int64_t>(xi, n), on_s) == detred::sum(std::span<const std::int64_t>(hxi)),
      s);
  check(cudaFree(xi), "free");
  check(cudaFree(out), "free");
  check(cudaFree(y), "free");
  check(cudaFree(x), "free");
}

void floats(int log_n, cudaStream_t s, cublasHandle_t blas) {
  using T = float;
  const std::uint64_t n = std::uint64_t{1} << log_n;
  const int ni = static_cast<int>(n);
  T* x = device_data<T>(n, 4, s);
  T* y = device_data<T>(n, 5, s);
  T* out = nullptr;
  check(cudaMalloc(&out, 256), "out");
  const std::vector<T> hx = host_copy(x, n), hy = host_copy(y, n);
  detred::cuda::workspace ws;
  const detred::options on_s{.stream = s, .workspace = &ws};
  const std::span<const T> dx(x, n), dy(y, n), sx(hx), sy(hy);
  const double bytes = static_cast<double>(n * sizeof(T));
  row(
      "dot tree", "float", log_n, 2 * bytes, [&] { detred::cuda::dot_async(dx, dy, out, on_s); }, "cublasSdot",
      [&] { check(cublasSdot(blas, ni, x, 1, y, 1, out + 1), "sdot"); }, 0,
      same(detred::cuda::dot(dx, dy, on_s), detred::dot(sx, sy)), s);
  row(
      "nrm2 tree", "float", log_n, bytes, [&] { detred::cuda::nrm2_async(dx, out, on_s); }, "cublasSnrm2",
      [&] { check(cublasSnrm2(blas, ni, x, 1, out + 1), "snrm2"); }, 0,
      same(detred::cuda::nrm2(dx, on_s), detred::nrm2(sx)), s);
  cub_storage sum_tmp([&](void* p, std::size_t& b) { check(cub::DeviceReduce::Sum(p, b, x, out + 1, n, s), "sum"); });
  auto cub_sum = [&] { check(cub::DeviceReduce::Sum(sum_tmp.p, sum_tmp.bytes, x, out + 1, n, s), "cub sum"); };
  auto* stats_out = reinterpret_cast<detred::statistics<T>*>(out + 8);
  row(
      "stats", "float", log_n, bytes, [&] { detred::cuda::stats_async(dx, stats_out, on_s); }, "cub::DeviceReduce::Sum",
      cub_sum, 0, same(detred::cuda::stats(dx, on_s), detred::stats(sx)), s);
  auto* xi = device_data<std::int32_t>(n, 6, s);
  const std::vector<std::int32_t> hxi = host_copy(xi, n);
  row(
      "int32 sum", "int32", log_n, bytes,
      [&] { static_cast<void>(detred::cuda::sum(std::span<const std::int32_t>(xi, n), on_s)); }, "CUB Sum f32 + fetch",
      [&] { fetched(cub_sum, out + 1, s); }, log_n >= 27 ? 0.95 : 0,  // as for int64 above
      detred::cuda::sum(std::span<const std::int32_t>(xi, n), on_s) == detred::sum(std::span<const std::int32_t>(hxi)),
      s);
  check(cudaFree(xi), "free");
  check(cudaFree(out), "free");
  check(cudaFree(y), "free");
  check(cudaFree(x), "free");
}

}  // namespace

int main(int argc, char** argv) {
  int log2_doubles = 27;
  std::string json;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--json") == 0) json = argv[i + 1];
    if (std::strcmp(argv[i], "--log2-doubles") == 0) log2_doubles = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--rounds") == 0) rounds = std::max(1, std::atoi(argv[i + 1]));
    if (std::strcmp(argv[i], "--only") == 0) only = argv[i + 1];
  }
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  cudaStream_t s = nullptr;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream");
  cublasHandle_t blas = nullptr;
  check(cublasCreate(&blas), "cublasCreate");
  check(cublasSetStream(blas, s), "cublasSetStream");
  check(cublasSetPointerMode(blas, CUBLAS_POINTER_MODE_DEVICE), "cublasSetPointerMode");
  std::printf("detred-cuda-ops-bench on %s, CUDA events, median of %d alternating rounds\n", prop.name, rounds);
  detred::bench::run_record run("detred-cuda-ops-bench", argc, argv);
  if (!json.empty()) record = &run;
  std::printf("%-18s %-6s %-5s %9s %8s  %-26s %9s %8s %7s  %-6s %-10s %s\n", "op", "type", "n", "us", "GB/s",
              "baseline", "us", "GB/s", "ratio", "target", "verdict", "bits == CPU");
  for (int log_n : {16, log2_doubles}) doubles(log_n, s, blas);
  for (int log_n : {16, log2_doubles + 1}) floats(log_n, s, blas);
  cublasDestroy(blas);
  cudaStreamDestroy(s);
  if (!json.empty()) {
    run.set("device", std::string(prop.name));
    run.set("rounds", std::int64_t{rounds});
    if (!run.write(json)) return 2;
  }
  return all_bits_ok ? 0 : 1;
}
