#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Fails if clang-format (with the repository's .clang-format) would change any C, C++ or CUDA source in the tree.
# Usage: check_format.sh SOURCE_DIR
set -euo pipefail
cd "$1"
if ! command -v clang-format >/dev/null; then
  echo "clang-format is not installed (tools/setup.sh installs it)"
  exit 1
fi
unformatted=$(git ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh' '*.inl' '*.c' '*.h' | while read -r f; do
  clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || echo "$f"
done)
if [[ -n $unformatted ]]; then
  echo "clang-format would change:"
  echo "$unformatted"
  exit 1
fi
echo "all sources formatted"
