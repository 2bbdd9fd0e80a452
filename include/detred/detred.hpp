// SPDX-License-Identifier: BSD-3-Clause
// detred: deterministic reductions. One header for the whole public API.
#pragma once

#include "detred/batched.hpp"
#include "detred/bounds.hpp"
#include "detred/cpu.hpp"
#include "detred/cuda.hpp"
#include "detred/dot.hpp"
#include "detred/extrema.hpp"
#include "detred/norms.hpp"
#include "detred/number_types.hpp"
#include "detred/options.hpp"
#include "detred/order.hpp"
#include "detred/partial.hpp"
#include "detred/reduce.hpp"
#include "detred/reference.hpp"
#include "detred/scan.hpp"
#include "detred/statistics.hpp"
#include "detred/stats.hpp"
#include "detred/sum.hpp"
#include "detred/version.hpp"
