// SPDX-License-Identifier: BSD-3-Clause
// See openmp_wait.hpp.
#include "openmp_wait.hpp"

#include <cstdio>
#include <cstdlib>

#include <unistd.h>

namespace detred::verify::cli {
namespace {
char** arguments = nullptr;
}  // namespace

void remember_arguments(int, char** argv) { arguments = argv; }

void prefer_passive_openmp_wait() {
  if (arguments == nullptr || std::getenv("OMP_WAIT_POLICY") != nullptr) return;
  if (::setenv("OMP_WAIT_POLICY", "passive", 1) != 0) return;
  std::fflush(nullptr);
  ::execv("/proc/self/exe", arguments);
  ::unsetenv("OMP_WAIT_POLICY");  // the restart failed: carry on as started
}

}  // namespace detred::verify::cli
