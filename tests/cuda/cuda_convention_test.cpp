// SPDX-License-Identifier: BSD-3-Clause
// The CUDA calling convention (detred/cuda.hpp): every call takes its data, [its result,] then detred::options.
// cuda::reduce<O> against the named call and the CPU's detred::reduce<O>; every _async form against its synchronous
// form, on the library's workspace and on the caller's own with a stream of its own; host memory in the synchronous
// forms; the errors only the device sees (an integer sum or scan past its type, an empty segment of a selection, a
// bad key), which synchronize(options) throws once; sum_by_key with int64 keys; sumsq of every float type.
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "batch_cases.hpp"
#include "detred/cuda.hpp"
#include "detred/detred.hpp"
#include "detred/reduce.hpp"
#include "gpu_paths.hpp"
#include "op_paths.hpp"

namespace detred::testing {
namespace {

/// A GPU test that also needs the library's CUDA backend: skips, with the reason, where either is missing.
class Convention : public Gpu {
 protected:
  void SetUp() override {
    Gpu::SetUp();
    if (IsSkipped()) return;
    if (!cuda::available()) GTEST_SKIP() << "detred::cuda::available() is false";
  }
};
template <class T>
class TypedConvention : public Convention {};
using FloatTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(TypedConvention, FloatTypes);

/// The sizes of these tests: empty, one element, around one leaf of floats (2048), and several blocks.
const std::vector<std::uint64_t>& sizes() {
  static const std::vector<std::uint64_t> s = {0, 1, 2047, 2048, 2049, 100003};
  return s;
}

/// A host vector copied to a device allocation of its own.
template <class T>
class uploaded {
 public:
  explicit uploaded(const std::vector<T>& host) : array_(host.size()), size_(host.size()) {
    EXPECT_TRUE(array_.ok()) << "cudaMalloc of " << host.size() << " elements";
    if (array_.ok() && !host.empty()) {
      EXPECT_EQ(cudaMemcpy(array_.data(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
    }
    // Done before any stream reads it (a copy from pageable memory may return before its DMA ends).
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  }
  std::span<const T> span() const { return {array_.data(), size_}; }

 private:
  device_array<T> array_;
  std::uint64_t size_;
};

/// n small integers (-3..3, or 0..6 unsigned): sums and scans of them fit every type; many ties for the selections.
template <class I>
std::vector<I> small_integers(std::uint64_t n, std::uint64_t seed) {
  rng r(seed);
  std::vector<I> x(n);
  for (auto& e : x) {
    const auto v = static_cast<std::int64_t>(r.next() % 7);
    e = static_cast<I>(std::is_signed_v<I> ? v - 3 : v);
  }
  return x;
}

/// The value at device address d, after the work on `stream` (nullptr: the legacy default stream).
template <class R>
R fetch(const R* d, cudaStream_t stream) {
  R r{};
  EXPECT_EQ(cudaMemcpyAsync(&r, d, sizeof(R), cudaMemcpyDeviceToHost, stream), cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  return r;
}

/// A stream of the test's own (non-blocking: it does not wait for the legacy default stream), destroyed on exit.
class own_stream {
 public:
  own_stream() { EXPECT_EQ(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), cudaSuccess); }
  ~own_stream() { static_cast<void>(cudaStreamDestroy(stream_)); }
  own_stream(const own_stream&) = delete;
  own_stream& operator=(const own_stream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

/// The named CUDA call of O (cuda::sum, cuda::dot, ...); y is read by dot only.
template <operation O, class T>
result_t<O, T> named(std::span<const T> x, [[maybe_unused]] std::span<const T> y, const options& opt) {
  if constexpr (O == operation::sum) {
    return cuda::sum(x, opt);
  } else if constexpr (O == operation::dot) {
    return cuda::dot(x, y, opt);
  } else if constexpr (O == operation::asum) {
    return cuda::asum(x, opt);
  } else if constexpr (O == operation::nrm2) {
    return cuda::nrm2(x, opt);
  } else if constexpr (O == operation::sumsq) {
    return cuda::sumsq(x, opt);
  } else if constexpr (O == operation::stats) {
    return cuda::stats(x, opt);
  } else if constexpr (O == operation::min) {
    return cuda::min(x, opt);
  } else if constexpr (O == operation::max) {
    return cuda::max(x, opt);
  } else if constexpr (O == operation::argmin) {
    return cuda::argmin(x, opt);
  } else {
    static_assert(O == operation::argmax);
    return cuda::argmax(x, opt);
  }
}

/// The named _async call of O.
template <operation O, class T>
void named_async(std::span<const T> x, [[maybe_unused]] std::span<const T> y, result_t<O, T>* r, const options& opt) {
  if constexpr (O == operation::sum) {
    cuda::sum_async(x, r, opt);
  } else if constexpr (O == operation::dot) {
    cuda::dot_async(x, y, r, opt);
  } else if constexpr (O == operation::asum) {
    cuda::asum_async(x, r, opt);
  } else if constexpr (O == operation::nrm2) {
    cuda::nrm2_async(x, r, opt);
  } else if constexpr (O == operation::sumsq) {
    cuda::sumsq_async(x, r, opt);
  } else if constexpr (O == operation::stats) {
    cuda::stats_async(x, r, opt);
  } else if constexpr (O == operation::min) {
    cuda::min_async(x, r, opt);
  } else if constexpr (O == operation::max) {
    cuda::max_async(x, r, opt);
  } else if constexpr (O == operation::argmin) {
    cuda::argmin_async(x, r, opt);
  } else {
    static_assert(O == operation::argmax);
    cuda::argmax_async(x, r, opt);
  }
}

/// cuda::reduce<O>, of one array or two.
template <operation O, class T>
result_t<O, T> gpu_reduce(std::span<const T> x, [[maybe_unused]] std::span<const T> y, const options& opt) {
  if constexpr (catalogue::arity(O) == 2) {
    return cuda::reduce<O>(x, y, opt);
  } else {
    return cuda::reduce<O>(x, opt);
  }
}

/// cuda::reduce_async<O>.
template <operation O, class T>
void gpu_reduce_async(std::span<const T> x, [[maybe_unused]] std::span<const T> y, result_t<O, T>* r,
                      const options& opt) {
  if constexpr (catalogue::arity(O) == 2) {
    cuda::reduce_async<O>(x, y, r, opt);
  } else {
    cuda::reduce_async<O>(x, r, opt);
  }
}

/// The CPU's detred::reduce<O>.
template <operation O, class T>
result_t<O, T> cpu_reduce(std::span<const T> x, [[maybe_unused]] std::span<const T> y, const options& opt) {
  if constexpr (catalogue::arity(O) == 2) {
    return detred::reduce<O>(x, y, opt);
  } else {
    return detred::reduce<O>(x, opt);
  }
}

std::string label(operation o, mode m, std::uint64_t n, const std::string& what) {
  return std::string(catalogue::operation_names[static_cast<std::size_t>(o)]) + " " + what + " mode=" + to_string(m) +
         " n=" + std::to_string(n);
}

/// O over host x (and y) in mode m, every GPU form against the CPU's detred::reduce<O>, bit for bit: reduce<O> and
/// the named call, synchronous (device memory, then the host vectors themselves) and _async (reduce_async<O> and the
/// named _async, each with the default options' workspace on the legacy default stream, then with the caller's
/// workspace on a stream of its own; synchronize(options) finds nothing recorded). Where the GPU lacks the mode (the
/// catalogue), or O needs an element and x is empty, every form must throw detred::error, as the CPU does for the
/// empty array.
template <operation O, class T>
void expect_every_form(const std::vector<T>& hx, const std::vector<T>& hy, mode m, const std::string& what) {
  using R = result_t<O, T>;
  const std::uint64_t n = hx.size();
  const std::string where = label(O, m, n, what);
  const uploaded<T> dx(hx);
  const uploaded<T> dy(hy);
  const std::span<const T> x = dx.span(), y = dy.span(), host_x(hx), host_y(hy);
  cuda::workspace ws;
  const own_stream stream;
  const options plain{.mode = m};
  const options own{.mode = m, .stream = stream.get(), .workspace = &ws};
  device_array<R> out(4);
  ASSERT_TRUE(out.ok());

  const bool refused = !catalogue::supports(O, element_type_of<T>(), m, backend::cuda, call_shape::array) ||
                       (catalogue::needs_an_element(O) && n == 0);
  if (refused) {
    EXPECT_THROW(gpu_reduce<O>(x, y, plain), error) << where;
    EXPECT_THROW(named<O>(x, y, own), error) << where;
    EXPECT_THROW(named<O>(host_x, host_y, plain), error) << where << " host memory";
    EXPECT_THROW(gpu_reduce_async<O>(x, y, out.data(), plain), error) << where;
    EXPECT_THROW(named_async<O>(x, y, out.data(), own), error) << where;
    if (catalogue::needs_an_element(O) && n == 0) {
      EXPECT_THROW(cpu_reduce<O>(host_x, host_y, plain), error) << where << " on the CPU";
    }
    // A refusal is thrown when the call is made: nothing is left for synchronize.
    EXPECT_NO_THROW(cuda::synchronize(plain)) << where;
    EXPECT_NO_THROW(cuda::synchronize(own)) << where;
    return;
  }

  const R expected = cpu_reduce<O>(host_x, host_y, plain);
  const auto expect_same = [&](const R& got, const char* form) {
    EXPECT_TRUE(same_bits(got, expected)) << where << " form: " << form;
    ++gpu_comparisons();
  };
  expect_same(gpu_reduce<O>(x, y, plain), "reduce<O>, default workspace");
  expect_same(gpu_reduce<O>(x, y, own), "reduce<O>, own workspace and stream");
  expect_same(named<O>(x, y, plain), "named, default workspace");
  expect_same(named<O>(x, y, own), "named, own workspace and stream");
  expect_same(gpu_reduce<O>(host_x, host_y, plain), "reduce<O> of host memory");
  expect_same(named<O>(host_x, host_y, own), "named of host memory, own workspace and stream");

  DETRED_CUDA_OK(cudaMemset(out.data(), 0x5a, 4 * sizeof(R)));
  DETRED_CUDA_OK(cudaDeviceSynchronize());  // before the calls on the stream that does not wait for this one
  gpu_reduce_async<O>(x, y, out.data(), plain);
  named_async<O>(x, y, out.data() + 1, plain);
  EXPECT_NO_THROW(cuda::synchronize(plain)) << where;
  expect_same(fetch(out.data(), nullptr), "reduce_async<O>, default workspace");
  expect_same(fetch(out.data() + 1, nullptr), "named _async, default workspace");
  gpu_reduce_async<O>(x, y, out.data() + 2, own);
  named_async<O>(x, y, out.data() + 3, own);
  EXPECT_NO_THROW(cuda::synchronize(own)) << where;
  expect_same(fetch(out.data() + 2, stream.get()), "reduce_async<O>, own workspace and stream");
  expect_same(fetch(out.data() + 3, stream.get()), "named _async, own workspace and stream");
}

template <operation O, class T>
void expect_every_form_in_every_mode(const std::vector<T>& x, const std::vector<T>& y, const std::string& what) {
  for (mode m : {mode::tree, mode::compensated, mode::exact}) expect_every_form<O, T>(x, y, m, what);
}

// (1), (2), (3): every operation of float and double.
TYPED_TEST(TypedConvention, EveryFormOfEveryOperationEqualsTheCpu) {
  using T = TypeParam;
  for (values v : {values::dynamic_range, values::with_nan}) {
    for (std::uint64_t n : sizes()) {
      const std::vector<T> x = generate<T>(v, n, 100 + n);
      const std::vector<T> y = generate<T>(values::uniform, n, 200 + n);
      const std::string what = name(v);
      expect_every_form_in_every_mode<operation::sum>(x, y, what);
      expect_every_form_in_every_mode<operation::dot>(x, y, what);
      expect_every_form_in_every_mode<operation::asum>(x, y, what);
      expect_every_form_in_every_mode<operation::nrm2>(x, y, what);
      expect_every_form_in_every_mode<operation::sumsq>(x, y, what);
      expect_every_form_in_every_mode<operation::stats>(x, y, what);
      expect_every_form_in_every_mode<operation::min>(x, y, what);
      expect_every_form_in_every_mode<operation::max>(x, y, what);
      expect_every_form_in_every_mode<operation::argmin>(x, y, what);
      expect_every_form_in_every_mode<operation::argmax>(x, y, what);
    }
  }
}

// (7): an operation of one array (sumsq, mean) of every float type against the CPU's, through its named call and
// through cuda::reduce<O>, in tree and compensated mode, and in exact mode for float and double; the modes listed here
// rather than read from the catalogue.
template <operation O, class T, class Named>
void expect_as_on_the_cpu(const std::vector<T>& x, bool exact_too, const std::string& what, Named&& named) {
  std::vector<mode> modes = {mode::tree, mode::compensated};
  if (exact_too) modes.push_back(mode::exact);
  const uploaded<T> d(x);
  for (mode m : modes) {
    const options opt{.mode = m};
    using R = result_t<O, T>;
    const R expected = detred::reduce<O>(std::span<const T>(x), opt);
    const R got = named(d.span(), opt);
    EXPECT_EQ(bits(got), bits(expected)) << label(O, m, x.size(), what);
    EXPECT_EQ(bits(cuda::reduce<O>(d.span(), opt)), bits(expected)) << label(O, m, x.size(), what + " reduce<O>");
    gpu_comparisons() += 2;
  }
}

template <class T>
void expect_sumsq(const std::vector<T>& x, bool exact_too, const std::string& what) {
  expect_as_on_the_cpu<operation::sumsq>(x, exact_too, what,
                                         [](std::span<const T> d, const options& o) { return cuda::sumsq(d, o); });
}

TEST_F(Convention, SumsqOfEveryFloatTypeEqualsTheCpu) {
  for (std::uint64_t n : sizes()) {
    for (values v : {values::dynamic_range, values::ill_conditioned, values::with_nan}) {
      expect_sumsq(generate<double>(v, n, 300 + n), true, "double " + name(v));
      expect_sumsq(generate<float>(v, n, 400 + n), true, "float " + name(v));
    }
    for (bool finite : {true, false}) {
      const std::string what = finite ? " finite" : " any";
      expect_sumsq(random_halves<float16>(n, 500 + n, finite), false, "float16" + what);
      expect_sumsq(random_halves<bfloat16>(n, 600 + n, finite), false, "bfloat16" + what);
    }
  }
}

// The mean (the GPU's leaf and fold passes divide by the count they were given; exact mode, the exact kernel's
// quotient), as (7).
template <class T>
void expect_mean(const std::vector<T>& x, bool exact_too, const std::string& what) {
  expect_as_on_the_cpu<operation::mean>(x, exact_too, what,
                                        [](std::span<const T> d, const options& o) { return cuda::mean(d, o); });
}

TEST_F(Convention, MeanOfEveryFloatTypeEqualsTheCpu) {
  for (std::uint64_t n : sizes()) {
    for (values v : {values::dynamic_range, values::ill_conditioned, values::with_nan}) {
      expect_mean(generate<double>(v, n, 310 + n), true, "double " + name(v));
      expect_mean(generate<float>(v, n, 410 + n), true, "float " + name(v));
    }
    expect_mean(random_halves<float16>(n, 510 + n, true), false, "float16");
    expect_mean(random_halves<bfloat16>(n, 610 + n, false), false, "bfloat16");
  }
}

// (2), (3) for the other element types: the sums, dot and sumsq of 16-bit floats; the exact sums and the selections
// of integers.
TEST_F(Convention, EveryFormOfHalvesAndIntegersEqualsTheCpu) {
  for (std::uint64_t n : sizes()) {
    const std::vector<float16> h = random_halves<float16>(n, 700 + n, true);
    const std::vector<bfloat16> b = random_halves<bfloat16>(n, 800 + n, true);
    for (mode m : {mode::tree, mode::compensated}) {
      expect_every_form<operation::sum>(h, h, m, "float16");
      expect_every_form<operation::dot>(h, h, m, "float16");
      expect_every_form<operation::sumsq>(h, h, m, "float16");
      expect_every_form<operation::sum>(b, b, m, "bfloat16");
      expect_every_form<operation::dot>(b, b, m, "bfloat16");
      expect_every_form<operation::sumsq>(b, b, m, "bfloat16");
    }
    const auto integers = [&]<class I>(const char* type) {
      const std::vector<I> x = small_integers<I>(n, 900 + n);
      expect_every_form<operation::sum>(x, x, mode::tree, type);
      expect_every_form<operation::min>(x, x, mode::tree, type);
      expect_every_form<operation::max>(x, x, mode::tree, type);
      expect_every_form<operation::argmin>(x, x, mode::tree, type);
      expect_every_form<operation::argmax>(x, x, mode::tree, type);
    };
    integers.template operator()<std::int32_t>("int32");
    integers.template operator()<std::int64_t>("int64");
    integers.template operator()<std::uint32_t>("uint32");
    integers.template operator()<std::uint64_t>("uint64");
  }
}

/// Requires f() to throw E (detred::overflow_error or detred::error) whose what() contains `text`.
template <class E, class F>
void expect_throw_naming(F&& f, const std::string& text, const std::string& what) {
  try {
    f();
    ADD_FAILURE() << what << ": nothing thrown";
  } catch (const E& e) {
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << what << ": " << e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": the wrong exception type: " << e.what();
  }
}

// (4): an integer sum past its result type. The synchronous form throws detred::overflow_error stating the exact
// sum; the _async form records it in its workspace, the next synchronize on that workspace throws it, the one after
// finds nothing, and another workspace never sees it.
template <class I>
void expect_sum_overflow(const std::string& exact_sum) {
  using R = result_t<operation::sum, I>;
  const std::vector<I> hx = {std::numeric_limits<I>::max(), I{1}, I{0}};
  const uploaded<I> dx(hx);
  cuda::workspace ws;
  const own_stream stream;
  device_array<R> out(1);
  ASSERT_TRUE(out.ok());
  const options own{.stream = stream.get(), .workspace = &ws};
  const std::string type = std::is_signed_v<I> ? "int64" : "uint64";
  expect_throw_naming<overflow_error>([&] { static_cast<void>(cuda::sum(dx.span(), own)); }, exact_sum,
                                      type + " sum, synchronous");
  expect_throw_naming<overflow_error>([&] { static_cast<void>(cuda::sum(std::span<const I>(hx), {})); }, exact_sum,
                                      type + " sum of host memory, synchronous");
  cuda::sum_async(dx.span(), out.data(), own);
  EXPECT_NO_THROW(cuda::synchronize({})) << type << ": the default workspace saw another workspace's error";
  expect_throw_naming<overflow_error>([&] { cuda::synchronize(own); }, exact_sum, type + " sum_async");
  EXPECT_NO_THROW(cuda::synchronize(own)) << type << ": a second synchronize threw the error again";
  // The default workspace too, and reduce_async<sum>.
  cuda::reduce_async<operation::sum>(dx.span(), out.data(), {});
  expect_throw_naming<overflow_error>([&] { cuda::synchronize({}); }, exact_sum, type + " reduce_async<sum>");
  EXPECT_NO_THROW(cuda::synchronize({}));
  // After the error, the workspace sums normally.
  EXPECT_EQ(cuda::sum(dx.span().subspan(1), own), R{1});
}

TEST_F(Convention, IntegerSumOverflowIsThrownBySynchronizeOnce) {
  expect_sum_overflow<std::int64_t>("9223372036854775808");    // 2^63
  expect_sum_overflow<std::uint64_t>("18446744073709551616");  // 2^64
}

/// Requires synchronize(opt) to throw detred::error naming segment k ("segment k", k not followed by another
/// digit), and the next synchronize to throw nothing.
void expect_empty_segment_error(const options& opt, std::uint64_t k, const std::string& what) {
  try {
    cuda::synchronize(opt);
    ADD_FAILURE() << what << ": the empty segment " << k << " was accepted";
  } catch (const error& e) {
    const std::string message = e.what();
    const std::string segment = "segment " + std::to_string(k);
    const std::size_t at = message.find(segment);
    const std::size_t after = at + segment.size();
    const bool named_k =
        at != std::string::npos && (after == message.size() || message[after] < '0' || message[after] > '9');
    EXPECT_TRUE(named_k) << what << ": " << message;
  }
  EXPECT_NO_THROW(cuda::synchronize(opt)) << what << ": a second synchronize threw the error again";
}

// (5): min, max, argmin and argmax of segments with an empty one: the call enqueues, and the next synchronize throws
// detred::error naming the first empty segment. Segment 12 here, so that "segment 1" does not pass for it.
TYPED_TEST(TypedConvention, EmptySegmentOfASelectionIsThrownBySynchronize) {
  using T = TypeParam;
  std::vector<std::uint64_t> offsets = {0};
  for (int k = 0; k < 20; ++k) offsets.push_back(offsets.back() + (k == 12 || k == 15 ? 0 : 3 + k));
  const std::uint64_t count = offsets.size() - 1;
  const std::vector<T> hx = generate<T>(values::uniform, offsets.back(), 31);
  const uploaded<T> dx(hx);
  const uploaded<std::uint64_t> doff(offsets);
  const segments s{doff.span()};
  device_array<T> values_out(count);
  device_array<std::uint64_t> index_out(count);
  ASSERT_TRUE(values_out.ok() && index_out.ok());
  const std::span<T> v(values_out.data(), count);
  const std::span<std::uint64_t> at(index_out.data(), count);
  cuda::workspace ws;
  const own_stream stream;
  for (const options& opt : {options{}, options{.stream = stream.get(), .workspace = &ws}}) {
    const std::string which = opt.workspace == nullptr ? " default workspace" : " own workspace and stream";
    cuda::min_async(dx.span(), s, v, opt);
    expect_empty_segment_error(opt, 12, "min" + which);
    cuda::max_async(dx.span(), s, v, opt);
    expect_empty_segment_error(opt, 12, "max" + which);
    cuda::argmin_async(dx.span(), s, at, opt);
    expect_empty_segment_error(opt, 12, "argmin" + which);
    cuda::argmax_async(dx.span(), s, at, opt);
    expect_empty_segment_error(opt, 12, "argmax" + which);
    // The sums take an empty segment (its value is the empty array's): nothing is recorded.
    cuda::sum_async(dx.span(), s, v, opt);
    EXPECT_NO_THROW(cuda::synchronize(opt)) << "sum" << which;
  }
}

// (6): sum_by_key with int64 keys gives the bits of uint32 keys (and of the CPU); a negative int64 key is refused by
// the synchronous form, and by the synchronize after the _async form.
TYPED_TEST(TypedConvention, SumByKeyWithInt64KeysEqualsUint32Keys) {
  using T = TypeParam;
  const std::uint64_t n = 100003, bins = 777;
  const std::vector<T> hx = generate<T>(values::ill_conditioned, n, 41);
  const std::vector<std::uint32_t> narrow = random_keys<std::uint32_t>(n, bins, true, 43);
  const std::vector<std::int64_t> wide(narrow.begin(), narrow.end());
  const uploaded<T> dx(hx);
  const uploaded<std::uint32_t> dnarrow(narrow);
  const uploaded<std::int64_t> dwide(wide);
  device_array<T> out(bins);
  ASSERT_TRUE(out.ok());
  const std::span<T> results(out.data(), bins);
  cuda::workspace ws;
  const own_stream stream;
  for (mode m : {mode::tree, mode::compensated}) {
    const options own{.mode = m, .stream = stream.get(), .workspace = &ws};
    std::vector<T> cpu(bins);
    detred::sum_by_key(std::span<const T>(hx), std::span<const std::int64_t>(wide), std::span<T>(cpu), {.mode = m});
    cuda::sum_by_key(dx.span(), dnarrow.span(), results, own);
    std::vector<T> by_narrow(bins);
    DETRED_CUDA_OK(cudaMemcpy(by_narrow.data(), out.data(), bins * sizeof(T), cudaMemcpyDeviceToHost));
    cuda::sum_by_key(dx.span(), dwide.span(), results, own);
    std::vector<T> by_wide(bins);
    DETRED_CUDA_OK(cudaMemcpy(by_wide.data(), out.data(), bins * sizeof(T), cudaMemcpyDeviceToHost));
    DETRED_CUDA_OK(cudaMemset(out.data(), 0x5a, bins * sizeof(T)));
    DETRED_CUDA_OK(cudaDeviceSynchronize());
    cuda::sum_by_key_async(dx.span(), dwide.span(), results, own);
    EXPECT_NO_THROW(cuda::synchronize(own));
    std::vector<T> by_async(bins);
    DETRED_CUDA_OK(cudaMemcpy(by_async.data(), out.data(), bins * sizeof(T), cudaMemcpyDeviceToHost));
    for (std::uint64_t b = 0; b < bins; ++b) {
      EXPECT_EQ(bits(by_wide[b]), bits(by_narrow[b])) << "bin " << b << " mode=" << to_string(m);
      EXPECT_EQ(bits(by_wide[b]), bits(cpu[b])) << "bin " << b << " mode=" << to_string(m) << " against the CPU";
      EXPECT_EQ(bits(by_async[b]), bits(by_wide[b])) << "bin " << b << " mode=" << to_string(m) << " async";
    }
    gpu_comparisons() += 3 * bins;
  }
  std::vector<std::int64_t> bad = wide;
  bad[n / 2] = -1;
  const uploaded<std::int64_t> dbad(bad);
  const options own{.stream = stream.get(), .workspace = &ws};
  const std::string index = std::to_string(n / 2);
  expect_throw_naming<error>([&] { cuda::sum_by_key(dx.span(), dbad.span(), results, own); }, index,
                             "sum_by_key with a negative key");
  cuda::sum_by_key_async(dx.span(), dbad.span(), results, own);
  expect_throw_naming<error>([&] { cuda::synchronize(own); }, index, "sum_by_key_async with a negative key");
  EXPECT_NO_THROW(cuda::synchronize(own));
}

// (8): the integer scans' _async forms give the synchronous forms' outputs (one array, and segments); an output past
// the type is thrown by the next synchronize, once.
template <class I>
void expect_integer_scans() {
  using R = result_t<operation::sum, I>;  // int64 or uint64, as for the scans
  cuda::workspace ws;
  const own_stream stream;
  for (std::uint64_t n : sizes()) {
    const std::vector<I> hx = small_integers<I>(n, 1000 + n);
    const uploaded<I> dx(hx);
    device_array<R> sync(n), async(n);
    ASSERT_TRUE(sync.ok() && async.ok());
    const std::span<R> ys(sync.data(), n), ya(async.data(), n);
    const std::vector<std::uint64_t> offsets = {0, n / 3, n / 3, n};
    const uploaded<std::uint64_t> doff(offsets);
    const segments s{doff.span()};
    for (const options& opt : {options{}, options{.stream = stream.get(), .workspace = &ws}}) {
      for (int form = 0; form < 4; ++form) {
        const bool exclusive = form % 2 == 1, segmented = form >= 2;
        DETRED_CUDA_OK(cudaMemset(sync.data(), 0, (n == 0 ? 1 : n) * sizeof(R)));
        DETRED_CUDA_OK(cudaMemset(async.data(), 0x5a, (n == 0 ? 1 : n) * sizeof(R)));
        DETRED_CUDA_OK(cudaDeviceSynchronize());
        if (segmented) {
          exclusive ? cuda::exclusive_cumsum(dx.span(), s, ys, opt) : cuda::cumsum(dx.span(), s, ys, opt);
          exclusive ? cuda::exclusive_cumsum_async(dx.span(), s, ya, opt) : cuda::cumsum_async(dx.span(), s, ya, opt);
        } else {
          exclusive ? cuda::exclusive_cumsum(dx.span(), ys, opt) : cuda::cumsum(dx.span(), ys, opt);
          exclusive ? cuda::exclusive_cumsum_async(dx.span(), ya, opt) : cuda::cumsum_async(dx.span(), ya, opt);
        }
        EXPECT_NO_THROW(cuda::synchronize(opt));
        std::vector<R> a(n), b(n);
        if (n > 0) {
          DETRED_CUDA_OK(cudaMemcpy(a.data(), sync.data(), n * sizeof(R), cudaMemcpyDeviceToHost));
          DETRED_CUDA_OK(cudaMemcpy(b.data(), async.data(), n * sizeof(R), cudaMemcpyDeviceToHost));
        }
        std::uint64_t i = 0;
        while (i < n && a[i] == b[i]) ++i;
        EXPECT_EQ(i, n) << "first difference at output " << i << ", n=" << n
                        << (exclusive ? " exclusive" : " inclusive") << (segmented ? " segments" : "")
                        << (opt.workspace == nullptr ? " default workspace" : " own workspace and stream");
        ++gpu_comparisons();
      }
    }
  }
  // Past the type: max, then 1.
  const std::vector<I> hx = {std::numeric_limits<I>::max(), I{1}, I{0}};
  const uploaded<I> dx(hx);
  device_array<R> y(3);
  ASSERT_TRUE(y.ok());
  const std::span<R> ys(y.data(), 3);
  const options own{.stream = stream.get(), .workspace = &ws};
  const bool overflows = sizeof(I) == 8;  // int32 and uint32 widen: max + 1 fits their 64-bit outputs
  if (overflows) {
    EXPECT_THROW(cuda::cumsum(dx.span(), ys, own), overflow_error);
    cuda::cumsum_async(dx.span(), ys, own);
    EXPECT_THROW(cuda::synchronize(own), overflow_error);
    EXPECT_NO_THROW(cuda::synchronize(own)) << "a second synchronize threw the error again";
  } else {
    cuda::cumsum_async(dx.span(), ys, own);
    EXPECT_NO_THROW(cuda::synchronize(own));
    std::vector<R> out(3);
    DETRED_CUDA_OK(cudaMemcpy(out.data(), y.data(), 3 * sizeof(R), cudaMemcpyDeviceToHost));
    EXPECT_EQ(out[1], static_cast<R>(std::numeric_limits<I>::max()) + 1);
  }
}

TEST_F(Convention, IntegerScansAsyncEqualSyncAndOverflowAtSynchronize) {
  expect_integer_scans<std::int32_t>();
  expect_integer_scans<std::int64_t>();
  expect_integer_scans<std::uint32_t>();
  expect_integer_scans<std::uint64_t>();
}

}  // namespace
}  // namespace detred::testing
