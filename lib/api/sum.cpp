// The front door of detred::sum: validate the options, then route to a backend. Nothing else happens here.
#include <span>

#include "cpu/cpu_backend.hpp"
#include "cuda/cuda_backend.hpp"
#include "detred/sum.hpp"
#include "sum_operators.hpp"
#include "validate.hpp"

namespace detred {
namespace {

template <class T>
T sum_any(std::span<const T> x, const options& opt) {
  validate(opt);
  if (opt.backend == backend::cuda) return cuda_backend::sum_host(x, opt.mode);
  return with_sum_operator<T>(
      opt.mode, [&]<class Op>() { return cpu::reduce<Op>(x, {.threads = opt.threads, .instruction_set = opt.isa}); });
}

}  // namespace

double sum(std::span<const double> x, const options& opt) { return sum_any(x, opt); }
float sum(std::span<const float> x, const options& opt) { return sum_any(x, opt); }

}  // namespace detred
