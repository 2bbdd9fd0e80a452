// The public entry points: check the arguments once, then hand over to a backend.
#include <span>

#include "cpu/cpu_sum.hpp"
#include "cuda_backend.hpp"
#include "detred/cpu.hpp"
#include "detred/sum.hpp"
#include "validate.hpp"

namespace detred {
namespace {

template <class T>
T sum_any(std::span<const T> x, const options& opt) {
  const mode m = validated(opt.mode);
  const int threads = validated_threads(opt.threads);
  const isa resolved = resolved_isa(opt.isa);
  if (validated(opt.backend) == backend::cuda) return cuda_backend::sum_host(x, m);
  return cpu::sum(x, m, threads, resolved);
}

}  // namespace

double sum(std::span<const double> x, const options& opt) { return sum_any(x, opt); }
float sum(std::span<const float> x, const options& opt) { return sum_any(x, opt); }

}  // namespace detred
