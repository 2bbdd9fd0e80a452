// SPDX-License-Identifier: BSD-3-Clause
// detred-cuda-batch-bench: the batched GPU reductions (the batched section of detred/cuda.hpp: segments, matrix
// axes, by key) against CUB and cuBLAS on the same device buffers, at the shapes of tools/bench/batch_shapes.hpp.
// Each pair runs alternately, round after round, timed with CUDA events; the ratio is the median of the per-round
// time ratios. For a sample of batch members, every result is also checked bit for bit against detred::cuda::sum of
// that member alone. docs/benchmarks.md explains the table.
//
//   detred-cuda-batch-bench [--rounds 100] [--shrink K] [--only segmented,ragged,columns,rows,by_key]
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include <cublas_v2.h>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cuda/std/functional>

#include "batch_shapes.hpp"
#include "detred/cuda.hpp"
#include "device_bench.cuh"
#include "run_record.hpp"

namespace {

using namespace detred::cuda_bench;
using namespace detred::bench::batch;

struct settings {
  int rounds = 100;
  int shrink = 0;
  std::vector<std::string> only;
  std::string json;  ///< --json FILE: the rows as data
};

/// The rows as data, when --json asks for them.
detred::bench::run_record* record = nullptr;

bool wanted(const settings& o, const std::string& group) {
  return o.only.empty() || std::find(o.only.begin(), o.only.end(), group) != o.only.end();
}

settings parse(int argc, char** argv) {
  settings o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 < argc && a == "--rounds") {
      o.rounds = std::max(1, std::atoi(argv[++i]));
    } else if (i + 1 < argc && a == "--shrink") {
      o.shrink = std::clamp(std::atoi(argv[++i]), 0, 12);
    } else if (i + 1 < argc && a == "--json") {
      o.json = argv[++i];
    } else if (i + 1 < argc && a == "--only") {
      std::stringstream in(argv[++i]);
      for (std::string item; std::getline(in, item, ',');) o.only.push_back(item);
    } else {
      std::fprintf(stderr,
                   "usage: detred-cuda-batch-bench [--rounds 100] [--shrink K: sizes / 2^K] "
                   "[--only segmented,ragged,columns,rows,by_key] [--json FILE]\n");
      std::exit(a == "--help" ? 0 : 2);
    }
  }
  return o;
}

/// Device memory for one group of rows, freed when the group is done (the inputs are up to 1 GiB each).
template <class T>
struct device_array {
  T* p = nullptr;
  explicit device_array(std::uint64_t n) { check(cudaMalloc(&p, std::max<std::uint64_t>(n, 1) * sizeof(T)), "alloc"); }
  ~device_array() { cudaFree(p); }
  device_array(const device_array&) = delete;
  device_array& operator=(const device_array&) = delete;
};

__global__ void constant(float* x, std::uint64_t n, float value) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    x[i] = value;
  }
}

/// Keys below `bins`: floor(u * bins) (uniform) or floor(u^4 * bins) (skewed: bin 0 gets 1/16 of the values), u in
/// [0, 1) from a hash of the index.
__global__ void make_keys(std::uint32_t* keys, std::uint64_t n, std::uint32_t bins, bool skewed) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    const double u = static_cast<double>(mix(i + 0x5851f42d4c957f2dULL) >> 11) * 0x1.0p-53;
    keys[i] = static_cast<std::uint32_t>((skewed ? (u * u) * (u * u) : u) * bins);
  }
}

/// Baseline (a) of sum_by_key: one thread per value, one atomicAdd each (bins zeroed before).
__global__ void atomic_scatter(const float* values, const std::uint32_t* keys, std::uint64_t n, float* bins) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i < n) atomicAdd(&bins[keys[i]], values[i]);
}

/// The last step of baseline (b): ReduceByKey's runs (one per bin present) into the dense bins (zeroed before).
__global__ void runs_to_bins(const std::uint32_t* unique, const float* sums, const std::int64_t* runs, float* bins) {
  const std::uint64_t k = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (k < static_cast<std::uint64_t>(*runs)) bins[unique[k]] = sums[k];
}

