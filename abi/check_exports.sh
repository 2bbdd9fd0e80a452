#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Checks that shared detred libraries export detred's names only: every defined dynamic symbol (objdump -T) is a C++
# name of namespace detred, a C API function detred_*, or a procedure of the Fortran module; no instantiation of the
# standard library's templates, no OpenMP, MPFR, GMP or CUDA runtime symbol (cmake/DetredShared.cmake says how).
# Usage: check_exports.sh LIBRARY.so...   Exit 0 when all pass, 1 with the offending symbols listed.
set -euo pipefail
(($#)) || { echo "usage: $0 LIBRARY.so..." >&2; exit 2; }
status=0
for lib in "$@"; do
  # Defined symbols of the dynamic table: objdump -T prints *UND* in the section column of the undefined ones.
  mapfile -t names < <(objdump -T "$lib" | awk '/^[0-9a-f]+ / && $0 !~ /\*UND\*/ { print $NF }' | sort -u)
  ((${#names[@]})) || { echo "$lib: no exported symbols at all" >&2; status=1; continue; }
  # The qualified name alone: template arguments and parameter lists dropped, so that an instantiation of std:: over
  # a detred type ("std::vector<detred::x>::f", "void std::sort<detred::x*>(...)") is not taken for detred's.
  mapfile -t demangled < <(printf '%s\n' "${names[@]}" | c++filt)
  mapfile -t bare < <(printf '%s\n' "${demangled[@]}" | sed -E ':a; s/<[^<>]*>//; ta; s/\(.*//')
  bad=()
  for i in "${!names[@]}"; do
    if [[ ${bare[i]} =~ (^|[[:space:]])detred:: ]]; then continue; fi  # C++: detred's functions, classes, variables
    if [[ ${names[i]} =~ ^detred_ ]]; then continue; fi                  # the C API
    if [[ ${names[i]} =~ ^__detred[a-z_]*_MOD_ ]]; then continue; fi     # the Fortran module's procedures (gfortran)
    bad+=("${demangled[i]}")
  done
  if ((${#bad[@]})); then
    echo "$lib: ${#bad[@]} of ${#names[@]} exported symbols are not detred's:" >&2
    printf '  %s\n' "${bad[@]:0:40}" >&2
    status=1
  else
    echo "$lib: ${#names[@]} exported symbols, all detred's"
  fi
done
exit $status
