// SPDX-License-Identifier: BSD-3-Clause
// Each subcommand registers itself on the app; its callback stores the exit status in `status`.
#pragma once

#include <CLI/CLI.hpp>

namespace detred::verify::cli {

void add_reduce_command(CLI::App& app, int& status);
void add_verify_command(CLI::App& app, int& status);
void add_record_command(CLI::App& app, int& status);
void add_check_command(CLI::App& app, int& status);
void add_gen_command(CLI::App& app, int& status);
void add_catalogue_command(CLI::App& app, int& status);

}  // namespace detred::verify::cli
