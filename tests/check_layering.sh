#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The library's floors point down (docs/architecture.md): no file of the backends and engines (lib/cpu, lib/cuda,
# lib/exact, lib/partial, lib/reference) includes a header of lib/api, the floor of the public entry points that
# route to them. The pattern is checked against a file above them that does include lib/api, so that a change of
# include style cannot make this test pass by matching nothing.
# Usage: check_layering.sh SOURCE_DIR
set -euo pipefail
cd "$1/lib"
pattern='#include[[:space:]]+"(\.\./)?api/'
if ! grep -qE "$pattern" scan/scan_api.cpp; then
  echo "the pattern no longer matches lib/scan/scan_api.cpp's include of lib/api: update this script"
  exit 1
fi
upward=$(grep -rnE "$pattern" cpu cuda exact partial reference || true)
if [[ -n $upward ]]; then
  echo "files below lib/api that include it:"
  echo "$upward"
  exit 1
fi
echo "no file under lib/cpu, lib/cuda, lib/exact, lib/partial or lib/reference includes lib/api"