unsigned blocks_for(std::uint64_t n) { return static_cast<unsigned>((n + 255) / 256); }

bool all_bits_ok = true;

/// Times ours against the baseline and prints the row. bytes: the float values one call reads.
void row(const settings& o, const std::string& op, const std::string& shape, double bytes,
         const std::function<void()>& ours, const char* baseline_name, const std::function<void()>& baseline,
         double target, const std::string& bits, cudaStream_t s) {
  const paired_times t = time_paired(ours, baseline, o.rounds, s);
  const std::string target_text = target == 0 ? "" : ">=" + std::to_string(target).substr(0, 4);
  const char* verdict = target == 0 ? "(measured)" : (t.ratio >= target ? "PASS" : "MISS");
  std::printf("%-20s %-14s %9.1f %8.0f  %-36s %9.1f %8.0f %7.3f  %-6s %-10s %s\n", op.c_str(), shape.c_str(), t.ours_us,
              bytes / (t.ours_us * 1e-6) / 1e9, baseline_name, t.baseline_us, bytes / (t.baseline_us * 1e-6) / 1e9,
              t.ratio, target_text.c_str(), verdict, bits.c_str());
  std::fflush(stdout);
  if (record != nullptr) {
    record->add({{"op", op},
                 {"shape", shape},
                 {"us", t.ours_us},
                 {"gb_per_s", bytes / (t.ours_us * 1e-6) / 1e9},
                 {"baseline", baseline_name},
                 {"baseline_us", t.baseline_us},
                 {"ratio", t.ratio},
                 {"target", target_text},
                 {"verdict", verdict},
                 {"bits", bits}});
  }
  all_bits_ok = all_bits_ok && bits == "same bits";
}

/// "same bits" if every sampled result (device memory, ready once the stream is) has the bits of single(k),
/// detred::cuda::sum of batch member k alone: the guarantee of the batched API.
std::string bits_vs_single(const float* results, std::uint64_t count, cudaStream_t s,
                           const std::function<float(std::uint64_t)>& single) {
  check(cudaStreamSynchronize(s), "batched call");
  const std::vector<float> got = host_copy(results, count);
  for (std::uint64_t k : sample(count)) {
    if (std::bit_cast<std::uint32_t>(got[k]) != std::bit_cast<std::uint32_t>(single(k))) {
      return "DIFFERENT (member " + std::to_string(k) + ")";
    }
  }
  return "same bits";
}

