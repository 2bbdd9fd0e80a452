// SPDX-License-Identifier: BSD-3-Clause
// detred: reduce, verify, record, check, generate datasets and print the catalogue. Every failure is one line on stderr
// and an exit status from exit_status.hpp; JSON goes to stdout only when the whole command succeeded in producing it.
#include <cstdio>
#include <exception>
#include <new>
#include <string>

#include <mpfr.h>
#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "common.hpp"
#include "detred/version.hpp"
#include "exit_status.hpp"
#include "input_error.hpp"
#include "openmp_wait.hpp"

int main(int argc, char** argv) {
  using namespace detred::verify::cli;
  remember_arguments(argc, argv);
  CLI::App app{"detred: deterministic sums, verified against an exact oracle"};
  // The three versions a result depends on (docs/compatibility.md): the library, the canonical order (the bits of
  // every result) and the partial states' byte format.
  app.set_version_flag("--version", std::string("detred ") + detred::library_version + ", order version " +
                                        std::to_string(detred::order_version) + ", state format version " +
                                        std::to_string(detred::state_format_version));
  app.require_subcommand(1);
  int status = success;
  add_reduce_command(app, status);
  add_verify_command(app, status);
  add_record_command(app, status);
  add_check_command(app, status);
  add_gen_command(app, status);
  add_catalogue_command(app, status);

  int code = success;
  try {
    app.parse(argc, argv);
    code = status;
  } catch (const CLI::CallForHelp& e) {
    code = app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    code = app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    code = app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "detred: %s (see detred --help)\n", e.what());
    code = bad_input;
  } catch (const detred::verify::input_error& e) {
    std::fprintf(stderr, "detred: %s\n", e.what());
    code = bad_input;
  } catch (const usage_error& e) {
    std::fprintf(stderr, "detred: %s\n", e.what());
    code = bad_input;
  } catch (const detred::device_error& e) {
    std::fprintf(stderr, "%s\n", e.what());  // already starts with "detred: "
    code = internal_failure;
  } catch (const detred::error& e) {
    std::fprintf(stderr, "%s\n", e.what());  // an option the library refused: bad usage
    code = bad_input;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "detred: out of memory\n");
    code = internal_failure;
  } catch (const std::exception& e) {
    // Everything else is the tool's own failure, not the input's: a file it cannot write, a libcrypto error.
    std::fprintf(stderr, "detred: %s\n", e.what());
    code = internal_failure;
  }
  mpfr_free_cache();
  return code;
}
