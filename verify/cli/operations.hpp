// SPDX-License-Identifier: BSD-3-Clause
// The operations the tool runs (--op), which element types each accepts, how inputs become operands (dot pairs
// them), and one run of an operation on one compute path through the public API.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common.hpp"
#include "dataset.hpp"
#include "detred/catalogue.hpp"

namespace detred::verify::cli {

/// The operations of the library's catalogue (detred/catalogue.hpp); detred::to_string names them.
using op = detred::operation;

std::optional<op> parse_op(std::string_view name);

/// The element type the library reduces for a stored type: the narrow integers widen to int32 or uint32.
element_type reduced_as(dtype t);
/// "sum, dot, asum, nrm2, min, max, argmin, argmax or stats".
std::string op_names();
std::vector<std::string> op_name_list();

/// The operands of one reduction: x, and for dot y (same length and element type).
struct operands {
  std::string label;  ///< the input, or "X and Y" for dot's two inputs
  const dataset* x_data = nullptr;
  const dataset* y_data = nullptr;  ///< dot's second input; nullptr when x_data holds both columns (or no dot)
  dataset::values_type x;
  std::optional<dataset::values_type> y;
  dtype type = dtype::float64;  ///< the stored element type
  std::uint64_t n = 0;
};

/// Throws usage_error for a scan (cumsum, exclusive_cumsum) in a command that gives one result per operation
/// (reduce, record, a streamed verify): a scan has one output per element, and `detred verify` checks them.
void require_one_result(op o, const std::string& command);

/// The operands of `o` from the inputs, in order. For dot an input holding both columns (dataset::holds_pair) is
/// one pair; any other input takes the next one as its y. Throws input_error naming the input for: an element type
/// the operation does not accept, a dot input without a y, x and y of different lengths or types, an empty input
/// for a selection; usage_error for two text columns with another operation.
std::vector<operands> make_operands(op o, const std::vector<dataset>& inputs, const read_options& read);

/// Throws input_error naming `path` unless the catalogue has `o` for elements of t (as the library reduces them):
/// "--op asum does not read float16 elements (16-bit floats: sum, dot, cumsum and exclusive_cumsum)".
void require_accepts(op o, dtype t, const std::string& path);

/// The modes `o` runs in for element type t, as the catalogue has them for one array on the CPU: tree, compensated
/// and (sum, dot, asum of float and double) exact; tree alone for stats; none (one run, {nullopt}) for the
/// selections and integer sums, which are exact in every mode.
std::vector<std::optional<detred::mode>> modes_of(op o, dtype t);

/// One named result of a run: `name` is empty for the operations with one result, the member for stats ("count",
/// "sum", "mean", "variance", "sample_variance", "stddev", "sample_stddev", "min", "max").
struct output {
  std::string name;
  result_bits bits;
};

/// stats' members as named outputs, in the order run_op gives them (for results computed elsewhere: streaming).
std::vector<output> stats_members(const statistics<double>& s);
std::vector<output> stats_members(const statistics<float>& s);

/// Runs `o` on one compute path. An integer sum that does not fit its type comes back refused (the library's
/// message); every other library error propagates.
std::vector<output> run_op(op o, const operands& in, std::optional<detred::mode> m, const compute_path& path);

}  // namespace detred::verify::cli
