// SPDX-License-Identifier: BSD-3-Clause
// detred-cuda-scan-bench: the GPU scans (detred::cuda::cumsum_async) against CUB on the same device buffers.
//
//   one array      against cub::DeviceScan::InclusiveSum of the same array: 2^28 floats and 2^27 doubles, target
//                  >= 0.80 x CUB's bandwidth (tree mode; compensated measured).
//   segments       against cub::DeviceScan::InclusiveSum of the whole array, unsegmented (CUB's scan bandwidth, the
//                  target: >= 0.70 x), and, for reference, cub::DeviceScan::InclusiveSumByKey with a segment number
//                  per element (CUB's segmented scan, which also reads the keys): 2^20 segments of 64 floats and
//                  2^12 segments of 2^16.
//
// Bandwidth counts the bytes read and written once (input and output; a segmented scan's offsets and CUB's keys
// are not counted). Each pair runs alternately, round after round, timed with CUDA events; the ratio is the median
// of the per-round time ratios. Every detred output is checked bit for bit against the CPU's detred::cumsum; the
// exit code is 1 if any differs, 0 otherwise (a MISS against a target does not change it).
//
//   detred-cuda-scan-bench [--rounds 50] [--only "f32,seg 2^20x64"]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include <cub/device/device_scan.cuh>

#include "detred/detred.hpp"
#include "device_bench.cuh"
#include "run_record.hpp"

namespace {

using namespace detred::cuda_bench;

int rounds = 50;
bool all_bits_ok = true;
std::string only;                             // comma-separated row names; empty: every row
detred::bench::run_record* record = nullptr;  // the rows as data, when --json asks for them

bool wanted(const std::string& name) {
  if (only.empty()) return true;
  const std::string list = "," + only + ",";
  return list.find("," + name + ",") != std::string::npos;
}

void row(const std::string& name, const char* type, double bytes, const std::function<void()>& ours,
         const char* baseline_name, const std::function<void()>& baseline, double target, bool bits_ok,
         cudaStream_t s) {
  const paired_times t = time_paired(ours, baseline, rounds, s);
  const char* verdict = target == 0 ? "(measured)" : (t.ratio >= target ? "PASS" : "FAIL");
  std::printf("%-22s %-7s %9.1f %8.0f  %-34s %9.1f %8.0f %7.3f  %-6s %-10s %s\n", name.c_str(), type, t.ours_us,
              bytes / (t.ours_us * 1e-6) / 1e9, baseline_name, t.baseline_us, bytes / (t.baseline_us * 1e-6) / 1e9,
              t.ratio, target == 0 ? "" : (std::string(">=") + std::to_string(target).substr(0, 4)).c_str(), verdict,
              bits_ok ? "yes" : "NO");
  std::fflush(stdout);
  if (record != nullptr) {
    record->add({{"row", name},
                 {"type", std::string(type)},
                 {"us", t.ours_us},
                 {"gb_per_s", bytes / (t.ours_us * 1e-6) / 1e9},
                 {"baseline", std::string(baseline_name)},
                 {"baseline_us", t.baseline_us},
                 {"ratio", t.ratio},
                 {"target", target == 0 ? std::string() : ">= " + std::to_string(target).substr(0, 4)},
                 {"verdict", std::string(verdict)},
                 {"bits_equal_cpu", bits_ok}});
  }
  all_bits_ok = all_bits_ok && bits_ok;
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

/// One array of 2^log_n elements of T: tree (target) and compensated (measured), inclusive.
template <class T>
void one_array(const char* type, int log_n, cudaStream_t s) {
  const std::string base = std::string(type) + " 2^" + std::to_string(log_n);
  if (!wanted(type) && !wanted(base)) return;
  const std::uint64_t n = std::uint64_t{1} << log_n;
  T* x = device_data<T>(n, 1, s);
  T* y = nullptr;
  T* cub_y = nullptr;
  check(cudaMalloc(&y, n * sizeof(T)), "cudaMalloc");
  check(cudaMalloc(&cub_y, n * sizeof(T)), "cudaMalloc");
  detred::cuda::workspace ws;
  const std::span<const T> dx(x, n);
  const std::span<T> dy(y, n);
  const std::vector<T> hx = host_copy(x, n);
  cub_storage tmp([&](void* p, std::size_t& b) { check(cub::DeviceScan::InclusiveSum(p, b, x, cub_y, n, s), "size"); });
  auto cub_scan = [&] { check(cub::DeviceScan::InclusiveSum(tmp.p, tmp.bytes, x, cub_y, n, s), "cub scan"); };
  const double bytes = 2.0 * static_cast<double>(n * sizeof(T));
  for (detred::mode m : {detred::mode::tree, detred::mode::compensated}) {
    const detred::options o{.mode = m, .stream = s, .workspace = &ws};
    detred::cuda::cumsum(dx, dy, o);
    std::vector<T> expected(n);
    detred::cumsum(std::span<const T>(hx), std::span<T>(expected), {.mode = m});
    const bool ok = same_bits(host_copy(y, n), expected);
    row(
        base + " " + detred::to_string(m), type, bytes, [&] { detred::cuda::cumsum_async(dx, dy, o); },
        "cub::DeviceScan::InclusiveSum", cub_scan, m == detred::mode::tree ? 0.80 : 0, ok, s);
  }
  check(cudaFree(x), "cudaFree");
  check(cudaFree(y), "cudaFree");
  check(cudaFree(cub_y), "cudaFree");
}

/// Segment number of every element (CUB's keys).
__global__ void segment_keys(std::uint32_t* keys, std::uint64_t n, std::uint64_t length) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    keys[i] = static_cast<std::uint32_t>(i / length);
  }
}

