// SPDX-License-Identifier: BSD-3-Clause
// detred-nccl-check: the bit-identity test of detred::nccl on every visible GPU (a rank each, one process). Every
// result is compared, bit for bit, with the CPU: element i must be detred::sum of the ranks' values of element i in
// rank order (the bits of detred::mpi::allreduce_sum, whose own test checks it against the same single-array sums),
// 16-bit results that sum rounded once. Cases: float64, float32, float16 and bfloat16 in tree, compensated and exact
// mode, with signed zeros, subnormals, infinities, NaN payloads and overflowing sums among the values; a whole vector,
// through a plan, in place, misaligned, cut into buckets of three sizes; reduce-scatter; the integer types and an
// integer overflow; and the errors every rank must raise (lengths, types, a wrong out length). tools/nccl_bench/
// run_on_gpu.sh runs it under every NCCL_ALGO x NCCL_PROTO and compares the printed digests across the runs.
// Exits 0 when every check passes, 1 on the first failure, 77 without a GPU.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <cuda_runtime_api.h>

#include "detred/nccl.hpp"
#include "detred/number_types.hpp"
#include "detred/sum.hpp"
#include "ranks.hpp"

namespace {

using detred::bfloat16;
using detred::float16;
using detred::to_bfloat16;
using detred::to_float16;
using detred_nccl_tools::cuda_ok;
using detred_nccl_tools::rank;
using detred_nccl_tools::ranks;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "FAILED: %s\n", what.c_str());
  std::exit(1);
}

// ---- Values: many magnitudes and both signs, so that the order of a sum shows in its bits.

std::uint64_t mix(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

double value(int r, std::uint64_t i, unsigned salt, int exponent_range) {
  const std::uint64_t h = mix(mix(i * 64 + static_cast<std::uint64_t>(r)) + salt);
  const double mantissa = static_cast<double>(h >> 11) * 0x1p-53;  // [0, 1)
  const int exponent = static_cast<int>((h >> 3) % static_cast<std::uint64_t>(2 * exponent_range + 1)) - exponent_range;
  return ((h & 1) != 0 ? -1.0 : 1.0) * std::ldexp(0.5 + mantissa, exponent);
}

/// Special value k (0..7) of a floating type: +-0, the smallest subnormal, +-Inf, a NaN with a payload, +-the largest
/// finite value (two of which overflow a sum).
template <class T>
T special(unsigned k) {
  if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
    constexpr bool h = std::is_same_v<T, float16>;
    const std::uint16_t bits[] = {0x0000,
                                  0x8000,
                                  0x0001,
                                  h ? 0x7c00 : 0x7f80,
                                  h ? 0xfc00 : 0xff80,
                                  h ? 0x7e05 : 0x7fc5,
                                  h ? 0x7bff : 0x7f7f,
                                  h ? 0xfbff : 0xff7f};
    return static_cast<T>(bits[k]);
  } else {
    using U = std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>;
    const T nan = std::bit_cast<T>(static_cast<U>(std::bit_cast<U>(std::numeric_limits<T>::quiet_NaN()) | 5u));
    const T values[] = {T(0),
                        -T(0),
                        std::numeric_limits<T>::denorm_min(),
                        std::numeric_limits<T>::infinity(),
                        -std::numeric_limits<T>::infinity(),
                        nan,
                        std::numeric_limits<T>::max(),
                        -std::numeric_limits<T>::max()};
    return values[k];
  }
}

template <class T>
T from_double(double d) {
  if constexpr (std::is_same_v<T, float16>) {
    return to_float16(static_cast<float>(d));
  } else if constexpr (std::is_same_v<T, bfloat16>) {
    return to_bfloat16(static_cast<float>(d));
  } else if constexpr (std::is_signed_v<T> && std::is_integral_v<T>) {
    return static_cast<T>(std::llround(d * 1e6));  // int32: modular, as any fixed values would do
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(std::llround(std::fabs(d) * 1e6));  // no sum of a few of these overflows uint64
  } else {
    return static_cast<T>(d);
  }
}

template <class T>
using result_of = decltype(detred::sum(std::span<const T>()));

template <class T>
using out_of =
    std::conditional_t<std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>, T, std::remove_cvref_t<result_of<T>>>;

