#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Builds and runs the consumer program one way: package | system | subdirectory | pkg-config.
# Usage: run_consumer.sh WAY SOURCE_DIR BUILD_DIR WORK_DIR
#   package       installs BUILD_DIR, builds against find_package(detred) with MPI hidden from CMake (the core must
#                 not need it), checks each installed component's targets (mpi, fortran, nccl; a program linking
#                 detred::nccl is built and run up to its first GPU call, which it never makes) and that an unknown
#                 one fails with a message naming it
#   system        the same against the detred installed in the system (the .deb packages; BUILD_DIR is ignored)
#   subdirectory  add_subdirectory of SOURCE_DIR, CPU-only, unoptimized and only the consumer's targets: it checks
#                 the build rules, not the compiler's optimizer, and must stay cheap on a loaded machine
#   pkg-config    installs BUILD_DIR, compiles with `pkg-config --cflags --libs detred`
set -euo pipefail
way=$1 source_dir=$2 build_dir=$3 work=$4
prefix=$work/prefix
rm -rf "${work:?}/$way" && mkdir -p "$work/$way"
find_args=(-DCMAKE_PREFIX_PATH="$prefix")
detred=$prefix/bin/detred
if [[ $way == system ]]; then
  find_args=()
  detred=$(command -v detred || true)
  [[ -n $detred ]] && "$detred" --version
elif [[ $way != subdirectory ]]; then
  cmake --install "$build_dir" --prefix "$prefix" >/dev/null
  # The installed package carries the detred tool, when the build has it.
  if [[ -x $build_dir/verify/detred ]]; then
    "$detred" --version
    "$detred" gen --dist uniform --n 1000 -o "$work/$way/installed-tool.npy" >/dev/null
    "$detred" reduce "$work/$way/installed-tool.npy" >/dev/null
  fi
fi
configure() {  # configure the consumer project into $1 with the remaining arguments; its output in $1.log
  local dir=$1
  shift
  cmake -S "$source_dir/tests/consumer" -B "$dir" "$@" >"$dir.log" 2>&1
}
case $way in
  package | system)
    configure "$work/$way/core" -DDETRED_CONSUME=package "${find_args[@]}" -DCMAKE_DISABLE_FIND_PACKAGE_MPI=ON || { cat "$work/$way/core.log"; exit 1; }
    cmake --build "$work/$way/core" >/dev/null
    "$work/$way/core/consumer"
    cmake_dir=$(grep -m1 '^detred_DIR:' "$work/$way/core/CMakeCache.txt" | cut -d= -f2)
    echo "consumer: detred's CMake package in $cmake_dir"
    for component in mpi fortran nccl; do
      if [[ -f $cmake_dir/detred-$component-targets.cmake ]]; then
        configure "$work/$way/$component" -DDETRED_CONSUME=package "${find_args[@]}" -DDETRED_COMPONENTS="$component" || { cat "$work/$way/$component.log"; exit 1; }
        grep "consumer: targets" "$work/$way/$component.log"
      fi
    done
    # detred::nccl as a user links it (built only: running it needs a GPU).
    if [[ -f $work/$way/nccl/CMakeCache.txt ]]; then
      cmake --build "$work/$way/nccl" --target nccl_consumer >/dev/null
      "$work/$way/nccl/nccl_consumer"
    fi
    if configure "$work/$way/unknown" -DDETRED_CONSUME=package "${find_args[@]}" -DDETRED_COMPONENTS=no_such_component
    then
      echo "consumer: find_package(detred COMPONENTS no_such_component) succeeded" >&2
      exit 1
    fi
    grep -q "unknown component 'no_such_component'" "$work/$way/unknown.log" ||
      { echo "consumer: the failure does not name the unknown component:" >&2; cat "$work/$way/unknown.log" >&2; exit 1; }
    echo "consumer: an unknown component fails: $(grep -m1 -o "unknown component.*" "$work/$way/unknown.log")" ;;
  subdirectory)
    configure "$work/$way" -G Ninja -DDETRED_CONSUME=subdirectory -DDETRED_SOURCE_DIR="$source_dir" \
      -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG= || { cat "$work/$way.log"; exit 1; }
    cmake --build "$work/$way" --target consumer >/dev/null
    "$work/$way/consumer" ;;
  pkg-config)
    libdir=$(find "$prefix" -name detred.pc -printf '%h\n' | head -n1)
    export PKG_CONFIG_PATH=$libdir
    # A shared libdetred in a prefix the loader does not search.
    LD_LIBRARY_PATH=$(dirname "$libdir")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    export LD_LIBRARY_PATH
    # shellcheck disable=SC2046
    c++ "$source_dir/tests/consumer/main.cpp" -o "$work/$way/consumer" $(pkg-config --cflags --libs detred)
    "$work/$way/consumer" ;;
  *) echo "unknown way $way" >&2; exit 2 ;;
esac
