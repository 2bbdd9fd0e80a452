// SPDX-License-Identifier: BSD-3-Clause
// The C++ library's results, for the pytest suite to compare the Python module with bit for bit (the module calls the
// same library, so this checks what lies between: dtypes, layouts, axes, result conversion). Reads requests from
// standard input, one a line: "OP TYPE MODE FILE [FILE2]", with OP sum, dot, asum, nrm2, min, max, argmin, argmax,
// stats, cumsum or exclusive_cumsum (whose answer is every output's bytes in order), TYPE f64, f32, f16, bf16, i32,
// i64, u32 or u64, MODE tree or compensated, FILE the elements' raw bytes. Answers each on one line: the hex of the
// result's bytes as C++ holds it (statistics: count, then the members in order), or "error: " and the message. One
// thread: the library's bits never depend on it.
#include <cstdint>
#include <fstream>
#include <iostream>
#include <iterator>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "detred/detred.hpp"

namespace {

template <class T>
std::vector<T> read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.eof() && in.fail()) throw std::runtime_error("cannot read " + path);
  std::vector<T> x(bytes.size() / sizeof(T));
  std::copy(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(x.size() * sizeof(T)),
            reinterpret_cast<char*>(x.data()));
  return x;
}

template <class R>
std::string hex(const R& value) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string text;
  const auto* bytes = reinterpret_cast<const unsigned char*>(&value);
  for (std::size_t i = 0; i < sizeof(R); ++i) {
    text += digits[bytes[i] >> 4];
    text += digits[bytes[i] & 15];
  }
  return text;
}

template <class T>
std::string hex(const detred::statistics<T>& s) {
  return hex(s.count) + hex(s.sum) + hex(s.mean) + hex(s.variance) + hex(s.sample_variance) + hex(s.stddev) +
         hex(s.sample_stddev) + hex(s.min) + hex(s.max);
}

// The outputs of a scan of x, one after another.
template <class T>
std::string scan(bool exclusive, std::span<const T> x, const detred::options& opt) {
  using Out =
      std::conditional_t<std::is_same_v<T, detred::float16> || std::is_same_v<T, detred::bfloat16>, float,
                         std::conditional_t<std::is_integral_v<T>,
                                            std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>, T>>;
  std::vector<Out> y(x.size());
  exclusive ? detred::exclusive_cumsum(x, std::span<Out>(y), opt) : detred::cumsum(x, std::span<Out>(y), opt);
  std::string text;
  for (const Out& v : y) text += hex(v);
  return text;
}

// The result of `op` on x (and y), where the library has that operation for T.
template <class T>
std::string run(const std::string& op, detred::mode m, std::span<const T> x, std::span<const T> y) {
  const detred::options opt{.mode = m, .threads = 1};
  if (op == "sum") {
    if constexpr (requires { detred::sum(x, opt); }) return hex(detred::sum(x, opt));
  } else if (op == "dot") {
    if constexpr (requires { detred::dot(x, y, opt); }) return hex(detred::dot(x, y, opt));
  } else if (op == "asum") {
    if constexpr (requires { detred::asum(x, opt); }) return hex(detred::asum(x, opt));
  } else if (op == "nrm2") {
    if constexpr (requires { detred::nrm2(x, opt); }) return hex(detred::nrm2(x, opt));
  } else if (op == "min") {
    if constexpr (requires { detred::min(x, opt); }) return hex(detred::min(x, opt));
  } else if (op == "max") {
    if constexpr (requires { detred::max(x, opt); }) return hex(detred::max(x, opt));
  } else if (op == "argmin") {
    if constexpr (requires { detred::argmin(x, opt); }) return hex(detred::argmin(x, opt));
  } else if (op == "argmax") {
    if constexpr (requires { detred::argmax(x, opt); }) return hex(detred::argmax(x, opt));
  } else if (op == "stats") {
    if constexpr (requires { detred::stats(x, opt); }) return hex(detred::stats(x, opt));
  } else if (op == "cumsum" || op == "exclusive_cumsum") {
    return scan(op == "exclusive_cumsum", x, opt);
  }
  throw std::runtime_error("no operation " + op + " for this type");
}

template <class T>
std::string run_files(const std::string& op, detred::mode m, const std::string& file, const std::string& file2) {
  const std::vector<T> x = read<T>(file);
  const std::vector<T> y = file2.empty() ? std::vector<T>() : read<T>(file2);
  return run<T>(op, m, x, y);
}

std::string answer(const std::string& request) {
  std::istringstream in(request);
  std::string op, type, mode_name, file, file2;
  in >> op >> type >> mode_name >> file >> file2;
  const auto m = detred::parse<detred::mode>(mode_name);
  if (!m) throw std::runtime_error("unknown mode " + mode_name);
  if (type == "f64") return run_files<double>(op, *m, file, file2);
  if (type == "f32") return run_files<float>(op, *m, file, file2);
  if (type == "f16") return run_files<detred::float16>(op, *m, file, file2);
  if (type == "bf16") return run_files<detred::bfloat16>(op, *m, file, file2);
  if (type == "i32") return run_files<std::int32_t>(op, *m, file, file2);
  if (type == "i64") return run_files<std::int64_t>(op, *m, file, file2);
  if (type == "u32") return run_files<std::uint32_t>(op, *m, file, file2);
  if (type == "u64") return run_files<std::uint64_t>(op, *m, file, file2);
  throw std::runtime_error("unknown type " + type);
}

}  // namespace

int main() {
  std::string request;
  while (std::getline(std::cin, request)) {
    try {
      std::cout << answer(request) << std::endl;
    } catch (const std::exception& e) {
      std::cout << "error: " << e.what() << std::endl;
    }
  }
  return 0;
}
