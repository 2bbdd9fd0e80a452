// Names and validation of the public options.
#include <string>

#include <omp.h>

#include "detred/options.hpp"
#include "validate.hpp"

namespace detred {

const char* to_string(mode m) {
  switch (m) {
    case mode::tree:
      return "tree";
    case mode::compensated:
      return "compensated";
  }
  return "unknown";
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

mode validated(mode m) {
  if (m != mode::tree && m != mode::compensated) {
    throw error("unknown mode " + std::to_string(static_cast<int>(m)) + " (expected mode::tree or mode::compensated)");
  }
  return m;
}

backend validated(backend b) {
  if (b != backend::automatic && b != backend::cpu && b != backend::cuda) {
    throw error("unknown backend " + std::to_string(static_cast<int>(b)) + " (expected automatic, cpu or cuda)");
  }
  return b;
}

int validated_threads(int threads) {
  if (threads < 0) {
    throw error("threads must be >= 0 (0 = library default), got " + std::to_string(threads));
  }
  if (threads == 0) return omp_get_max_threads();
  return threads;
}

}  // namespace detred
