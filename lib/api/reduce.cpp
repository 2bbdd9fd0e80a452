// SPDX-License-Identifier: BSD-3-Clause
// detred::reduce's type-erased core (detred/reduce.hpp): finds the operation and the element type among the
// catalogue's, then takes the front door (front_door.hpp) as the named calls do.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "detred/reduce.hpp"
#include "front_door.hpp"

namespace detred {

const std::string& call_name(operation op) {
  static const std::array<std::string, catalogue::operations.size()> names = [] {
    std::array<std::string, catalogue::operations.size()> r;
    for (operation o : catalogue::operations) r[static_cast<std::size_t>(o)] = std::string("detred::") + to_string(o);
    return r;
  }();
  const auto k = static_cast<std::size_t>(op);
  return names[k < names.size() ? k : 0];
}

namespace {

/// reduce_typed<O, T> for the operation op, among the catalogue's from the K-th on.
template <class T, std::size_t K = 0>
void reduce_from(operation op, const void* x, std::uint64_t n, const void* y, std::uint64_t ny, void* result,
                 const options& opt) {
  if constexpr (K < catalogue::operations.size()) {
    constexpr operation O = catalogue::operations[K];
    if constexpr (has_operator<O, T>) {
      if (op == O) {
        return reduce_typed<O, T>(static_cast<const T*>(x), n, static_cast<const T*>(y), ny, result, opt);
      }
    }
    reduce_from<T, K + 1>(op, x, n, y, ny, result, opt);
  }
}

}  // namespace

void reduce(operation op, element_type t, const void* x, std::uint64_t n, const void* y, std::uint64_t ny, void* result,
            const options& opt) {
  if (catalogue::is_scan(op) || !catalogue::has(op, t)) {
    throw error(std::string("detred::reduce: ") + to_string(t) + " elements have no " + to_string(op) +
                (catalogue::is_scan(op) ? " (a scan: detred/scan.hpp)" : ""));
  }
  with_type(t, [&]<class T>() { reduce_from<T>(op, x, n, y, ny, result, opt); });
}

}  // namespace detred
