#!/usr/bin/env bash
# Builds and runs the consumer program one way: package | subdirectory | pkg-config.
# Usage: run_consumer.sh WAY SOURCE_DIR BUILD_DIR WORK_DIR
set -euo pipefail
way=$1 source_dir=$2 build_dir=$3 work=$4
prefix=$work/prefix
rm -rf "$work/$way" && mkdir -p "$work/$way"
if [[ $way != subdirectory ]]; then
  cmake --install "$build_dir" --prefix "$prefix" >/dev/null
  # The installed package carries the detred tool, when the build has it.
  if [[ -x $build_dir/verify/detred ]]; then
    "$prefix/bin/detred" --version
    "$prefix/bin/detred" gen --dist uniform --n 1000 -o "$work/$way/installed-tool.npy" >/dev/null
    "$prefix/bin/detred" reduce "$work/$way/installed-tool.npy" >/dev/null
  fi
fi
case $way in
  package)
    cmake -S "$source_dir/tests/consumer" -B "$work/$way" -DDETRED_CONSUME=package -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
    cmake --build "$work/$way" >/dev/null
    "$work/$way/consumer" ;;
  subdirectory)
    cmake -S "$source_dir/tests/consumer" -B "$work/$way" -DDETRED_CONSUME=subdirectory -DDETRED_SOURCE_DIR="$source_dir" >/dev/null
    cmake --build "$work/$way" >/dev/null
    "$work/$way/consumer" ;;
  pkg-config)
    libdir=$(find "$prefix" -name detred.pc -printf '%h\n' | head -n1)
    export PKG_CONFIG_PATH=$libdir
    # shellcheck disable=SC2046
    c++ "$source_dir/tests/consumer/main.cpp" -o "$work/$way/consumer" $(pkg-config --cflags --libs detred)
    "$work/$way/consumer" ;;
  *) echo "unknown way $way" >&2; exit 2 ;;
esac