/// The rows of one batch of segments (host_offsets, CSR): ours against the fastest plain sum of the same bytes (the
/// bytes-per-second reference; `target` on it, 0 for none) and CUB's own segmented sum.
void segment_rows(const settings& o, const std::string& shape, const std::vector<std::uint64_t>& host_offsets,
                  double target, cudaStream_t s) {
  const std::uint64_t count = host_offsets.size() - 1;
  const std::uint64_t n = host_offsets.back();
  device_array<float> x(n), ours(count), base(count);
  device_array<std::uint64_t> offsets(count + 1);
  fill<float><<<1024, 256, 0, s>>>(x.p, n, 1);
  check(cudaMemcpy(offsets.p, host_offsets.data(), (count + 1) * sizeof(std::uint64_t), cudaMemcpyHostToDevice),
        "offsets");
  check(cudaStreamSynchronize(s), "fill");
  detred::cuda::workspace ws;
  const detred::options on_s{.stream = s, .workspace = &ws};
  const std::span<const float> values(x.p, n);
  const detred::segments segs{std::span<const std::uint64_t>(offsets.p, count + 1)};
  const auto call = [&] { detred::cuda::sum_async(values, segs, std::span<float>(ours.p, count), on_s); };
  call();
  const std::string bits = bits_vs_single(ours.p, count, s, [&](std::uint64_t k) {
    return detred::cuda::sum(values.subspan(host_offsets[k], host_offsets[k + 1] - host_offsets[k]), on_s);
  });
  cub_storage sum_tmp([&](void* p, std::size_t& b) {
    check(cub::DeviceReduce::Sum(p, b, x.p, base.p, static_cast<std::int64_t>(n), s), "sum");
  });
  cub_storage seg_tmp([&](void* p, std::size_t& b) {
    check(cub::DeviceSegmentedReduce::Sum(p, b, x.p, base.p, static_cast<std::int64_t>(count), offsets.p, offsets.p + 1,
                                          s),
          "segmented sum");
  });
  const double bytes = static_cast<double>(n * sizeof(float));
  row(
      o, "segmented sum", shape, bytes, call, "cub::DeviceReduce::Sum (all values)",
      [&] {
        check(cub::DeviceReduce::Sum(sum_tmp.p, sum_tmp.bytes, x.p, base.p, static_cast<std::int64_t>(n), s),
              "cub sum");
      },
      target, bits, s);
  row(
      o, "segmented sum", shape, bytes, call, "cub::DeviceSegmentedReduce::Sum",
      [&] {
        check(cub::DeviceSegmentedReduce::Sum(seg_tmp.p, seg_tmp.bytes, x.p, base.p, static_cast<std::int64_t>(count),
                                              offsets.p, offsets.p + 1, s),
              "cub segmented sum");
      },
      0, bits, s);
}

/// Segments of one length at each shape of segment_shapes (the targets).
void segmented(const settings& o, cudaStream_t s) {
  for (const auto [log_count, log_length] : segment_shapes(o.shrink)) {
    const std::uint64_t count = std::uint64_t{1} << log_count, length = std::uint64_t{1} << log_length;
    std::vector<std::uint64_t> offsets(count + 1);
    for (std::uint64_t k = 0; k <= count; ++k) offsets[k] = k * length;
    segment_rows(o, pow2(log_count) + " x " + pow2(log_length), offsets, 0.85, s);
  }
}

/// Segments of random lengths 0..127 (batch_shapes.hpp; three in four start off a 16-byte boundary, so they take the
/// element loads): what a ragged array looks like. Measured, no target.
void ragged_segments(const settings& o, cudaStream_t s) {
  const std::vector<std::uint64_t> offsets = ragged_offsets(o.shrink);
  segment_rows(o, pow2(std::countr_zero(offsets.size() - 1)) + " x 0..127", offsets, 0, s);
}

