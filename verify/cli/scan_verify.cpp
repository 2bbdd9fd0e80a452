// SPDX-License-Identifier: BSD-3-Clause
// See scan_verify.hpp.
#include "scan_verify.hpp"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "detred/detred.hpp"
#include "exit_status.hpp"
#include "fault_hook.hpp"
#include "scan_check.hpp"

namespace detred::verify::cli {
namespace {

template <class T>
constexpr bool is_half_v = std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>;

/// The output type of a scan of In (detred/scan.hpp).
template <class In>
using output_t =
    std::conditional_t<is_half_v<In>, float,
                       std::conditional_t<std::is_integral_v<In>,
                                          std::conditional_t<std::is_signed_v<In>, std::int64_t, std::uint64_t>, In>>;

/// One mode's row: what every path computed and what the oracle found.
struct scan_row {
  std::optional<detred::mode> mode;  ///< nullopt for the integer scans (exact in every mode)
  std::uint64_t outputs = 0;
  std::size_t paths = 0;
  std::size_t same = 0;  ///< paths whose outputs are all bitwise equal to the first path's
  /// The first output where a path differs from the first path, with both values.
  struct difference {
    std::string path;
    std::uint64_t index = 0;
    result_bits got;
    result_bits first;
  };
  std::vector<difference> differences;
  std::string first_label;
  bool integer = false;
  // Floating point: the oracle's account of every output of the first path.
  scan_assessment floating;
  // Integers: the oracle's account, and the library's refusal (an output that does not fit its type).
  integer_scan_assessment exact;
  std::string refused;
  std::optional<std::uint64_t> worst;  ///< the output the row shows
  result_bits worst_bits;              ///< the first path's output there
  result_bits expected;                ///< the exact prefix sum there (correctly rounded for floating point)

