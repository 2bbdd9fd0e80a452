// SPDX-License-Identifier: BSD-3-Clause
// The library's way into partial_state (the public class keeps its implementation private): backends that compute
// a state's parts themselves (the GPU) build it here.
#pragma once

#include <memory>
#include <utility>

#include "detred/partial.hpp"

namespace detred {

struct partial_state_access {
  static partial_state make(std::unique_ptr<partial_state::impl> state) { return partial_state(std::move(state)); }
  static partial_state::impl& of(partial_state& s) { return *s.state_; }
};

}  // namespace detred