/// Column sums (axis 0) against cublasSgemv with a vector of ones, and row sums (axis 1) against the transposed
/// product. cuBLAS is column-major: the row-major r x c matrix is its c x r matrix A^T, so A^T * ones is
/// CUBLAS_OP_N and A * ones is CUBLAS_OP_T.
void matrix(const settings& o, cudaStream_t s, cublasHandle_t blas) {
  const bool columns = wanted(o, "columns"), rows = wanted(o, "rows");
  if (!columns && !rows) return;
  const auto [log_r, log_c] = matrix_shape_for(o.shrink);
  const std::uint64_t r = std::uint64_t{1} << log_r, c = std::uint64_t{1} << log_c;
  const int ri = static_cast<int>(r), ci = static_cast<int>(c);
  device_array<float> a(r * c), ones(std::max(r, c)), ours(std::max(r, c)), base(std::max(r, c)), column(r);
  fill<float><<<1024, 256, 0, s>>>(a.p, r * c, 2);
  constant<<<1024, 256, 0, s>>>(ones.p, std::max(r, c), 1.0f);
  check(cudaStreamSynchronize(s), "fill");
  detred::cuda::workspace ws;
  const detred::options on_s{.stream = s, .workspace = &ws};
  const detred::matrix_view<float> view{.data = a.p, .rows = r, .cols = c, .leading_dimension = c};
  const std::string shape = pow2(log_r) + " x " + pow2(log_c);
  const double bytes = static_cast<double>(r * c * sizeof(float));
  const float one = 1, zero = 0;
  if (columns) {
    const auto call = [&] { detred::cuda::sum_async(view, 0, std::span<float>(ours.p, c), on_s); };
    call();
    // Column j gathered into a contiguous array, then summed alone.
    const std::string bits = bits_vs_single(ours.p, c, s, [&](std::uint64_t j) {
      check(cudaMemcpy2DAsync(column.p, sizeof(float), a.p + j, c * sizeof(float), sizeof(float), r,
                              cudaMemcpyDeviceToDevice, s),
            "gather column");
      return detred::cuda::sum(std::span<const float>(column.p, r), on_s);
    });
    row(
        o, "column sums (axis 0)", shape, bytes, call, "cublasSgemv N, x = ones",
        [&] { check(cublasSgemv(blas, CUBLAS_OP_N, ci, ri, &one, a.p, ci, ones.p, 1, &zero, base.p, 1), "sgemv"); },
        0.90, bits, s);
  }
  if (rows) {
    const auto call = [&] { detred::cuda::sum_async(view, 1, std::span<float>(ours.p, r), on_s); };
    call();
    const std::string bits = bits_vs_single(
        ours.p, r, s, [&](std::uint64_t i) { return detred::cuda::sum(std::span<const float>(a.p + i * c, c), on_s); });
    row(
        o, "row sums (axis 1)", shape, bytes, call, "cublasSgemv T, x = ones",
        [&] { check(cublasSgemv(blas, CUBLAS_OP_T, ci, ri, &one, a.p, ci, ones.p, 1, &zero, base.p, 1), "sgemv"); }, 0,
        bits, s);
  }
}

