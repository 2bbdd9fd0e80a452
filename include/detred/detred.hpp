// detred: deterministic reductions. One header for the whole public API.
#pragma once

#include "detred/bounds.hpp"
#include "detred/cpu.hpp"
#include "detred/cuda.hpp"
#include "detred/options.hpp"
#include "detred/order.hpp"
#include "detred/reference.hpp"
#include "detred/sum.hpp"
#include "detred/version.hpp"
