// The CUDA backend in a build without CUDA: the public API links, reports that no device is available, and every
// call that needs the GPU throws detred::error saying why.
#include <cstddef>
#include <cstdint>
#include <span>
#include <tuple>

#include "api/operators.hpp"
#include "cuda_backend.hpp"
#include "detred/cuda.hpp"

namespace detred {
namespace {

[[noreturn]] void no_cuda() {
  throw error("the CUDA backend was requested, but this build of detred has none (nvcc was not found at build time)");
}

}  // namespace

namespace cuda_backend {

bool available() { return false; }

template <class Op>
typename Op::result reduce_host(const order::operands<Op>&, std::uint64_t) {
  no_cuda();
}

template <class List>
struct instantiate_all;
template <class... Ops>
struct instantiate_all<op_list<Ops...>> {
  static constexpr std::tuple pointers{&reduce_host<Ops>...};
};
template struct instantiate_all<all_operators>;

}  // namespace cuda_backend

namespace cuda {

struct workspace::state {};

bool available() { return false; }
workspace::workspace() { no_cuda(); }
workspace::~workspace() = default;
workspace::workspace(workspace&&) noexcept = default;
workspace& workspace::operator=(workspace&&) noexcept = default;
int workspace::device() const { no_cuda(); }
std::size_t workspace::device_bytes() const { no_cuda(); }
void sum_async(std::span<const double>, double*, workspace&, mode, stream_t) { no_cuda(); }
void sum_async(std::span<const float>, float*, workspace&, mode, stream_t) { no_cuda(); }
double sum(std::span<const double>, workspace&, mode, stream_t) { no_cuda(); }
float sum(std::span<const float>, workspace&, mode, stream_t) { no_cuda(); }
double sum_host(std::span<const double>, workspace&, mode, stream_t) { no_cuda(); }
float sum_host(std::span<const float>, workspace&, mode, stream_t) { no_cuda(); }

}  // namespace cuda
}  // namespace detred