  bool equal() const { return same == paths; }
  bool failed() const {
    if (!integer) return floating.failures > 0;
    if (!refused.empty()) return !exact.first_unfit;
    return exact.first_difference.has_value();
  }
};

std::string fixed3(double x) { return fmt::format("{:.3g}", x); }

template <class Out>
result_bits bits_at(const std::vector<Out>& y, std::uint64_t i) {
  return bits_of(y[i]);
}

template <class Out>
Out from_bits(const result_bits& r) {
  if constexpr (std::is_same_v<Out, double>) return std::bit_cast<double>(r.bits);
  if constexpr (std::is_same_v<Out, float>) return std::bit_cast<float>(static_cast<std::uint32_t>(r.bits));
  if constexpr (std::is_same_v<Out, std::int64_t>) return static_cast<std::int64_t>(r.bits);
  if constexpr (std::is_same_v<Out, std::uint64_t>) return r.bits;
}

/// The library's message without its "detred: " prefix (the tool adds its own).
std::string message_of(const detred::error& e) {
  std::string message = e.what();
  const std::string prefix = "detred: ";
  if (message.rfind(prefix, 0) == 0) message.erase(0, prefix.size());
  return message;
}

template <class In>
scan_row run_mode(op o, std::span<const In> x, std::optional<detred::mode> m, const std::vector<compute_path>& paths) {
  using Out = output_t<In>;
  const bool exclusive = o == op::exclusive_cumsum;
  const std::uint64_t n = x.size();
  scan_row row;
  row.mode = m;
  row.outputs = n;
  row.paths = paths.size();
  row.first_label = paths[0].label();
  row.integer = std::is_integral_v<In>;

  std::vector<std::vector<Out>> ys(paths.size(), std::vector<Out>(n));
  std::vector<std::string> refused(paths.size());
  for (std::size_t p = 0; p < paths.size(); ++p) {
    const detred::options opt{.mode = m.value_or(detred::mode::tree),
                              .threads = paths[p].threads,
                              .isa = paths[p].isa,
                              .backend = paths[p].where};
    try {
      if (exclusive) {
        detred::exclusive_cumsum(x, std::span<Out>(ys[p]), opt);
      } else {
        detred::cumsum(x, std::span<Out>(ys[p]), opt);
      }
    } catch (const detred::overflow_error& e) {  // an integer output that does not fit its type
      refused[p] = message_of(e);
    }
  }
  // The fault hook (tests only) sees the last output of every path, as it sees the sums' results.
  if (n > 0) {
    std::vector<path_result> runs;
    for (std::size_t p = 0; p < paths.size(); ++p) runs.push_back({paths[p].label(), bits_at(ys[p], n - 1)});
    inject_fault(runs);
    for (std::size_t p = 0; p < paths.size(); ++p) ys[p][n - 1] = from_bits<Out>(runs[p].bits);
  }
  for (std::size_t p = 0; p < paths.size(); ++p) {
    const bool same_refusal = refused[p] == refused[0];
    const bool both_refused = !refused[0].empty() && same_refusal;
    if (both_refused || (same_refusal && std::memcmp(ys[p].data(), ys[0].data(), n * sizeof(Out)) == 0)) {
      ++row.same;
      continue;
    }
    std::uint64_t i = 0;
    while (i < n && std::memcmp(&ys[p][i], &ys[0][i], sizeof(Out)) == 0) ++i;
    scan_row::difference d{paths[p].label(), i, {}, {}};
    if (!refused[p].empty()) d.got.refused = refused[p];
    if (!refused[0].empty()) d.first.refused = refused[0];
    if (i < n && refused[p].empty()) d.got = bits_at(ys[p], i);
    if (i < n && refused[0].empty()) d.first = bits_at(ys[0], i);
    row.differences.push_back(d);
  }

  if constexpr (std::is_integral_v<In>) {
    row.refused = refused[0];
    std::optional<std::span<const Out>> y;
    if (refused[0].empty()) y = std::span<const Out>(ys[0]);
    row.exact = check_integer_scan(x, y, exclusive);
    row.worst = row.exact.first_difference ? row.exact.first_difference : row.exact.first_unfit;
    if (!row.worst && n > 0) row.worst = n - 1;
    if (row.worst && refused[0].empty()) row.worst_bits = bits_at(ys[0], *row.worst);
    if (!refused[0].empty()) row.worst_bits.refused = refused[0];
    row.worst_bits.type = std::is_signed_v<In> ? dtype::int64 : dtype::uint64;
    row.expected = row.worst_bits;
  } else {
    row.floating = check_scan(x, std::span<const Out>(ys[0]), *m, exclusive);
    row.worst = row.floating.worst;
    if (row.worst) row.worst_bits = bits_at(ys[0], *row.worst);
    row.expected = bits_of(static_cast<Out>(row.floating.correctly_rounded));
  }
  return row;
}

/// The paths that have the scan `o` of the set's element type: the GPU only where the catalogue has it there.
std::vector<compute_path> paths_for(op o, const operands& in, const std::vector<compute_path>& paths) {
  std::vector<compute_path> out;
  for (const compute_path& p : paths) {
    if (catalogue::has(o, reduced_as(in.type), p.where, call_shape::array)) out.push_back(p);
  }
  return out;
}

/// What the header says of the GPU.
std::string cuda_text(op o, const operands& in, const std::vector<compute_path>& paths) {
  if (std::any_of(paths.begin(), paths.end(), [](const compute_path& p) { return p.where == backend::cuda; })) {
    return "compared";
  }
  if (!catalogue::has(o, reduced_as(in.type), backend::cuda, call_shape::array)) return "no scan";
  return "not available";
}

/// Every mode's row for one operand set.
std::vector<scan_row> run_rows(op o, const operands& in, const std::vector<compute_path>& paths) {
  return std::visit(
      [&](auto x) {
        using In = typename decltype(x)::value_type;
        std::vector<scan_row> rows;
        for (const std::optional<detred::mode>& m : modes_of(o, in.type)) rows.push_back(run_mode<In>(o, x, m, paths));
        return rows;
      },
      in.x);
}

std::string label_of(op o, const scan_row& w) { return w.mode ? detred::to_string(*w.mode) : to_string(o); }

std::string status_of(const scan_row& w) {
  if (w.integer) {
    if (!w.refused.empty()) return w.exact.first_unfit ? "refused, as it must" : "REFUSED, BUT FITS";
    return w.exact.first_difference ? "DIFFERS" : "equal";
  }
  if (!w.worst) return "no outputs";
  return to_string(w.floating.at_worst.status);
}

/// The line under a row: which output is the worst, and the account of every output.
std::string detail_line(const scan_row& w) {
  if (!w.worst) return "no outputs (n = 0)";
  const std::uint64_t i = *w.worst;
  if (w.integer) {
    if (!w.refused.empty()) return w.refused;
    if (w.exact.first_difference) {
      return fmt::format("output {} differs from the exact prefix sum; {} outputs checked", i, w.outputs);
    }
    return fmt::format("every one of the {} outputs equals the exact prefix sum", w.outputs);
  }
  const scan_assessment& a = w.floating;
  std::string out = fmt::format("worst output i = {}: {} (correctly rounded {}), {}", i, w.worst_bits.value(),
                                w.expected.value(), to_string(a.at_worst.status));
  if (a.at_worst.status == verdict::within_bound || a.at_worst.status == verdict::bound_violated) {
    out += fmt::format(": error {}, bound {}, error/bound {}", to_decimal(a.at_worst.error, 3),
                       fixed3(a.at_worst.bound_upper), fixed3(a.at_worst.error_over_bound));
  }
  out += fmt::format("; {} outputs checked, {} above their bounds", a.outputs, a.failures);
  if (a.overflows > 0) out += fmt::format(", {} overflowed (no bound applies)", a.overflows);
  if (a.specials > 0) out += fmt::format(", {} non-finite as IEEE requires", a.specials);
  return out;
}

int status_of_rows(const std::vector<scan_row>& rows) {
  for (const scan_row& w : rows) {
    if (!w.equal()) return bits_differ;
  }
  for (const scan_row& w : rows) {
    if (w.failed()) return bound_violated;
  }
  return success;
}

int report_text(op o, const operands& in, const std::vector<compute_path>& paths, const std::vector<scan_row>& rows) {
  const std::string missing = describe_missing(*in.x_data);
  std::printf("%s: %s, %s, %s, n = %llu%s%s; %zu paths (%s ... %s); cuda: %s\n", in.label.c_str(), to_string(o),
              to_string(in.x_data->format()), to_string(in.type), static_cast<unsigned long long>(in.n),
              missing.empty() ? "" : "; ", missing.c_str(), paths.size(), paths.front().label().c_str(),
              paths.back().label().c_str(), cuda_text(o, in, paths).c_str());
  const std::string header =
      fmt::format("  {:<16} {:<12} {:<25} {:<19} {:<15} {:>10} {:>10} {:>11}", "mode", "worst output", "value", "bits",
                  "backends equal", "error ulps", "bound", "error/bound");
  std::printf("%s\n", header.c_str());
  for (const scan_row& w : rows) {
    const std::string equal = w.equal() ? fmt::format("yes ({})", w.paths) : fmt::format("NO ({}/{})", w.same, w.paths);
    const bool bounded =
        !w.integer && w.worst &&
        (w.floating.at_worst.status == verdict::within_bound || w.floating.at_worst.status == verdict::bound_violated);
    std::string ulps = "-", bound = w.integer ? "exact" : "-", ratio = status_of(w);
    if (bounded) {
      ulps = fixed3(w.floating.at_worst.error_ulps);
      bound = fixed3(w.floating.at_worst.bound_upper);
      ratio = fixed3(w.floating.at_worst.error_over_bound);
    }
    std::printf("%s\n", fmt::format("  {:<16} {:<12} {:<25} {:<19} {:<15} {:>10} {:>10} {:>11}", label_of(o, w),
                                    w.worst ? std::to_string(*w.worst) : "-", w.worst ? w.worst_bits.value() : "-",
                                    w.worst ? w.worst_bits.hex() : "-", equal, ulps, bound, ratio)
                            .c_str());
    std::printf("    %s\n", detail_line(w).c_str());
    for (const scan_row::difference& d : w.differences) {
      std::printf("    %s differs from %s first at output %llu: %s (%s), %s (%s)\n", d.path.c_str(),
                  w.first_label.c_str(), static_cast<unsigned long long>(d.index), d.got.hex().c_str(),
                  d.got.value().c_str(), d.first.hex().c_str(), d.first.value().c_str());
    }
  }
  const int status = status_of_rows(rows);
  if (status == bits_differ) {
    std::printf("verdict %s: FAIL: outputs differ between backends (bitwise mismatch)\n", in.label.c_str());
  } else if (status == bound_violated) {
    std::printf("verdict %s: FAIL: %s\n", in.label.c_str(),
                rows[0].integer ? "an output differs from the exact prefix sum"
                                : "an output's error exceeds its documented bound");
  } else {
    std::printf(
        "verdict %s: PASS: %zu paths bitwise equal%s (%llu outputs each), %s\n", in.label.c_str(), rows[0].paths,
        rows.size() > 1 ? " per mode" : "", static_cast<unsigned long long>(in.n),
        rows[0].integer ? "every output equal to the exact prefix sum" : "every output within its documented bound");
  }
  return status;
}

nlohmann::ordered_json report_json(op o, const operands& in, const std::vector<compute_path>& paths,
                                   const std::vector<scan_row>& rows, int status) {
  nlohmann::ordered_json f;
  f["file"] = in.label;
  f["op"] = to_string(o);
  f["format"] = to_string(in.x_data->format());
  f["dtype"] = to_string(in.type);
  f["n"] = in.n;
  if (!in.x_data->missing_values().empty()) {
    f["missing_count"] = in.x_data->missing_count();
    f["missing_skipped"] = in.x_data->missing_skipped();
  }
  const std::string gpu = cuda_text(o, in, paths);
  f["cuda"] = gpu == "no scan" ? "not used: no scan on backend cuda" : gpu;
  for (const scan_row& w : rows) {
    nlohmann::ordered_json m;
    m["mode"] = w.mode ? nlohmann::ordered_json(detred::to_string(*w.mode)) : nlohmann::ordered_json(nullptr);
    m["outputs"] = w.outputs;
    m["backends_equal"] = w.equal();
    nlohmann::ordered_json differences = nlohmann::ordered_json::array();
    for (const scan_row::difference& d : w.differences) {
      differences.push_back({{"path", d.path}, {"index", d.index}, {"bits", d.got.hex()}, {"first", d.first.hex()}});
    }
    m["differences"] = differences;
    m["check"] = w.integer ? "exact" : "bound";
    if (!w.refused.empty()) m["refused"] = w.refused;
    nlohmann::ordered_json worst;
    if (w.worst) {
      worst["index"] = *w.worst;
      worst["value"] = w.worst_bits.value();
      worst["bits"] = w.worst_bits.hex();
      if (!w.integer) {
        const assessment& a = w.floating.at_worst;
        worst["correctly_rounded"] = {{"value", w.expected.value()}, {"bits", w.expected.hex()}};
        worst["depth"] = w.floating.depth;
        worst["correction_depth"] = w.floating.correction_depth;
        worst["error"] = to_decimal(a.error, 17);
        worst["error_ulps"] = a.error_ulps;
        worst["bound"] = shortest_decimal(a.bound_upper);
        worst["error_over_bound"] = a.error_over_bound;
        worst["relative_error"] = a.relative_error;
      }
      worst["status"] = status_of(w);
    }
    m["worst"] = w.worst ? worst : nlohmann::ordered_json(nullptr);
    if (w.integer) {
      m["first_difference"] = w.exact.first_difference ? nlohmann::ordered_json(*w.exact.first_difference)
                                                       : nlohmann::ordered_json(nullptr);
      m["first_unfit"] =
          w.exact.first_unfit ? nlohmann::ordered_json(*w.exact.first_unfit) : nlohmann::ordered_json(nullptr);
    } else {
      m["failures"] = w.floating.failures;
      m["overflows"] = w.floating.overflows;
      m["specials"] = w.floating.specials;
    }
    f["modes"].push_back(m);
  }
  f["verdict"] = status == success ? "pass" : status == bits_differ ? "bitwise mismatch" : "bound violated";
  return f;
}

}  // namespace

int verify_scans(op o, const std::vector<operands>& sets, const std::vector<compute_path>& paths, bool json) {
  // Every set is computed before anything is printed, as for the other operations.
  std::vector<std::vector<compute_path>> used;
  std::vector<std::vector<scan_row>> rows;
  for (const operands& in : sets) {
    used.push_back(paths_for(o, in, paths));
    rows.push_back(run_rows(o, in, used.back()));
  }
  int status = success;
  nlohmann::ordered_json all;
  for (std::size_t k = 0; k < sets.size(); ++k) {
    const int file_status = status_of_rows(rows[k]);
    if (json) {
      all["files"].push_back(report_json(o, sets[k], used[k], rows[k], file_status));
    } else {
      report_text(o, sets[k], used[k], rows[k]);
    }
    // A mismatch outranks a bound violation, as for the other operations.
    if (file_status == bits_differ || (file_status == bound_violated && status == success)) status = file_status;
  }
  if (json) {
    all["exit_status"] = status;
    std::printf("%s\n", all.dump(2).c_str());
  }
  return status;
}

}  // namespace detred::verify::cli