/// 2^log_count segments of 2^log_length floats, tree mode.
void segmented(int log_count, int log_length, cudaStream_t s) {
  using T = float;
  const std::string name = "seg 2^" + std::to_string(log_count) + "x2^" + std::to_string(log_length);
  if (!wanted("seg") && !wanted(name)) return;
  const std::uint64_t count = std::uint64_t{1} << log_count;
  const std::uint64_t length = std::uint64_t{1} << log_length;
  const std::uint64_t n = count * length;
  T* x = device_data<T>(n, 3, s);
  T* y = nullptr;
  T* cub_y = nullptr;
  std::uint64_t* offsets = nullptr;
  std::uint32_t* keys = nullptr;
  check(cudaMalloc(&y, n * sizeof(T)), "cudaMalloc");
  check(cudaMalloc(&cub_y, n * sizeof(T)), "cudaMalloc");
  check(cudaMalloc(&offsets, (count + 1) * sizeof(std::uint64_t)), "cudaMalloc");
  check(cudaMalloc(&keys, n * sizeof(std::uint32_t)), "cudaMalloc");
  std::vector<std::uint64_t> host_offsets(count + 1);
  for (std::uint64_t k = 0; k <= count; ++k) host_offsets[k] = k * length;
  check(cudaMemcpy(offsets, host_offsets.data(), (count + 1) * sizeof(std::uint64_t), cudaMemcpyHostToDevice),
        "offsets");
  segment_keys<<<1024, 256, 0, s>>>(keys, n, length);
  check(cudaStreamSynchronize(s), "keys");
  detred::cuda::workspace ws;
  const std::span<const T> dx(x, n);
  const std::span<T> dy(y, n);
  const detred::segments dseg{std::span<const std::uint64_t>(offsets, count + 1)};
  const std::vector<T> hx = host_copy(x, n);
  std::vector<T> expected(n);
  detred::cumsum(std::span<const T>(hx), detred::segments{host_offsets}, std::span<T>(expected));
  const detred::options on_s{.stream = s, .workspace = &ws};
  detred::cuda::cumsum(dx, dseg, dy, on_s);
  const bool ok = same_bits(host_copy(y, n), expected);
  auto ours = [&] { detred::cuda::cumsum_async(dx, dseg, dy, on_s); };
  const double bytes = 2.0 * static_cast<double>(n * sizeof(T));

  cub_storage tmp([&](void* p, std::size_t& b) { check(cub::DeviceScan::InclusiveSum(p, b, x, cub_y, n, s), "size"); });
  row(
      name, "float", bytes, ours, "cub::DeviceScan::InclusiveSum (whole)",
      [&] { check(cub::DeviceScan::InclusiveSum(tmp.p, tmp.bytes, x, cub_y, n, s), "cub scan"); }, 0.70, ok, s);
  cub_storage by_key([&](void* p, std::size_t& b) {
    check(cub::DeviceScan::InclusiveSumByKey(p, b, keys, x, cub_y, n, cuda::std::equal_to<>{}, s), "size");
  });
  row(
      name, "float", bytes, ours, "cub::DeviceScan::InclusiveSumByKey",
      [&] {
        check(cub::DeviceScan::InclusiveSumByKey(by_key.p, by_key.bytes, keys, x, cub_y, n, cuda::std::equal_to<>{}, s),
              "cub scan by key");
      },
      0, ok, s);
  check(cudaFree(x), "cudaFree");
  check(cudaFree(y), "cudaFree");
  check(cudaFree(cub_y), "cudaFree");
  check(cudaFree(offsets), "cudaFree");
  check(cudaFree(keys), "cudaFree");
}

}  // namespace

int main(int argc, char** argv) {
  std::string json;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--json") == 0) json = argv[i + 1];
    if (std::strcmp(argv[i], "--rounds") == 0) rounds = std::max(1, std::atoi(argv[i + 1]));
    if (std::strcmp(argv[i], "--only") == 0) only = argv[i + 1];
  }
  cudaStream_t s = nullptr;
  check(cudaStreamCreate(&s), "cudaStreamCreate");
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  std::printf("device: %s, %d rounds (median), bytes = input + output\n", prop.name, rounds);
  detred::bench::run_record run("detred-cuda-scan-bench", argc, argv);
  if (!json.empty()) record = &run;
  std::printf("%-22s %-7s %9s %8s  %-34s %9s %8s %7s  %-6s %-10s %s\n", "row", "type", "us", "GB/s", "baseline", "us",
              "GB/s", "ratio", "target", "verdict", "bits");
  one_array<float>("f32", 28, s);
  one_array<double>("f64", 27, s);
  segmented(20, 6, s);
  segmented(12, 16, s);
  check(cudaStreamDestroy(s), "cudaStreamDestroy");
  if (!json.empty()) {
    run.set("device", std::string(prop.name));
    run.set("rounds", std::int64_t{rounds});
    if (!run.write(json)) return 2;
  }
  return all_bits_ok ? 0 : 1;
}
