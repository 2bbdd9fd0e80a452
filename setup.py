# SPDX-License-Identifier: BSD-3-Clause
"""Builds the Python package's extension (detred._detred) with the project's own CMake; pyproject.toml holds the rest.

The extension is configured with only the library and the Python module (no tests, tools, verify tool, Fortran or
MPI), for the interpreter that runs this build, and installed (install component "python") into the wheel. The CUDA
backend is built when CMake finds nvcc, with the CUDA runtime linked statically, so the wheel needs nothing beyond
Python, the C/C++ runtimes and OpenMP (and, to use a GPU, the driver's libcuda).

Environment:
  CMAKE_ARGS         more CMake arguments, split as a shell would (-DDETRED_ENABLE_CUDA=OFF: a CPU-only wheel)
  DETRED_BUILD_DIR   a build folder to configure and build in, kept between builds; default: a temporary folder
                     of setuptools. One configured already keeps its options (only the Python module is turned on):
                     CI makes the wheel in the build of the .deb packages, whose shared libdetred the wheel carries
  CMAKE_BUILD_PARALLEL_LEVEL, CMAKE_GENERATOR   as CMake reads them (default generator: Ninja when installed)
"""

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

SOURCE = Path(__file__).resolve().parent


def project_version():
    """The version in CMakeLists.txt's project(): the one place it is written."""
    text = (SOURCE / "CMakeLists.txt").read_text()
    match = re.search(r"project\(detred VERSION ([0-9.]+)", text)
    if not match:
        raise RuntimeError("CMakeLists.txt: no project(detred VERSION x.y.z)")
    return match.group(1)


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        if shutil.which("cmake") is None:
            raise RuntimeError("cmake is needed to build detred (Debian: apt-get install cmake; tools/setup.sh)")
        build = Path(os.environ.get("DETRED_BUILD_DIR") or Path(self.build_temp) / "cmake").resolve()
        build.mkdir(parents=True, exist_ok=True)
        # The folder that holds the package `detred` in the wheel.
        target = Path(self.get_ext_fullpath(ext.name)).resolve().parent.parent
        args = [
            f"-DPython3_EXECUTABLE={sys.executable}",
            "-DCMAKE_BUILD_TYPE=Release",
            "-DDETRED_BUILD_PYTHON=ON",
            "-DDETRED_BUILD_TESTS=OFF",
            "-DDETRED_BUILD_TOOLS=OFF",
            "-DDETRED_BUILD_VERIFY=OFF",
            "-DDETRED_BUILD_FORTRAN=OFF",
            "-DDETRED_ENABLE_MPI=OFF",
            "-DDETRED_SHARED=OFF",
            # A user's compiler may warn where ours does not; warnings stay warnings here.
            "-DDETRED_WARNINGS_AS_ERRORS=OFF",
            "-DDETRED_CUDA_RUNTIME=Static",
            "-DDETRED_PYTHON_INSTALL_DIR=.",
        ]
        configured = (build / "CMakeCache.txt").exists() and "DETRED_BUILD_DIR" in os.environ
        if configured:
            args = [f"-DPython3_EXECUTABLE={sys.executable}", "-DDETRED_BUILD_PYTHON=ON", "-DDETRED_PYTHON_INSTALL_DIR=."]
        elif "CMAKE_GENERATOR" not in os.environ and shutil.which("ninja"):
            args += ["-G", "Ninja"]
        args += shlex.split(os.environ.get("CMAKE_ARGS", ""))
        env = dict(os.environ)
        env.setdefault("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
        subprocess.run(["cmake", "-S", str(SOURCE), "-B", str(build), *args], check=True, env=env)
        subprocess.run(["cmake", "--build", str(build), "--target", "detred_python"], check=True, env=env)
        # The package folder may hold libraries of an earlier build (a shared libdetred): only this build's go in.
        for stale in (target / "detred").glob("*.so*"):
            stale.unlink()
        subprocess.run(["cmake", "--install", str(build), "--component", "python", "--prefix", str(target), "--strip"],
                       check=True, env=env)


setup(
    version=project_version(),
    ext_modules=[CMakeExtension("detred._detred")],
    cmdclass={"build_ext": CMakeBuild},
)
