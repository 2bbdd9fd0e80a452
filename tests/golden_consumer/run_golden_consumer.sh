#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Installs detred, records a golden file of a NetCDF variable and a .npy file with the installed tool, then builds
# the consumer project (detred_add_golden_test) and runs its ctest twice: it must pass on the recorded golden file
# and fail once one bit of one golden result is changed.
# Usage: run_golden_consumer.sh SOURCE_DIR BUILD_DIR WORK_DIR
set -euo pipefail
source_dir=$1 build_dir=$2 work=$3
prefix=$work/prefix
rm -rf "$work/golden" && mkdir -p "$work/golden/data"
cmake --install "$build_dir" --prefix "$prefix" >/dev/null
detred=$prefix/bin/detred
data=$work/golden/data golden=$work/golden/golden.json
"$detred" gen --dist ill-conditioned --n 100000 --seed 7 -o "$data/sums.npy" >/dev/null
ncgen -k nc4 -o "$data/stations.nc" "$source_dir/tests/golden_consumer/data.cdl"
"$detred" record "$data/sums.npy" "$data/stations.nc:temperature" -o "$golden"

cmake -S "$source_dir/tests/golden_consumer" -B "$work/golden/build" -DCMAKE_PREFIX_PATH="$prefix" \
  -DGOLDEN="$golden" -DDATA_DIR="$data" >/dev/null
junit=$work/golden/build/reports/golden_sums.xml
if ! ctest --test-dir "$work/golden/build" --output-on-failure; then
  echo "golden consumer: ctest failed on the golden file just recorded" >&2
  exit 1
fi
grep -q 'failures="0"' "$junit" || { echo "golden consumer: the JUnit report does not show 0 failures" >&2; exit 1; }
# The classnames are relative to the golden file's folder: the same on every checkout.
grep -q 'classname="data/sums.npy"' "$junit" || { echo "golden consumer: a JUnit classname is not relative" >&2; exit 1; }

# Change the lowest bit of the first recorded result (one hex digit, xor 1).
bits=$(grep -m1 -o '"bits": "0x[0-9a-f]*"' "$golden" | grep -o '0x[0-9a-f]*')
last=${bits: -1}
flipped=${bits%?}$(printf '%x' $((16#$last ^ 1)))
sed -i "0,/$bits/s//$flipped/" "$golden"
echo "golden consumer: changed $bits to $flipped in the golden file"
if ctest --test-dir "$work/golden/build" --output-on-failure; then
  echo "golden consumer: ctest passed although a golden bit was changed" >&2
  exit 1
fi
grep -q 'failures="1"' "$junit" || { echo "golden consumer: the JUnit report does not show the failure" >&2; exit 1; }
echo "golden consumer: ctest passed on the recorded golden file and failed on the changed bit"
