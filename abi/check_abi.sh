#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The ABI check: compares the shared libraries of a DETRED_SHARED build (configured with -g: abidw reads the types
# from the debug information) with the baseline of the last release, abi/<library>.abi.gz (abidw/abidiff of
# Debian's abigail-tools).
# Only the public headers' types count (--headers-dir include/); the internals are hidden (cmake/DetredShared.cmake).
#   check_abi.sh BUILD_DIR            exit 0: the same ABI, or only additions (listed); 1: any other change (a function
#                                     removed or changed, a public type changed), with abidiff's report
#   check_abi.sh BUILD_DIR --update   writes the baseline anew (at a release, docs/compatibility.md says when)
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR [--update]}
update=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(dirname "$here")
work=$build/abi
mkdir -p "$work"
status=0
for name in libdetred libdetred_c libdetred_mpi; do
  lib=$(find "$build/lib" -name "$name.so" -print -quit)
  if [[ -z $lib ]]; then
    [[ $name == libdetred_mpi ]] && continue  # built only where MPI is found
    echo "check_abi: $build has no $name.so (configure with -DDETRED_SHARED=ON)" >&2
    exit 2
  fi
  # abidw.suppr says what is left out. No paths or source lines: the same library gives the same file anywhere.
  abidw --headers-dir "$source_dir/include" --headers-dir "$build/include" --drop-private-types \
    --suppressions "$here/abidw.suppr" --no-corpus-path --no-comp-dir-path --no-show-locs --type-id-style hash \
    --out-file "$work/$name.abi" "$lib"
  # Stored compressed (a few MB of XML each, 5 % of it compressed).
  baseline=$here/$name.abi.gz
  if [[ $update == --update ]]; then
    gzip -9n <"$work/$name.abi" >"$baseline"
    echo "check_abi: wrote $baseline"
    continue
  fi
  [[ -f $baseline ]] || { echo "check_abi: no baseline $baseline (run with --update at a release)" >&2; exit 2; }
  gunzip <"$baseline" >"$work/$name.baseline.abi"
  baseline=$work/$name.baseline.abi
  # abidiff's exit status is a bit mask: 1 error, 2 usage, 4 an ABI change, 8 one known to be incompatible. A
  # changed parameter or type sets only 4, as do additions: so additions are left out (--no-added-syms) to judge,
  # and listed apart.
  rc=0
  abidiff --no-added-syms "$baseline" "$work/$name.abi" >"$work/$name.diff" 2>&1 || rc=$?
  if ((rc & 3)); then
    cat "$work/$name.diff" >&2
    echo "check_abi: $name: abidiff failed (exit $rc)" >&2
    exit 2
  elif ((rc & 12)); then
    cat "$work/$name.diff" >&2
    echo "check_abi: $name: the ABI of the last release changed (abidiff exit $rc): callers built against it break" >&2
    status=1
    continue
  fi
  rc=0
  abidiff "$baseline" "$work/$name.abi" >"$work/$name.diff" 2>&1 || rc=$?
  if ((rc & 4)); then
    cat "$work/$name.diff"
    echo "check_abi: $name: additions only (above), compatible with the last release"
  else
    echo "check_abi: $name: the same ABI as the last release"
  fi
done
exit $status
