// SPDX-License-Identifier: BSD-3-Clause
// See operations.hpp.
#include "operations.hpp"

#include <array>
#include <span>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "detred/detred.hpp"
#include "input_error.hpp"

namespace detred::verify::cli {
namespace {

constexpr auto& all_ops = catalogue::operations;

template <class T>
constexpr bool is_integer_v = std::is_integral_v<T>;
template <class T>
constexpr bool is_half_v = std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>;

bool accepts(op o, dtype t) { return catalogue::has(o, reduced_as(t)); }

/// "16-bit floats: sum, dot, cumsum and exclusive_cumsum": the operations the catalogue has for t's class of element
/// types.
std::string accepted_list(dtype t) {
  const element_type e = reduced_as(t);
  std::vector<std::string> names;
  for (op o : all_ops) {
    if (catalogue::has(o, e)) names.emplace_back(to_string(o));
  }
  std::string out = catalogue::in(catalogue::halves, e)     ? "16-bit floats: "
                    : catalogue::in(catalogue::integers, e) ? "integers: "
                                                            : "floats: ";
  for (std::size_t k = 0; k < names.size(); ++k) {
    if (k > 0) out += k + 1 == names.size() ? " and " : ", ";
    out += names[k];
  }
  return out;
}

bool is_selection(op o) { return o == op::min || o == op::max || o == op::argmin || o == op::argmax; }

// The statistics as named outputs.
template <class T>
std::vector<output> stats_outputs(const statistics<T>& s) {
  return {{"count", bits_of(s.count)},
          {"sum", bits_of(s.sum)},
          {"mean", bits_of(s.mean)},
          {"variance", bits_of(s.variance)},
          {"sample_variance", bits_of(s.sample_variance)},
          {"stddev", bits_of(s.stddev)},
          {"sample_stddev", bits_of(s.sample_stddev)},
          {"min", bits_of(s.min)},
          {"max", bits_of(s.max)}};
}

// One call of the library for x of element type T (and y of the same type for dot): detred::reduce of the
// operation, its result of the catalogue's result type; stats gives its members.
template <class T>
std::vector<output> run_typed(op o, std::span<const T> x, std::span<const T> y, const detred::options& opt) {
  if constexpr (std::is_floating_point_v<T>) {
    if (o == op::stats) return stats_outputs(detred::stats(x, opt));
  }
  if (catalogue::is_scan(o) || o == op::stats) {  // scans: one output per element (scan_verify.cpp)
    throw std::logic_error(std::string("run_op: --op ") + to_string(o) + " for an element type it does not accept");
  }
  return detred::with_result_type<T>(o, [&]<class R>() -> std::vector<output> {
    R r{};
    if constexpr (std::is_same_v<R, std::int64_t> || std::is_same_v<R, std::uint64_t>) {
      if (catalogue::result_of(o, element_type_of<T>()) == catalogue::result_kind::wide) {
        try {
          detred::reduce(o, element_type_of<T>(), x.data(), x.size(), y.data(), y.size(), &r, opt);
        } catch (const detred::device_error&) {
          throw;
        } catch (const detred::error& e) {  // the exact sum does not fit the result type
          std::string message = e.what();
          const std::string prefix = "detred: ";  // detred::error's own; the tool adds its own prefix
          if (message.rfind(prefix, 0) == 0) message.erase(0, prefix.size());
          return {{"", result_bits{std::is_signed_v<R> ? dtype::int64 : dtype::uint64, 0, message}}};
        }
        return {{"", bits_of(r)}};
      }
    }
    if constexpr (std::is_same_v<R, statistics<double>> || std::is_same_v<R, statistics<float>>) {
      throw std::logic_error("run_op: stats runs above");
    } else {
      detred::reduce(o, element_type_of<T>(), x.data(), x.size(), y.data(), y.size(), &r, opt);
      return {{"", bits_of(r)}};
    }
  });
}

}  // namespace

// Here, not in verify/io/dtype.hpp: the readers (and their fuzzers) build without the library's headers.
element_type reduced_as(dtype t) {
  switch (t) {
    case dtype::float32:
      return element_type::float32;
    case dtype::float64:
      return element_type::float64;
    case dtype::float16:
      return element_type::float16;
    case dtype::bfloat16:
      return element_type::bfloat16;
    case dtype::int8:
    case dtype::int16:
    case dtype::int32:
      return element_type::int32;
    case dtype::int64:
      return element_type::int64;
    case dtype::uint8:
    case dtype::uint16:
    case dtype::uint32:
      return element_type::uint32;
    case dtype::uint64:
      return element_type::uint64;
  }
  return element_type::float64;
}

std::optional<op> parse_op(std::string_view name) {
  for (op o : all_ops) {
    if (name == to_string(o)) return o;
  }
  return std::nullopt;
}

std::vector<std::string> op_name_list() {
  std::vector<std::string> out;
  for (op o : all_ops) out.emplace_back(to_string(o));
  return out;
}

std::string op_names() {
  std::string out;
  for (std::size_t k = 0; k < all_ops.size(); ++k) {
    if (k > 0) out += k + 1 == all_ops.size() ? " or " : ", ";
    out += to_string(all_ops[k]);
  }
  return out;
}

std::vector<std::optional<detred::mode>> modes_of(op o, dtype t) {
  const element_type e = reduced_as(t);
  if (catalogue::mode_rule_of(o, e) == catalogue::mode_rule::exact) return {std::nullopt};
  std::vector<std::optional<detred::mode>> out;
  for (detred::mode m : catalogue::modes) {
    if (catalogue::supports(o, e, m, backend::cpu, call_shape::array)) out.emplace_back(m);
  }
  return out;
}

void require_one_result(op o, const std::string& command) {
  if (catalogue::is_scan(o)) {
    throw usage_error(command + " --op " + to_string(o) + ": a scan has one output per element; detred verify --op " +
                      to_string(o) + " (not streamed) checks every output");
  }
}

void require_accepts(op o, dtype t, const std::string& path) {
  if (!accepts(o, t)) {
    throw input_error(path, std::string("--op ") + to_string(o) + " does not read " + to_string(t) + " elements (" +
                                accepted_list(t) + ")");
  }
}

std::vector<operands> make_operands(op o, const std::vector<dataset>& inputs, const read_options& read) {
  if (o != op::dot && read.column.find(',') != std::string::npos) {
    throw usage_error("--column " + read.column + ": two columns are the x and y of --op dot");
  }
  std::vector<operands> out;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const dataset& x = inputs[k];
    require_accepts(o, x.type(), x.path());
    operands in;
    in.x_data = &x;
    in.type = x.type();
    if (o == op::dot && x.holds_pair()) {
      const auto columns = x.columns();
      in.label = x.path();
      in.x = columns[0];
      in.y = columns[1];
    } else if (o == op::dot) {
      if (k + 1 == inputs.size()) {
        throw input_error(x.path(),
                          "--op dot needs a y: give it as the next input, or give one array of shape (n, 2) (x in "
                          "column 0, y in column 1) or two text columns (--column A,B)");
      }
      const dataset& y = inputs[++k];
      if (y.type() != x.type()) {
        throw input_error(y.path(), std::string("holds ") + to_string(y.type()) + " elements, its x (" + x.path() +
                                        ") " + to_string(x.type()) + ": dot needs one element type");
      }
      if (y.size() != x.size()) {
        throw input_error(y.path(), "holds " + std::to_string(y.size()) + " elements, its x (" + x.path() + ") " +
                                        std::to_string(x.size()) + ": dot needs equal lengths");
      }
      in.label = x.path() + " and " + y.path();
      in.y_data = &y;
      in.x = x.values();
      in.y = y.values();
    } else {
      in.label = x.path();
      in.x = x.values();
    }
    in.n = std::visit([](auto s) { return static_cast<std::uint64_t>(s.size()); }, in.x);
    if (is_selection(o) && in.n == 0) {
      throw input_error(x.path(),
                        std::string("an empty array has no ") + to_string(o) + " (it needs at least 1 element)");
    }
    out.push_back(std::move(in));
  }
  return out;
}

std::vector<output> stats_members(const statistics<double>& s) { return stats_outputs(s); }
std::vector<output> stats_members(const statistics<float>& s) { return stats_outputs(s); }

std::vector<output> run_op(op o, const operands& in, std::optional<detred::mode> m, const compute_path& path) {
  const detred::options opt{
      .mode = m.value_or(detred::mode::tree), .threads = path.threads, .isa = path.isa, .backend = path.where};
  return std::visit(
      [&](auto x) {
        using T = typename decltype(x)::value_type;
        std::span<const T> y;
        if (in.y) y = std::get<std::span<const T>>(*in.y);
        return run_typed<T>(o, x, y, opt);
      },
      in.x);
}

}  // namespace detred::verify::cli
