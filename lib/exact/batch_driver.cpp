// SPDX-License-Identifier: BSD-3-Clause
// Exact mode's driver for batches: which thread reduces which line, and how strided lines reach the kernel. The
// arithmetic is the single-array kernel's (block_kernel.inl through the exact_kernels table) and the rounding is
// exact::round_to; a line's state holds its exact value whoever filled it and in whatever pieces, so no split here
// can change a bit.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include <omp.h>

#include "cpu/isa_selection.hpp"
#include "cpu/line_chunks.hpp"
#include "detred/exact/exact_ops.hpp"
#include "exact_backend.hpp"
#include "exact_batches.hpp"
#include "exact_kernels.hpp"
#include "reused_state.hpp"
#include "widened.hpp"

namespace detred::exact_cpu {
namespace {

/// The threads for a batch of `bytes` of input: one below the single-array threshold (waking a second thread costs
/// more than it saves there), the requested count otherwise.
int team_for(std::uint64_t bytes, const cpu::run_options& how) {
  const std::uint64_t threshold = threshold_bytes(how);
  const int requested = how.threads > 0 ? how.threads : omp_get_max_threads();
  return requested <= 1 || bytes < threshold ? 1 : requested;
}

/// Strided lines go through the kernel a panel of adjacent lines at a time: each row of the panel is one
/// contiguous read of `panel_bytes` (whole cache lines), copied into a piece of up to `piece_rows` elements per line
/// (one kernel block), so that the kernel reads contiguous memory as it does for one array. The panel's states
/// (32 or 64 of 1.1 KiB) and the piece (about 256 KiB) stay in L2 however many lines there are, rather than one state
/// per line for millions of lines.
constexpr std::uint64_t panel_bytes = 256;
constexpr std::uint64_t piece_rows = 1024;
/// The lines of a piece lie a cache line more than 8 KiB (4 KiB for floats) apart: at exactly that distance the
/// copy's stores would all fall into the same few sets of the L1 cache.
constexpr std::uint64_t piece_pad_bytes = 64;
/// Rows a leading dimension apart defeat the hardware prefetchers (they stop at page boundaries), so the copy asks
/// for the panel's part of the row this many rows ahead.
constexpr std::uint64_t prefetch_rows = 8;

template <class T>
void prefetch_row(const T* row, std::uint64_t elements) {
  for (std::uint64_t b = 0; b < elements * sizeof(T); b += 64) {
    __builtin_prefetch(reinterpret_cast<const char*>(row) + b);
  }
}

}  // namespace

template <class T>
void reduce_lines(line_op op, exact::finish f, const T* x, const T* y, const cpu::line_set& lines, std::uint64_t count,
                  kernel_type<T>* results, const cpu::run_options& how) {
  using R = kernel_type<T>;
  if (count == 0) return;
  const exact_kernels& table = kernels_for(cpu::resolve(how.instruction_set));
  const auto sum = sum_kernel<R>(table, op == line_op::asum);
  const auto dot = dot_kernel<R>(table);
  // A norm's squares are the products of x with itself.
  const bool products = op == line_op::dot || op == line_op::squares;
  const T* const second = op == line_op::squares ? x : y;
  const std::uint64_t element_bytes = (op == line_op::dot ? 2 : 1) * sizeof(T);
  const std::uint64_t total = lines.offsets != nullptr ? lines.offsets[count] - lines.offsets[0] : count * lines.length;
  const int team = team_for(total * element_bytes, how);

  // A line longer than an even share of the batch (and than one array's threshold) is split among every thread by
  // the single-array driver, so that one long line among short ones does not keep the other threads waiting.
  std::uint64_t longest = ~std::uint64_t{0};
  if (team > 1) {
    longest = std::max<std::uint64_t>(threshold_bytes(how) / element_bytes, total / static_cast<std::uint64_t>(team));
  }

  // Each chunk reuses one state, emptied after each line (reused_state).
  cpu::reduce_in_chunks(
      lines, count, static_cast<std::uint64_t>(team) * 16, team, longest,
      [&](std::uint64_t begin, std::uint64_t end) {
        reused_state line;
        std::uint64_t left = 0;
        for (std::uint64_t k = begin; k < end; ++k) {
          const std::uint64_t n = lines.size(k), s = lines.start(k);
          if (n > longest) {
            ++left;
            continue;
          }
          if constexpr (is_half<T>) {
            widened_grains(x + s, products ? second + s : nullptr, n,
                           [&](const float* a, const float* b, std::uint64_t m) {
                             if (products) {
                               dot(line.state(), a, b, m);
                             } else {
                               sum(line.state(), a, m);
                             }
                           });
          } else if (products) {
            dot(line.state(), x + s, second + s, n);
          } else {
            sum(line.state(), x + s, n);
          }
          results[k] = line.take<R>(f, n);
        }
        return left;
      },
      [&](std::uint64_t k, std::uint64_t n) {
        const std::uint64_t s = lines.start(k);
        const superaccumulator a =
            products ? dot_state(x + s, second + s, n, how) : sum_state(x + s, n, op == line_op::asum, how);
        results[k] = exact::finish_to<R>(f, a, n);
      });
}

template <class T>
void reduce_strided_lines(line_op op, exact::finish f, const T* x, std::uint64_t length, std::uint64_t stride,
                          std::uint64_t count, kernel_type<T>* results, const cpu::run_options& how) {
  // R: what the kernels read and the results are; the piece holds rows widened to it (exactly: 16-bit floats).
  using R = kernel_type<T>;
  if (count == 0) return;
  const exact_kernels& table = kernels_for(cpu::resolve(how.instruction_set));
  const auto sum = sum_kernel<R>(table, op == line_op::asum);
  const auto dot = dot_kernel<R>(table);
  // What a line's state becomes: its rounded value, the rounded square root (nrm2) or quotient by its length (mean).
  const auto finish = [f, length](const superaccumulator& a) { return exact::finish_to<R>(f, a, length); };
  const int team = team_for(count * length * sizeof(T), how);
  // A panel's width in lines from the kernels' element size, so that 16-bit rows (read 128 bytes at a time) keep
  // the float piece and states within the same L2 budget.
  constexpr std::uint64_t width = panel_bytes / sizeof(R);
  constexpr std::uint64_t piece_stride = piece_rows + piece_pad_bytes / sizeof(R);
  const std::uint64_t panels = (count + width - 1) / width;
  const std::uint64_t pieces = (length + piece_rows - 1) / piece_rows;
  // Fewer panels than threads (a tall, narrow matrix): the rows are split too, each part filling states of its own,
  // and the parts' states of a line merge exactly.
  const std::uint64_t parts =
      panels >= static_cast<std::uint64_t>(team)
          ? 1
          : std::max<std::uint64_t>(1, std::min<std::uint64_t>(pieces, (team + panels - 1) / panels));
  std::vector<superaccumulator> merged(parts > 1 ? count : 0, exact::empty_superaccumulator());

#pragma omp parallel num_threads(team)
  {
    std::vector<superaccumulator> acc(width);
    const std::unique_ptr<R[]> piece(new R[width * piece_stride]);
#pragma omp for schedule(dynamic, 1)
    for (std::uint64_t item = 0; item < panels * parts; ++item) {
      const std::uint64_t first = item / parts * width;
      const std::uint64_t lines = std::min(width, count - first);
      const std::uint64_t part = item % parts;
      const std::uint64_t row_begin = pieces * part / parts * piece_rows;
      const std::uint64_t row_end = std::min(length, pieces * (part + 1) / parts * piece_rows);
      for (std::uint64_t j = 0; j < lines; ++j) acc[j] = exact::empty_superaccumulator();
      for (std::uint64_t r = row_begin; r < row_end; r += piece_rows) {
        const std::uint64_t rows = std::min(piece_rows, row_end - r);
        for (std::uint64_t i = 0; i < rows; ++i) {
          if (r + i + prefetch_rows < row_end) prefetch_row(x + (r + i + prefetch_rows) * stride + first, lines);
          const T* row = x + (r + i) * stride + first;
          for (std::uint64_t j = 0; j < lines; ++j) piece[j * piece_stride + i] = widen(row[j]);
        }
        for (std::uint64_t j = 0; j < lines; ++j) {
          const R* line = piece.get() + j * piece_stride;
          if (op == line_op::squares) {
            dot(acc[j], line, line, rows);
          } else {
            sum(acc[j], line, rows);
          }
        }
      }
      if (parts == 1) {
        for (std::uint64_t j = 0; j < lines; ++j) results[first + j] = finish(acc[j]);
      } else {
#pragma omp critical(detred_exact_strided_merge)
        for (std::uint64_t j = 0; j < lines; ++j) exact::merge(merged[first + j], acc[j]);
      }
    }
  }
  for (std::uint64_t t = 0; t < merged.size(); ++t) results[t] = finish(merged[t]);
}

#define DETRED_EXACT_BATCHES(T)                                                                                     \
  template void reduce_lines(line_op, exact::finish, const T*, const T*, const cpu::line_set&, std::uint64_t,       \
                             kernel_type<T>*, const cpu::run_options&);                                             \
  template void reduce_strided_lines(line_op, exact::finish, const T*, std::uint64_t, std::uint64_t, std::uint64_t, \
                                     kernel_type<T>*, const cpu::run_options&);
DETRED_EXACT_BATCHES(double)
DETRED_EXACT_BATCHES(float)
DETRED_EXACT_BATCHES(float16)
DETRED_EXACT_BATCHES(bfloat16)
#undef DETRED_EXACT_BATCHES

}  // namespace detred::exact_cpu
