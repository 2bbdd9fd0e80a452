// SPDX-License-Identifier: BSD-3-Clause
// How inputs are named on the command line: FILE, FILE:VARIABLE (a NetCDF or HDF5 variable, or a safetensors
// tensor), a directory, or a glob pattern.
#pragma once

#include <string>
#include <vector>

namespace detred::verify {

struct input_spec {
  std::string file;      ///< the file (or directory, or pattern) part
  std::string variable;  ///< empty when the whole file is the input
};

/// Splits "FILE:VARIABLE" at the first ':' whose left part exists (or, for a pattern, matches a file); a spec that
/// exists as a whole, or has no such ':', is a file alone. When nothing exists, a spec with a ':' is split at the
/// first one, so that the error names the missing file.
input_spec split_input_spec(const std::string& spec);
/// file, or file + ":" + variable.
std::string join_input_spec(const input_spec& spec);

/// Expands each spec: a directory becomes the regular files directly inside it (hidden files skipped), a pattern
/// with * ? or [ becomes the files it matches (glob(3)), each sorted by name; a variable applies to every file.
/// Anything else is kept as given. Throws input_error for an empty directory or a pattern that matches nothing.
std::vector<std::string> expand_inputs(const std::vector<std::string>& specs);

}  // namespace detred::verify
