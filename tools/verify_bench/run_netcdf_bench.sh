#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The verify tool on a chunked, deflated NetCDF float64 variable against reading it with the NetCDF library alone
# (docs/verify.md, "Measured"): make the file once, then in the same run the baseline (nc_get_vara into one buffer),
# verify read whole into memory (when it fits the memory budget) and verify streamed, each with its wall time and
# peak resident memory (GNU time). Usage: run_netcdf_bench.sh BUILD_DIR FILE ROWS (ROWS x 8192 doubles: 512 rows
# per 32 MiB; 32768 rows = 2 GiB, 65536 = 4 GiB).
set -eu
build=$1 file=$2 rows=$3
bench=$build/tools/verify_bench/detred-netcdf-bench
tool=$build/verify/detred
[ -f "$file" ] || "$bench" make "$file" "$rows"
ls -l "$file"
cat "$file" > /dev/null  # the file in the page cache, as for every row below
measure() {
  label=$1
  shift
  /usr/bin/time -f "$label: %e s, peak RSS %M KiB" "$@" > /dev/null
}
measure "nc_get_vara (baseline)     " "$bench" read "$file"
"$bench" read "$file"
measure "verify, whole in memory    " "$tool" verify "$file:v" --threads 2
measure "verify --stream            " "$tool" verify "$file:v" --threads 2 --stream
measure "reduce --stream            " "$tool" reduce "$file:v" --stream
"$tool" verify "$file:v" --threads 2 --stream
