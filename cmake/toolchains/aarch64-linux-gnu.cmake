# SPDX-License-Identifier: BSD-3-Clause
# Cross build for 64-bit Arm Linux (Graviton, Grace) with Debian's cross toolchain, the tests run under qemu-user.
#   Debian packages: g++-aarch64-linux-gnu, qemu-user, and the verify tool's libraries for arm64 through multiarch
#   (libmpfr-dev:arm64 libgmp-dev:arm64 libfmt-dev:arm64 libssl-dev:arm64); ./tools/setup.sh --cross-aarch64
#   installs them.
#   cmake -S . -B build/aarch64 -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake
# docs/arm.md has the whole procedure (tools/cross/aarch64_check.sh runs it).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

# ctest and gtest_discover_tests run every test binary through qemu. -L gives it the dynamic loader of the cross C
# library (libc6-arm64-cross), LD_LIBRARY_PATH the libc, libstdc++ and libgomp of the same packages: the multiarch
# -dev packages install another build of glibc (libc6:arm64) in /usr/lib/aarch64-linux-gnu, and that libc with the
# cross loader hangs at the first thread start. MPFR, GMP, fmt and OpenSSL come from /usr/lib/aarch64-linux-gnu.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L /usr/aarch64-linux-gnu -E LD_LIBRARY_PATH=/usr/aarch64-linux-gnu/lib)

# Libraries and headers: the cross toolchain's own tree and Debian's multiarch paths for arm64 (both searched by the
# cross compiler). Programs (pkg-config, nm) come from the build machine.
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)

# pkg-config must read the arm64 .pc files only (MPFR and GMP of the verify tool).
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")
