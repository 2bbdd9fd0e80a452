// SPDX-License-Identifier: BSD-3-Clause
// detred catalogue: the library's support matrix (detred/catalogue.hpp) as text, Markdown or JSON. The support table
// of docs/operations.md is this command's Markdown; tests/check_catalogue_doc.sh fails when the two differ.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "detred/catalogue.hpp"
#include "exit_status.hpp"

namespace detred::verify::cli {
namespace {

struct catalogue_options {
  bool markdown = false;
  bool json = false;
};

/// "tce": the modes (tree, compensated, exact) op over t has on backend b in shape s; "any" for the operations exact
/// in every mode; "" where the combination does not exist.
std::string modes_cell(operation op, element_type t, backend b, call_shape s) {
  if (!catalogue::has(op, t, b, s)) return "";
  if (catalogue::mode_rule_of(op, t) == catalogue::mode_rule::exact) return "any";
  std::string out;
  for (mode m : catalogue::modes) {
    if (catalogue::supports(op, t, m, b, s)) out += to_string(m)[0];
  }
  return out;
}

/// "cpu tce, cuda tc": one shape's cell over both backends; "-" where neither has it.
std::string shape_cell(operation op, element_type t, call_shape s) {
  std::string out;
  for (backend b : catalogue::backends) {
    const std::string modes = modes_cell(op, t, b, s);
    if (modes.empty()) continue;
    if (!out.empty()) out += ", ";
    out += std::string(to_string(b)) + " " + modes;
  }
  return out.empty() ? "-" : out;
}

const char* result_name(operation op, element_type t) {
  switch (catalogue::result_of(op, t)) {
    case catalogue::result_kind::element:
      return "element";
    case catalogue::result_kind::float32:
      return "float32";
    case catalogue::result_kind::wide:
      return "int64 / uint64";
    case catalogue::result_kind::index:
      return "uint64 index";
    case catalogue::result_kind::statistics:
      return "statistics";
  }
  return "?";
}

/// One row of the table: an operation over a run of element types whose cells are all equal.
struct row {
  operation op;
  std::vector<element_type> types;
  std::vector<std::string> cells;  // result, then one per call shape
};

std::vector<row> rows() {
  std::vector<row> out;
  for (operation op : catalogue::operations) {
    for (element_type t : catalogue::element_types) {
      if (!catalogue::has(op, t)) continue;
      std::vector<std::string> cells{result_name(op, t)};
      for (call_shape s : catalogue::call_shapes) cells.push_back(shape_cell(op, t, s));
      if (!out.empty() && out.back().op == op && out.back().cells == cells) {
        out.back().types.push_back(t);
      } else {
        out.push_back({op, {t}, cells});
      }
    }
  }
  return out;
}

std::string joined(const std::vector<element_type>& types) {
  std::string out;
  for (element_type t : types) out += (out.empty() ? "" : ", ") + std::string(to_string(t));
  return out;
}

void print_markdown() {
  std::string header = "| operation | element types | result |";
  std::string rule = "|---|---|---|";
  for (call_shape s : catalogue::call_shapes) {
    header += std::string(" ") + to_string(s) + " |";
    rule += "---|";
  }
  std::printf("%s\n%s\n", header.c_str(), rule.c_str());
  for (const row& r : rows()) {
    std::string line = std::string("| ") + to_string(r.op) + " | " + joined(r.types) + " |";
    for (const std::string& cell : r.cells) line += " " + cell + " |";
    std::printf("%s\n", line.c_str());
  }
}

void print_json() {
  nlohmann::json entries = nlohmann::json::array();
  for (operation op : catalogue::operations) {
    for (element_type t : catalogue::element_types) {
      for (backend b : catalogue::backends) {
        for (call_shape s : catalogue::call_shapes) {
          nlohmann::json modes = nlohmann::json::array();
          for (mode m : catalogue::modes) {
            if (catalogue::supports(op, t, m, b, s)) modes.push_back(to_string(m));
          }
          if (modes.empty()) continue;
          entries.push_back({{"operation", to_string(op)},
                             {"element_type", to_string(t)},
                             {"backend", to_string(b)},
                             {"call_shape", to_string(s)},
                             {"modes", modes},
                             {"mode_applies", catalogue::mode_rule_of(op, t) != catalogue::mode_rule::exact},
                             {"result", result_name(op, t)}});
        }
      }
    }
  }
  std::printf("%s\n", entries.dump(1).c_str());
}

void print_text() {
  for (const row& r : rows()) {
    std::printf("%s of %s -> %s\n", to_string(r.op), joined(r.types).c_str(), r.cells[0].c_str());
    for (std::size_t k = 0; k < catalogue::call_shapes.size(); ++k) {
      if (r.cells[k + 1] != "-")
        std::printf("  %-14s %s\n", to_string(catalogue::call_shapes[k]), r.cells[k + 1].c_str());
    }
  }
}

}  // namespace

void add_catalogue_command(CLI::App& app, int& status) {
  auto o = std::make_shared<catalogue_options>();
  CLI::App* c = app.add_subcommand(
      "catalogue",
      "Print what the library supports: each operation, element type, call shape and backend with its modes (t: tree, "
      "c: compensated, e: exact; any: exact in every mode)");
  c->add_flag("--markdown", o->markdown, "Print the table of docs/operations.md");
  c->add_flag("--json", o->json, "Print every supported combination as a JSON array");
  c->callback([o, &status] {
    if (o->json) {
      print_json();
    } else if (o->markdown) {
      print_markdown();
    } else {
      print_text();
    }
    status = success;
  });
}

}  // namespace detred::verify::cli
