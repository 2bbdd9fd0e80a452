// SPDX-License-Identifier: BSD-3-Clause
// Names, parsing and validation of the public options. Each enum's values are listed once, in values_of<E>.
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "core/validate.hpp"
#include "detred/catalogue.hpp"
#include "detred/options.hpp"

namespace detred {
namespace {

template <class E>
struct values_of;
template <>
struct values_of<mode> {
  static constexpr auto list = catalogue::modes;
};
template <>
struct values_of<isa> {
  static constexpr std::array list = {isa::automatic, isa::baseline, isa::avx2, isa::avx512, isa::neon};
};
template <>
struct values_of<backend> {
  static constexpr std::array list = {backend::automatic, backend::cpu, backend::cuda};
};

template <class E>
bool is_known(E value) {
  for (E known : values_of<E>::list) {
    if (known == value) return true;
  }
  return false;
}

}  // namespace

const char* to_string(mode m) {
  // In the order of the enum's values (catalogue::modes).
  static constexpr std::array<const char*, catalogue::modes.size()> names = {"tree", "compensated", "exact"};
  const auto k = static_cast<std::size_t>(m);
  return k < names.size() ? names[k] : "unknown";
}

const char* to_string(isa i) {
  switch (i) {
    case isa::automatic:
      return "automatic";
    case isa::baseline:
      return "baseline";
    case isa::avx2:
      return "avx2";
    case isa::avx512:
      return "avx512";
    case isa::neon:
      return "neon";
  }
  return "unknown";
}

const char* to_string(backend b) {
  switch (b) {
    case backend::automatic:
      return "automatic";
    case backend::cpu:
      return "cpu";
    case backend::cuda:
      return "cuda";
  }
  return "unknown";
}

template <class E>
std::optional<E> parse(std::string_view name) {
  for (E value : values_of<E>::list) {
    if (name == to_string(value)) return value;
  }
  if constexpr (!std::is_same_v<E, mode>) {
    if (name == "auto") return E::automatic;
  }
  return std::nullopt;
}

template <class E>
std::string names() {
  std::string out;
  const auto& list = values_of<E>::list;
  for (std::size_t k = 0; k < list.size(); ++k) {
    if (k > 0) out += k + 1 == list.size() ? " or " : ", ";
    out += to_string(list[k]);
  }
  return out;
}

template std::optional<mode> parse<mode>(std::string_view name);
template std::optional<isa> parse<isa>(std::string_view name);
template std::optional<backend> parse<backend>(std::string_view name);
template std::string names<mode>();
template std::string names<isa>();
template std::string names<backend>();

mode validated(mode m) {
  if (!is_known(m)) {
    throw error("unknown mode " + std::to_string(static_cast<int>(m)) + " (expected " + names<mode>() + ")");
  }
  return m;
}

void validate(const options& opt) {
  validated(opt.mode);
  if (!is_known(opt.isa)) {
    throw error("unknown isa " + std::to_string(static_cast<int>(opt.isa)) + " (expected " + names<isa>() + ")");
  }
  if (!is_known(opt.backend)) {
    throw error("unknown backend " + std::to_string(static_cast<int>(opt.backend)) + " (expected " + names<backend>() +
                ")");
  }
  if (opt.threads < 0) {
    throw error("threads must be >= 0 (0 = library default), got " + std::to_string(opt.threads));
  }
}

void validate_lengths(std::uint64_t x, std::uint64_t y, const char* what) {
  if (x != y) {
    throw error(std::string(what) + ": the arrays differ in length (" + std::to_string(x) + " and " +
                std::to_string(y) + " elements)");
  }
}

}  // namespace detred
