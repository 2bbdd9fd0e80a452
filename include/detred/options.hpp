// SPDX-License-Identifier: BSD-3-Clause
// Options shared by every reduction, and the library's exception type.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

// Exported from a shared libdetred, whose other symbols are hidden (cmake/DetredShared.cmake); function templates
// also each with [[gnu::visibility("default")]], which their explicit instantiations in lib/ need.
#pragma GCC visibility push(default)

struct CUstream_st;

namespace detred {

namespace cuda {
class workspace;
}

/// How the additions of the canonical order are carried out.
enum class mode {
  tree,         ///< plain additions; error <= gamma_D * sum|x_i|
  compensated,  ///< an error-free (sum, correction) pair through the same tree; see docs/error-bounds.md
  exact,        ///< the correctly rounded exact result; the catalogue (docs/operations.md) lists where (docs/exact.md)
};

/// Which CPU instruction set runs the lanes. Every choice gives the same bits; forcing one is for tests and for
/// chasing problems. `automatic` takes the best the CPU supports, unless the environment variable DETRED_ISA
/// (baseline, avx2, avx512, neon) names one; it is read once per process, at the first call that needs it.
enum class isa {
  automatic,
  baseline,  ///< x86-64 baseline (SSE2) or the target's portable code
  avx2,
  avx512,
  neon,  ///< AArch64 Advanced SIMD (128-bit vectors); every AArch64 CPU has it
};

/// Where a reduction runs. Every backend gives the same bits.
enum class backend {
  automatic,  ///< the CPU for host memory (the GPU entry points in detred/cuda.hpp take device memory)
  cpu,
  cuda,  ///< copies host data to the GPU and reduces it there; throws detred::error if CUDA is not built or present
};

/// Per-call options: every entry point takes its data, then these (host, CUDA, batches, pieces, MPI, reference).
/// An aggregate, so call sites read `{.mode = detred::mode::compensated, .threads = 4}`. A field a call has no use
/// for is ignored (threads and isa on the GPU, stream and workspace on the CPU); none changes the result bits.
struct options {
  detred::mode mode = detred::mode::tree;
  /// OpenMP threads; 0 = library default (the OpenMP default, normally the hardware thread count, or one thread
  /// while the machine is measured too busy for a team to pay: docs/performance.md). Threads only decide who
  /// computes which subtree: the result bits never depend on this value.
  int threads = 0;
  detred::isa isa = detred::isa::automatic;
  detred::backend backend = detred::backend::automatic;
  /// The CUDA stream a GPU call is ordered on (a cudaStream_t as it is; nullptr: the legacy default stream).
  ::CUstream_st* stream = nullptr;
  /// The workspace a GPU call uses (detred/cuda.hpp). nullptr: one the library keeps per (device, stream) pair,
  /// created at the first call and used by one call at a time. Pass your own to keep calls on one stream from
  /// waiting for each other's host side, or to control when device memory is allocated.
  cuda::workspace* workspace = nullptr;
};

/// The exception type detred throws: invalid arguments (unknown mode, negative thread count, an instruction set
/// this CPU lacks, a GPU call in a build without CUDA), and backend failures (device_error below). what() says which
/// argument or operation failed and why.
class error : public std::runtime_error {
 public:
  explicit error(const std::string& message) : std::runtime_error("detred: " + message) {}
};

/// A failure of the machine rather than of the arguments: a CUDA call that failed (no usable device, device memory
/// exhausted, a failed launch), with the CUDA error text. Catching detred::error catches it too.
class device_error : public error {
 public:
  using error::error;
};

/// An exact result that does not fit its type: an integer sum beyond int64 or uint64 (what() states the exact sum).
/// A type of its own so that callers can tell it from a bad argument (the C API returns DETRED_OVERFLOW for it,
/// Python raises OverflowError). Catching detred::error catches it too.
class overflow_error : public error {
 public:
  using error::error;
};

/// Lower-case names, as used by the command-line tool, DETRED_ISA and error messages.
const char* to_string(mode m);
const char* to_string(isa i);
const char* to_string(backend b);

/// The value whose to_string() is `name` (for isa and backend, "auto" also names automatic); nothing for any other
/// text. Exact and case-sensitive. E is mode, isa or backend.
template <class E>
[[gnu::visibility("default")]] std::optional<E> parse(std::string_view name);
extern template std::optional<mode> parse<mode>(std::string_view name);
extern template std::optional<isa> parse<isa>(std::string_view name);
extern template std::optional<backend> parse<backend>(std::string_view name);

/// Every name parse<E> accepts, for messages and help texts: "tree, compensated or exact".
template <class E>
[[gnu::visibility("default")]] std::string names();
extern template std::string names<mode>();
extern template std::string names<isa>();
extern template std::string names<backend>();

}  // namespace detred

#pragma GCC visibility pop