template <class T>
const char* name_of() {
  if constexpr (std::is_same_v<T, double>) {
    return "float64";
  } else if constexpr (std::is_same_v<T, float>) {
    return "float32";
  } else if constexpr (std::is_same_v<T, float16>) {
    return "float16";
  } else if constexpr (std::is_same_v<T, bfloat16>) {
    return "bfloat16";
  } else if constexpr (std::is_same_v<T, std::int32_t>) {
    return "int32";
  } else if constexpr (std::is_same_v<T, std::int64_t>) {
    return "int64";
  } else if constexpr (std::is_same_v<T, std::uint32_t>) {
    return "uint32";
  } else {
    return "uint64";
  }
}

/// The CPU's answer: element i = detred::sum of the R values of element i in rank order (16-bit: rounded once).
template <class T>
std::vector<out_of<T>> expected(const std::vector<std::vector<T>>& x, detred::mode m) {
  const std::size_t n = x.front().size();
  std::vector<out_of<T>> out(n);
  std::vector<T> column(x.size());
  detred::options opt;
  opt.mode = m;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t q = 0; q < x.size(); ++q) column[q] = x[q][i];
    const auto s = detred::sum(std::span<const T>(column), opt);
    if constexpr (std::is_same_v<T, float16>) {
      out[i] = to_float16(s);  // the library's one rounding (detred/number_types.hpp)
    } else if constexpr (std::is_same_v<T, bfloat16>) {
      out[i] = to_bfloat16(s);
    } else {
      out[i] = s;
    }
  }
  return out;
}

std::uint64_t fnv1a(const void* data, std::size_t bytes) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (std::size_t k = 0; k < bytes; ++k) h = (h ^ static_cast<const unsigned char*>(data)[k]) * 0x100000001b3ull;
  return h;
}

template <class T>
struct device_buffer {
  T* data = nullptr;
  explicit device_buffer(std::size_t n) { cuda_ok(cudaMalloc(&data, (n + 1) * sizeof(T)), "cudaMalloc"); }
  ~device_buffer() { cudaFree(data); }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
};

