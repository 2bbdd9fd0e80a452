// SPDX-License-Identifier: BSD-3-Clause
// Streaming mode of reduce, verify, record and check: each input is read once, chunk by chunk
// (element_stream.hpp), and every chunk feeds a partial state per computation (detred/partial.hpp: the bits of the
// single-array call whatever the chunk sizes), the oracle's accumulators, the SHA-256 and the progress bar. Used
// with --stream, or automatically for an input larger than the memory budget. The GPU is not used in this mode.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "common.hpp"
#include "element_stream.hpp"
#include "op_oracle.hpp"
#include "operations.hpp"

namespace detred::verify::cli {

/// Bytes an input's data may take before the tool streams it: DETRED_MEMORY_BUDGET (bytes, or with a K, M or G
/// suffix, powers of 1024), or half the physical memory. Throws usage_error for a malformed value.
std::uint64_t memory_budget();

/// --stream and --chunk-bytes (0: not given).
struct stream_options {
  bool stream = false;
  std::uint64_t chunk_bytes = 0;
};
void add_stream_options(CLI::App& command, stream_options& options);

/// Bytes each stream reads at a time: --chunk-bytes, or else the memory budget / budget_chunks (between 64 KiB and
/// default_chunk_bytes), so that the reading's buffers stay within the budget.
std::uint64_t chunk_bytes_of(const stream_options& options);
/// Chunk-sized buffers that may be alive at once: two inputs (dot's x and y), each with its read buffer, its
/// converted chunk and the read-ahead's two copies, the last three up to twice the bytes read (narrow types widened).
inline constexpr std::uint64_t budget_chunks = 16;

/// True for --stream, or when an input holds more bytes of data than memory_budget(). Opens (and checks) each input.
bool should_stream(const stream_options& options, const std::vector<std::string>& inputs, const read_options& read);

/// One operand set read as streams: x, and dot's y as its own input (or both in x: an (n, 2) array, two columns).
struct stream_set {
  std::unique_ptr<element_stream> x;
  std::unique_ptr<element_stream> y;
};

/// The inputs opened as streams and grouped into operand sets of `o` as make_operands groups them, with the checks
/// that need no element (element types, a dot input without a y, x and y of different types or known lengths).
std::vector<stream_set> open_stream_sets(op o, const std::vector<std::string>& inputs, const read_options& read,
                                         std::uint64_t chunk_bytes);

/// One computation of a streaming pass: an operation in a mode on a CPU path.
struct stream_job {
  op o = op::sum;
  std::optional<detred::mode> mode;
  compute_path path;
};

/// What one pass over an operand set gives.
struct stream_outcome {
  operands in;                               ///< label, the inputs' info, an empty span of the type, n
  std::vector<std::vector<output>> results;  ///< per job, as run_op gives them
  std::unique_ptr<op_oracle> oracle;         ///< finished, when asked for
  std::string x_sha256, y_sha256;
};

/// Reads the set once: every job's result, the oracle of `oracle_op` when given, the SHA-256 of each input when
/// `digest` (record, check).
/// Throws input_error for bad input found while reading (the stream's own errors; x and y of different lengths; an
/// empty input for a selection).
stream_outcome run_stream(stream_set& set, const std::vector<stream_job>& jobs, std::optional<op> oracle_op,
                          const std::string& progress_label, bool digest = false);

}  // namespace detred::verify::cli
