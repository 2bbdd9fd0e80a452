// SPDX-License-Identifier: BSD-3-Clause
// Streaming mode and OpenMP's idle threads. After each parallel region, libgomp's workers spin before they sleep
// (300000 pause instructions by default: milliseconds on current x86 cores). A streaming pass opens a region per
// chunk and per result, and between them the reading thread and the oracle need the cores those workers spin on:
// measured on 2 cores, verify --stream of a 1 GiB NetCDF variable took 11.5 s with spinning workers and 6.6 s
// without (docs/verify.md).
// libgomp reads OMP_WAIT_POLICY once, when it is loaded, so the tool starts itself again with
// OMP_WAIT_POLICY=passive when it streams and the user has not chosen a policy.
#pragma once

namespace detred::verify::cli {

/// Keeps the tool's arguments for a restart (main calls it first).
void remember_arguments(int argc, char** argv);
/// Restarts the tool with OMP_WAIT_POLICY=passive unless the variable is set (then returns: the user's choice, or
/// the restarted tool). Nothing has been printed when it is called. Returns if the restart fails.
void prefer_passive_openmp_wait();

}  // namespace detred::verify::cli