template <class T>
std::vector<T> download(const T* d, std::size_t n, cudaStream_t stream) {
  std::vector<T> h(n);
  cuda_ok(cudaMemcpyAsync(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync");
  cuda_ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  return h;
}

template <class T, class O>
void call_allreduce(std::span<const T> x, std::span<O> out, rank& k, detred::mode m) {
  if constexpr (std::is_integral_v<T>) {
    detred::nccl::allreduce_sum(x, out, k.comm, *k.ws, k.stream);
  } else {
    detred::nccl::allreduce_sum(x, out, k.comm, *k.ws, m, k.stream);
  }
}

template <class T, class O>
void call_reduce_scatter(std::span<const T> x, std::span<O> out, rank& k, detred::mode m) {
  if constexpr (std::is_integral_v<T>) {
    detred::nccl::reduce_scatter_sum(x, out, k.comm, *k.ws, k.stream);
  } else {
    detred::nccl::reduce_scatter_sum(x, out, k.comm, *k.ws, m, k.stream);
  }
}

template <class O>
void compare(const std::vector<O>& got, const O* want, const std::string& what) {
  if (std::memcmp(got.data(), want, got.size() * sizeof(O)) != 0) {
    std::size_t i = 0;
    while (std::memcmp(&got[i], &want[i], sizeof(O)) == 0) ++i;
    fail(what + ": element " + std::to_string(i) + " differs from the CPU's detred::sum over the ranks");
  }
}

/// Every case of one element type and mode; prints the digest of the whole vector's result.
template <class T>
void check_type(ranks& all, detred::mode m, std::size_t n) {
  using O = out_of<T>;
  const int count = all.count();
  const int range = std::is_same_v<T, float16> ? 6 : 20;
  std::vector<std::vector<T>> x(count, std::vector<T>(n));
  for (int q = 0; q < count; ++q) {
    for (std::size_t i = 0; i < n; ++i) x[q][i] = from_double<T>(value(q, i, 1, range));
  }
  if constexpr (!std::is_integral_v<T>) {
    // About one element in 61 takes special values on some ranks: signed zeros, subnormals, infinities, NaN
    // payloads and overflow, each element's sum through the same rules as the CPU's.
    for (std::size_t i = 0; i < n; ++i) {
      if (mix(i ^ 0x5bd1e995u) % 61 != 0) continue;
      for (int q = 0; q < count; ++q) {
        const std::uint64_t h = mix(i * 131 + static_cast<std::uint64_t>(q));
        if (h % 3 != 0) x[q][i] = special<T>(static_cast<unsigned>((h >> 8) % 8));
      }
    }
  }
  const std::vector<O> want = expected(x, m);
  const std::string label = std::string(name_of<T>()) + " " + detred::to_string(m);
  // Buckets of three sizes (the last of each cut shorter), so that shards, tails and message sizes all change.
  const std::size_t buckets[] = {4099, 65543, 1u << 19};

  all.run([&](rank& k) {
    device_buffer<T> dx(n);
    device_buffer<O> dout(n);
    device_buffer<T> shifted(n + 1);
    cuda_ok(cudaMemcpy(dx.data, x[k.index].data(), n * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");

    call_allreduce(std::span<const T>(dx.data, n), std::span<O>(dout.data, n), k, m);
    const std::vector<O> whole = download(dout.data, n, k.stream);
    compare(whole, want.data(), label + " allreduce");
    if (k.index == 0)
      std::printf("digest %s allreduce %016llx\n", label.c_str(),
                  (unsigned long long)fnv1a(whole.data(), n * sizeof(O)));

    // A plan agreed once, then called: the same bits, twice.
    const detred::nccl::plan<T> planned(detred::nccl::collective::allreduce, n, k.comm, *k.ws, m, k.stream);
    for (int repeat = 0; repeat < 2; ++repeat) {
      cuda_ok(cudaMemsetAsync(dout.data, 0, n * sizeof(O), k.stream), "cudaMemsetAsync");
      planned(dx.data, dout.data, k.stream);
      compare(download(dout.data, n, k.stream), want.data(), label + " allreduce plan");
    }

    for (std::size_t bucket : buckets) {
      for (std::size_t at = 0; at < n; at += bucket) {
        const std::size_t len = std::min(bucket, n - at);
        call_allreduce(std::span<const T>(dx.data + at, len), std::span<O>(dout.data + at, len), k, m);
      }
      compare(download(dout.data, n, k.stream), want.data(), label + " in buckets of " + std::to_string(bucket));
    }

    // Misaligned by one element, and in place (where input and output have one type).
    cuda_ok(cudaMemcpy(shifted.data + 1, x[k.index].data(), n * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");
    if constexpr (std::is_same_v<T, O>) {
      call_allreduce(std::span<const T>(shifted.data + 1, n), std::span<O>(shifted.data + 1, n), k, m);
      compare(download(shifted.data + 1, n, k.stream), want.data(), label + " in place, misaligned");
    } else {
      call_allreduce(std::span<const T>(shifted.data + 1, n), std::span<O>(dout.data, n), k, m);
      compare(download(dout.data, n, k.stream), want.data(), label + " misaligned");
    }

    // Reduce-scatter of the first count * c elements: rank r gets elements [r c, (r + 1) c).
    const std::size_t c = n / static_cast<std::size_t>(count);
    call_reduce_scatter(std::span<const T>(dx.data, c * count), std::span<O>(dout.data, c), k, m);
    compare(download(dout.data, c, k.stream), want.data() + k.index * c, label + " reduce-scatter");
    const detred::nccl::plan<T> scatter(detred::nccl::collective::reduce_scatter, c * count, k.comm, *k.ws, m,
                                        k.stream);
    cuda_ok(cudaMemsetAsync(dout.data, 0, n * sizeof(O), k.stream), "cudaMemsetAsync");
    scatter(dx.data, dout.data, k.stream);
    compare(download(dout.data, c, k.stream), want.data() + k.index * c, label + " reduce-scatter plan");
  });
}

void expect_error_everywhere(ranks& all, const std::function<void(rank&)>& call, const std::string& text,
                             const std::string& what) {
  std::vector<std::string> messages(all.count());
  all.run([&](rank& k) {
    try {
      call(k);
    } catch (const detred::error& e) {
      messages[k.index] = e.what();
    }
  });
  for (int r = 0; r < all.count(); ++r) {
    if (messages[r].empty()) fail(what + ": rank " + std::to_string(r) + " raised no detred::error");
    if (messages[r].find(text) == std::string::npos) {
      fail(what + ": rank " + std::to_string(r) + "'s error '" + messages[r] + "' does not say '" + text + "'");
    }
  }
}

void check_errors(ranks& all) {
  const std::size_t n = 1000;
  const int count = all.count();
  auto with_buffers = [&](auto body) {
    return [=](rank& k) {
      device_buffer<double> a(n + 1);
      device_buffer<double> b(n + 1);
      body(k, a.data, b.data);
    };
  };
  if (count > 1) {
    expect_error_everywhere(all, with_buffers([&](rank& k, double* a, double* b) {
                              const std::size_t len = n + (k.index == count - 1 ? 1 : 0);
                              detred::nccl::allreduce_sum(std::span<const double>(a, len), std::span<double>(b, len),
                                                          k.comm, *k.ws, detred::mode::tree, k.stream);
                            }),
                            "elements", "lengths that differ between ranks");
    expect_error_everywhere(all, with_buffers([&](rank& k, double* a, double* b) {
                              if (k.index == 0) {
                                detred::nccl::allreduce_sum(std::span<const float>(reinterpret_cast<float*>(a), n),
                                                            std::span<float>(reinterpret_cast<float*>(b), n), k.comm,
                                                            *k.ws, detred::mode::tree, k.stream);
                              } else {
                                detred::nccl::allreduce_sum(std::span<const double>(a, n), std::span<double>(b, n),
                                                            k.comm, *k.ws, detred::mode::tree, k.stream);
                              }
                            }),
                            "element type", "element types that differ between ranks");
    // int64 sums beyond int64 at element 5: an overflow_error on every rank.
    std::vector<std::string> messages(count);
    all.run([&](rank& k) {
      std::vector<std::int64_t> h(n, 1);
      h[5] = std::numeric_limits<std::int64_t>::max();
      device_buffer<std::int64_t> a(n);
      cuda_ok(cudaMemcpy(a.data, h.data(), n * sizeof h[0], cudaMemcpyHostToDevice), "cudaMemcpy");
      try {
        detred::nccl::allreduce_sum(std::span<const std::int64_t>(a.data, n), std::span<std::int64_t>(a.data, n),
                                    k.comm, *k.ws, k.stream);
      } catch (const detred::overflow_error& e) {
        messages[k.index] = e.what();
      }
    });
    for (const std::string& m : messages) {
      if (m.find("element 5 ") == std::string::npos) fail("int64 overflow: '" + m + "' does not name element 5");
    }
  }
  // A wrong out length on one rank: that rank names it, the others name that rank.
  expect_error_everywhere(all, with_buffers([&](rank& k, double* a, double* b) {
                            const std::size_t out = n - (k.index == 0 ? 1 : 0);
                            detred::nccl::allreduce_sum(std::span<const double>(a, n), std::span<double>(b, out),
                                                        k.comm, *k.ws, detred::mode::tree, k.stream);
                          }),
                          count > 1 ? "rank" : "out has", "a wrong out length on rank 0");
}

}  // namespace

int main() {
  ranks all;
  const char* algo = std::getenv("NCCL_ALGO");
  const char* proto = std::getenv("NCCL_PROTO");
  std::printf("detred-nccl-check: %d ranks, NCCL_ALGO=%s NCCL_PROTO=%s\n", all.count(), algo ? algo : "(default)",
              proto ? proto : "(default)");
  try {
    const std::size_t n = (1u << 20) + 13;  // not a multiple of the rank count: shards and a tail
    for (detred::mode m : {detred::mode::tree, detred::mode::compensated, detred::mode::exact}) {
      check_type<double>(all, m, n);
      check_type<float>(all, m, n);
      check_type<float16>(all, m, n);
      check_type<bfloat16>(all, m, n);
    }
    check_type<std::int32_t>(all, detred::mode::tree, n);
    check_type<std::int64_t>(all, detred::mode::tree, n);
    check_type<std::uint32_t>(all, detred::mode::tree, n);
    check_type<std::uint64_t>(all, detred::mode::tree, n);
    // Short vectors: fewer elements than ranks (a tail only), and empty.
    for (std::size_t small : {std::size_t{0}, std::size_t{1}, std::size_t{7}})
      check_type<float>(all, detred::mode::tree, small);
    check_errors(all);
  } catch (const std::exception& e) {
    fail(std::string("unexpected exception: ") + e.what());
  }
  std::printf("all checks passed\n");
  return 0;
}