/// sum_by_key against (a) a plain atomicAdd scatter and (b) CUB: radix sort of the (key, value) pairs on the key's
/// bits, ReduceByKey, and the runs written into the dense bins. ours is synchronous (it checks the keys and reports
/// a bad one on the host); the events time it all the same.
void by_key(const settings& o, cudaStream_t s) {
  const key_shape shape = key_shape_for(o.shrink);
  const std::uint64_t n = std::uint64_t{1} << shape.log_n, bins = std::uint64_t{1} << shape.log_bins;
  const int end_bit = shape.log_bins;  // the radix sort looks at the bits keys below `bins` can have, no more
  const auto ni = static_cast<std::int64_t>(n);
  device_array<float> v(n), ours(bins), base(bins), sorted_values(n), run_sums(bins), group(n);
  device_array<std::uint32_t> keys(n), sorted_keys(n), unique(bins);
  device_array<std::int64_t> runs(1);
  fill<float><<<1024, 256, 0, s>>>(v.p, n, 4);
  detred::cuda::workspace ws;
  const detred::options on_s{.stream = s, .workspace = &ws};
  const std::span<const float> values(v.p, n);
  const std::span<const std::uint32_t> key_span(keys.p, n);

  cub_storage sort_tmp([&](void* p, std::size_t& b) {
    check(cub::DeviceRadixSort::SortPairs(p, b, keys.p, sorted_keys.p, v.p, sorted_values.p, ni, 0, end_bit, s),
          "sort");
  });
  cub_storage rbk_tmp([&](void* p, std::size_t& b) {
    check(cub::DeviceReduce::ReduceByKey(p, b, sorted_keys.p, unique.p, sorted_values.p, run_sums.p, runs.p,
                                         ::cuda::std::plus<>{}, ni, s),
          "reduce by key");
  });
  const auto atomics = [&] {
    check(cudaMemsetAsync(base.p, 0, bins * sizeof(float), s), "memset");
    atomic_scatter<<<blocks_for(n), 256, 0, s>>>(v.p, keys.p, n, base.p);
  };
  const auto sort_reduce = [&] {
    check(cudaMemsetAsync(base.p, 0, bins * sizeof(float), s), "memset");
    check(cub::DeviceRadixSort::SortPairs(sort_tmp.p, sort_tmp.bytes, keys.p, sorted_keys.p, v.p, sorted_values.p, ni,
                                          0, end_bit, s),
          "cub sort");
    check(cub::DeviceReduce::ReduceByKey(rbk_tmp.p, rbk_tmp.bytes, sorted_keys.p, unique.p, sorted_values.p, run_sums.p,
                                         runs.p, ::cuda::std::plus<>{}, ni, s),
          "cub reduce by key");
    runs_to_bins<<<blocks_for(bins), 256, 0, s>>>(unique.p, run_sums.p, runs.p, base.p);
  };

  for (const bool skewed : {false, true}) {
    make_keys<<<1024, 256, 0, s>>>(keys.p, n, static_cast<std::uint32_t>(bins), skewed);
    check(cudaStreamSynchronize(s), "keys");
    const auto call = [&] { detred::cuda::sum_by_key(values, key_span, std::span<float>(ours.p, bins), on_s); };
    call();
    // The sampled bins' values in index order, gathered on the host in one pass, each summed alone on the device.
    const std::vector<float> hv = host_copy(v.p, n);
    const std::vector<std::uint32_t> hk = host_copy(keys.p, n);
    std::map<std::uint64_t, std::vector<float>> groups;
    for (std::uint64_t b : sample(bins)) groups[b];
    for (std::uint64_t i = 0; i < n; ++i) {
      if (const auto g = groups.find(hk[i]); g != groups.end()) g->second.push_back(hv[i]);
    }
    const std::string bits = bits_vs_single(ours.p, bins, s, [&](std::uint64_t b) {
      const std::vector<float>& g = groups.at(b);
      check(cudaMemcpy(group.p, g.data(), g.size() * sizeof(float), cudaMemcpyHostToDevice), "group");
      return detred::cuda::sum(std::span<const float>(group.p, g.size()), on_s);
    });
    const std::string op = skewed ? "sum_by_key skewed" : "sum_by_key uniform";
    const std::string size = pow2(shape.log_n) + " -> " + pow2(shape.log_bins);
    const double bytes = static_cast<double>(n * sizeof(float));
    row(o, op, size, bytes, call, "atomicAdd scatter", atomics, skewed ? 1.0 : 0.5, bits, s);
    row(o, op, size, bytes, call, "CUB SortPairs + ReduceByKey", sort_reduce, 1.0, bits, s);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const settings o = parse(argc, argv);
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  cudaStream_t s = nullptr;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream");
  cublasHandle_t blas = nullptr;
  check(cublasCreate(&blas), "cublasCreate");
  check(cublasSetStream(blas, s), "cublasSetStream");
  std::printf("detred-cuda-batch-bench on %s, CUDA events, median of %d alternating rounds, sizes / 2^%d\n", prop.name,
              o.rounds, o.shrink);
  std::printf("GB/s: bytes of float values read per call (offsets, keys and results not counted)\n");
  detred::bench::run_record run("detred-cuda-batch-bench", argc, argv);
  if (!o.json.empty()) record = &run;
  std::printf("%-20s %-14s %9s %8s  %-36s %9s %8s %7s  %-6s %-10s %s\n", "op", "shape", "us", "GB/s", "baseline", "us",
              "GB/s", "ratio", "target", "verdict", "bits (sample vs single sum)");
  if (wanted(o, "segmented")) segmented(o, s);
  if (wanted(o, "ragged")) ragged_segments(o, s);
  matrix(o, s, blas);
  if (wanted(o, "by_key")) by_key(o, s);
  cublasDestroy(blas);
  cudaStreamDestroy(s);
  if (!o.json.empty()) {
    run.set("device", std::string(prop.name));
    run.set("rounds", std::int64_t{o.rounds});
    run.set("shrink", std::int64_t{o.shrink});
    if (!run.write(o.json)) return 2;
  }
  return all_bits_ok ? 0 : 1;
}
