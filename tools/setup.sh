#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Installs every Debian package detred needs to build, test and benchmark.
# Idempotent: packages already present are skipped and nothing is printed for them.
#   --cross-aarch64   also the aarch64 cross build (docs/arm.md): Debian's cross compiler, qemu-user, and the
#                     verify tool's libraries for arm64 (enables the arm64 architecture in dpkg: multiarch)
set -euo pipefail

cross_aarch64=0
for arg in "$@"; do
  case $arg in
    --cross-aarch64) cross_aarch64=1 ;;
    *)
      echo "usage: $0 [--cross-aarch64]" >&2
      exit 2
      ;;
  esac
done

packages=(
  build-essential       # g++ (C++20), make
  cmake                 # build system (>= 3.25)
  ninja-build           # fast builds used by the presets
  pkg-config            # the pkg-config consumer test
  libgtest-dev          # GoogleTest: unit and invariance tests
  libgmock-dev          # GoogleTest's matchers
  libmpfr-dev           # MPFR: the exact oracle of the verify tool
  libgmp-dev            # GMP: MPFR's integer layer
  libcli11-dev          # CLI11: command-line parsing of the detred tool
  nlohmann-json3-dev    # nlohmann-json: --json output and golden files
  libfmt-dev            # fmt: formatting of tables and messages
  libssl-dev            # OpenSSL libcrypto: SHA-256 of data files in golden files
  libnetcdf-dev         # NetCDF C library: NetCDF variables as inputs of the verify tool
  libhdf5-dev           # HDF5 C library: HDF5 datasets as inputs of the verify tool
  netcdf-bin            # ncgen/ncdump: the golden consumer test writes a NetCDF file with ncgen
  hdf5-tools            # h5dump/h5ls: inspecting HDF5 inputs (the documented examples)
  libomp-dev            # OpenMP runtime for clang builds (GCC uses libgomp)
  clang                 # libFuzzer targets for the file parsers
  libclang-rt-dev       # sanitizer and fuzzer runtimes for clang
  clang-format          # formatting check
  gfortran              # the Fortran module (use detred) and its test program
  python3-dev           # Python's headers: building the Python module (for /usr/bin/python3)
  pybind11-dev          # pybind11: the C++ side of the Python module (headers and CMake package)
  python3-numpy         # NumPy: the arrays the Python module reduces, and its headers
  python3-pytest        # pytest: the Python module's test suite
  python3-torch         # PyTorch (CPU, gloo): detred.torch's operators and detred.torch.distributed's tests
  libopenmpi-dev        # Open MPI: detred_mpi (sums over MPI ranks) and its tests
  openmpi-bin           # mpiexec: runs the MPI tests and benchmark
  libdlpack-dev         # dlpack.h: the tensor struct behind __dlpack__ (PyTorch CUDA tensors in the Python module)
  python3-setuptools    # the Python package's build backend (pyproject.toml, setup.py), offline
  python3-wheel         # wheels for pip install --no-build-isolation .
  python3-build         # python3 -m build --no-isolation: the sdist and the wheel
  python3-venv          # the fresh virtual environment the installed package is tested in
  abigail-tools         # abidw/abidiff: the ABI check of the shared libraries (abi/check_abi.sh)
  dpkg-dev              # dpkg-shlibdeps: the .deb packages' dependencies (cpack -G DEB)
)

# Only with --cross-aarch64. GoogleTest for arm64 is built from the sources libgtest-dev ships (/usr/src/googletest);
# CLI11 and nlohmann-json are header-only and shared with the native build.
if ((cross_aarch64)); then
  packages+=(
    g++-aarch64-linux-gnu   # the cross compiler, its C/C++ libraries and libgomp for arm64
    qemu-user               # qemu-aarch64: runs the arm64 tests and the verify tool
    libmpfr-dev:arm64       # the verify tool's oracle, for arm64 (multiarch)
    libgmp-dev:arm64
    libfmt-dev:arm64
    libssl-dev:arm64
  )
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi

if ((cross_aarch64)) && ! dpkg --print-foreign-architectures | grep -qx arm64; then
  echo "setup: enabling the arm64 architecture (multiarch) for the cross build"
  "${sudo_cmd[@]}" dpkg --add-architecture arm64
fi

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
