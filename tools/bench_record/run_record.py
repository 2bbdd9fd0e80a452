# SPDX-License-Identifier: BSD-3-Clause
"""One benchmark run as data, for the Python benchmarks: the same JSON document as run_record.hpp writes (the tool
and its arguments, the machine, the commit, the date, the load and one object per row), so that
render_results.py renders both alike. Import it with tools/bench_record on sys.path."""

import datetime
import json
import os
import pathlib
import platform
import subprocess
import sys


def _load_average():
    try:
        return os.getloadavg()[0]
    except OSError:
        return -1


def _cpu_model():
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith(("model name", "Hardware")):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _commit():
    """git describe of the checkout this file is in; "unknown" outside one. DETRED_RECORD_COMMIT, when set, names it
    instead: for a copy of the tree run elsewhere (a GPU machine) whose git metadata, if any, is not the tree's."""
    if os.environ.get("DETRED_RECORD_COMMIT"):
        return os.environ["DETRED_RECORD_COMMIT"]
    try:
        return subprocess.run(["git", "describe", "--always", "--dirty", "--abbrev=12"],
                              cwd=pathlib.Path(__file__).resolve().parent, capture_output=True, text=True,
                              check=True).stdout.strip() or "unknown"
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


class RunRecord:
    def __init__(self, tool, arguments=None):
        self.tool = tool
        self.arguments = list(sys.argv[1:] if arguments is None else arguments)
        self.date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        self.load_at_start = _load_average()
        self.facts = {}
        self.rows = []

    def set(self, key, value):
        self.facts[key] = value

    def add(self, **row):
        self.rows.append(row)

    def write(self, path):
        doc = {"tool": self.tool, "arguments": self.arguments, "commit": _commit(), "date": self.date,
               "machine": {"cpu": _cpu_model(), "logical_cpus": os.cpu_count(),
                           "system": f"{platform.system()} {platform.release()}",
                           "architecture": platform.machine(), "compiler": f"Python {platform.python_version()}"},
               "load_average": {"start": self.load_at_start, "end": _load_average()},
               "run": self.facts, "rows": self.rows}
        text = json.dumps(doc, indent=2) + "\n"
        if path == "-":
            sys.stdout.write(text)
        else:
            pathlib.Path(path).write_text(text)
