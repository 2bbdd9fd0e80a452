# SPDX-License-Identifier: BSD-3-Clause
"""The installed package (a wheel in a virtual environment; .ci/run's packaging step sets DETRED_INSTALLED_PACKAGE=1):
imported from the installation, not the build tree; carrying its type stubs; and needing nothing that the wheel does
not hold beyond Python, the C and C++ runtimes and OpenMP (ldd of the extension)."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import detred

pytestmark = pytest.mark.skipif(os.environ.get("DETRED_INSTALLED_PACKAGE") != "1",
                                reason="checks an installed package (DETRED_INSTALLED_PACKAGE=1), not the build tree")

# The libraries a wheel may take from the system: the C library and loader, the C++ and GCC runtimes, OpenMP.
SYSTEM = re.compile(r"^(linux-vdso|ld-linux[-\w]*|libc|libm|libdl|librt|libpthread|libstdc\+\+|libgcc_s|libgomp|libomp)"
                    r"\.so(\.[0-9.]+)?$")


def test_imported_from_the_installation():
    package = Path(detred.__file__).resolve().parent
    assert Path(sys.prefix).resolve() in package.parents, f"{package} is not under the environment {sys.prefix}"
    assert "site-packages" in package.parts


def test_type_stubs_ship():
    package = Path(detred.__file__).parent
    assert (package / "py.typed").is_file()
    assert (package / "__init__.pyi").is_file()


def test_torch_subpackage_ships():
    """detred.torch (pure Python) is part of the wheel; importing it needs PyTorch, so only its files are checked."""
    package = Path(detred.__file__).parent / "torch"
    for name in ("__init__.py", "_functions.py", "_kernels.py", "_library.py", "_mode.py"):
        assert (package / name).is_file(), name


def test_versions():
    assert re.fullmatch(r"[0-9]+\.[0-9]+\.[0-9]+", detred.__version__)
    from importlib.metadata import version
    assert version("detred") == detred.__version__
    out = subprocess.run([sys.executable, "-m", "detred"], check=True, capture_output=True, text=True).stdout
    assert out.strip() == (f"detred {detred.__version__}, order version {detred.order_version}, "
                           f"state format version {detred.state_format_version}")


def test_extension_needs_only_system_runtimes():
    extension = Path(detred._detred.__file__).resolve()
    package = extension.parent
    out = subprocess.run(["ldd", str(extension)], check=True, capture_output=True, text=True).stdout
    outside = []
    for line in out.splitlines():
        # "libx.so.1 => /path/libx.so.1 (0x...)", "libx.so.1 => not found", "/lib64/ld-linux-x86-64.so.2 (0x...)"
        fields = line.split()
        name = Path(fields[0]).name
        path = fields[2] if len(fields) > 2 and fields[1] == "=>" else fields[0]
        if "not found" in line:
            outside.append(line.strip())
        elif not SYSTEM.match(name) and package not in Path(path).resolve().parents:
            outside.append(line.strip())
    assert not outside, "the extension needs libraries the wheel does not carry:\n" + "\n".join(outside)
