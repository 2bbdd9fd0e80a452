#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# CI's packaging step (.ci/run): one CPU-only build of the shared libraries, with debug information for the ABI
# check, the detred tool and the Python module, reused for everything below:
#   1. the exports (abi/check_exports.sh) and the ABI against the last release (abi/check_abi.sh);
#   2. the Python sdist and wheel (python3 -m build --no-isolation; the wheel carries the shared libdetred),
#      installed into a fresh virtual environment, where the Python suite runs against the installed package;
#   3. the .deb packages (cpack -G DEB), installed with apt-get into this machine's own root, the consumer project
#      built against them (CMake and pkg-config), then purged.
# Usage: check_packages.sh BUILD_DIR [CXX_RESULTS]
#   BUILD_DIR    the build folder (created when missing)
#   CXX_RESULTS  the C++ results program of the Python suite (tests/python: python_cxx_results of a test build);
#                without it, the suite's comparisons with the C++ library are skipped (CI passes it)
#
# Why this machine's root and not a debootstrapped one: a Debian 12 chroot with a compiler and CMake downloads
# and unpacks about 1 GB (10 minutes or more on CI's 2 cores), a tenth of CI's time limit. The check keeps the
# root honest instead: no detred may be installed before (dpkg and the CMake/pkg-config search paths are checked),
# the consumer is configured without any prefix hint, and the packages are purged afterwards, on failure too.
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR [CXX_RESULTS]} cxx_results=${2:-}
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
cd "$source_dir"
build=$(realpath -m "$build")
cxx_env=()
if [[ -n $cxx_results ]]; then cxx_env=(DETRED_CXX_RESULTS="$(realpath "$cxx_results")"); fi
sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi

step() { echo "== check_packages: $*"; }

step "build (shared, CPU-only, -g)"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr -DDETRED_SHARED=ON \
  -DDETRED_ENABLE_CUDA=OFF -DDETRED_BUILD_TESTS=OFF -DDETRED_BUILD_TOOLS=OFF -DDETRED_BUILD_PYTHON=ON \
  -DCMAKE_CXX_FLAGS=-g -DCMAKE_C_FLAGS=-g >/dev/null
cmake --build "$build"

step "exports and ABI"
mapfile -t libs < <(find "$build/lib" "$build/bindings" -name 'libdetred*.so' | sort)
abi/check_exports.sh "${libs[@]}"
abi/check_abi.sh "$build"

step "Python: sdist and wheel, installed into a fresh virtual environment"
rm -rf "$build/dist" "$build/venv"
# Debian's python3 (its python3-build); -P: the source folder's build/ must not shadow the module `build`.
/usr/bin/python3 -P -m build --no-isolation --sdist --outdir "$build/dist" .
DETRED_BUILD_DIR=$build /usr/bin/python3 -P -m build --no-isolation --wheel --outdir "$build/dist" .
/usr/bin/python3 -m venv --system-site-packages "$build/venv"
"$build/venv/bin/python" -m pip install --no-index --no-deps "$build"/dist/detred-*.whl
# From another folder, so that `import detred` can only find the installed package.
(cd "$build" && env DETRED_INSTALLED_PACKAGE=1 "${cxx_env[@]}" \
  "$build/venv/bin/python" -m pytest -q -p no:cacheprovider "$source_dir/tests/python")

step "Debian packages"
rm -rf "$build/packages"
(cd "$build" && cpack -G DEB)
if dpkg-query -W 'libdetred*' 'detred' 2>/dev/null | grep -q .; then
  echo "check_packages: detred packages are installed already; this root is not clean" >&2
  exit 1
fi
if [[ -n $(find /usr /usr/local -name detredConfig.cmake -o -name detred.pc 2>/dev/null) ]]; then
  echo "check_packages: a detred is installed outside the package manager; this root is not clean" >&2
  exit 1
fi
purge() { "${sudo_cmd[@]}" apt-get purge -y -qq 'libdetred*' detred >/dev/null || true; }
trap purge EXIT
"${sudo_cmd[@]}" apt-get install -y -qq "$build"/packages/*.deb
dpkg-query -W 'libdetred*' detred
tests/consumer/run_consumer.sh system "$source_dir" "$build" "$build/consumer_work"
# shellcheck disable=SC2046
c++ tests/consumer/main.cpp -o "$build/consumer_work/pkg-config-consumer" $(pkg-config --cflags --libs detred)
"$build/consumer_work/pkg-config-consumer"
purge
trap - EXIT
echo "check_packages: all passed"
