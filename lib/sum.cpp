// The public entry points: check the arguments once, then hand over to a backend.
#include <span>

#include "cpu/cpu_sum.hpp"
#include "detred/cpu.hpp"
#include "detred/sum.hpp"
#include "validate.hpp"

namespace detred {
namespace {

template <class T>
T sum_any(std::span<const T> x, const options& opt) {
  const mode m = validated(opt.mode);
  const int threads = validated_threads(opt.threads);
  return cpu::sum(x, m, threads, resolved_isa(opt.isa));
}

}  // namespace

double sum(std::span<const double> x, const options& opt) { return sum_any(x, opt); }
float sum(std::span<const float> x, const options& opt) { return sum_any(x, opt); }

}  // namespace detred
