#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Renders benchmark results (JSON written by a benchmark's --json FILE, tools/bench_record/run_record.hpp) into
the Markdown documents that show them.

A document asks for a table with a marker line, and the renderer owns everything up to the end marker:

    <!-- results: docs/results/cpu-batch.json | op, shape, GB/s=gb_per_s, ratio=ratio:.3f, verdict -->
    ...generated: the run's command, machine, commit and date, then the table...
    <!-- results:end -->

Columns are `key` (heading and key alike) or `Heading=key`, with an optional `:format` (a Python format spec;
floats default to .2f). Paths are relative to the repository root.

    render_results.py [--check] DOCUMENT...

--check changes nothing and exits 1 naming each stale document (the results_doc test); without it the documents
are rewritten in place. Exit 2: a marker names a missing file, a bad JSON document or a key no row has.
"""
import argparse
import json
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
MARKER = re.compile(r"^<!-- results: (?P<file>[^|]+?) \| (?P<columns>.+?) -->$")
END = "<!-- results:end -->"


class RenderError(Exception):
    pass


def parse_columns(text):
    columns = []
    for item in (c.strip() for c in text.split(",")):
        heading, _, key = item.partition("=") if "=" in item else (item, "", item)
        key, _, spec = key.partition(":")
        columns.append((heading.strip(), key.strip(), spec.strip()))
    return columns


def cell(value, spec):
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return format(value, spec or ".2f")
    if isinstance(value, int):
        return format(value, spec) if spec else str(value)
    return str(value).replace("|", "\\|")


def command_of(doc):
    """The command as run, without the --json argument that wrote this file."""
    args, shown = doc.get("arguments", []), []
    skip = False
    for a in args:
        if skip:
            skip = False
            continue
        if a == "--json":
            skip = True
            continue
        if a.startswith("--json="):
            continue
        shown.append(a)
    return " ".join([doc["tool"]] + shown)


def caption(doc):
    m = doc.get("machine", {})
    run = doc.get("run", {})
    device = f"{run['device']}; host " if "device" in run else ""
    load = doc.get("load_average", {})
    return (f"`{command_of(doc)}`: {device}{m.get('cpu', 'unknown CPU')} ({m.get('logical_cpus', '?')} logical CPUs, "
            f"{m.get('architecture', '?')}), commit {doc.get('commit', 'unknown')}, {doc.get('date', 'undated')}, "
            f"load average {load.get('start', '?')} at the start, {load.get('end', '?')} at the end.")


def table(path, columns):
    file = ROOT / path
    if not file.is_file():
        raise RenderError(f"{path}: no such results file")
    try:
        doc = json.loads(file.read_text())
        rows = doc["rows"]
        doc["tool"]
    except (ValueError, KeyError, TypeError) as e:
        raise RenderError(f"{path}: not a results document ({e})")
    for _, key, _ in columns:
        if not any(key in row for row in rows):
            raise RenderError(f"{path}: no row has the key '{key}'")
    lines = [caption(doc), "", "| " + " | ".join(h for h, _, _ in columns) + " |",
             "|" + "|".join("---" for _ in columns) + "|"]
    for row in rows:
        lines.append("| " + " | ".join(cell(row.get(k), s) for _, k, s in columns) + " |")
    return lines


def render(text, where):
    out, lines, i = [], text.split("\n"), 0
    while i < len(lines):
        line = lines[i]
        out.append(line)
        m = MARKER.match(line)
        i += 1
        if not m:
            continue
        end = next((j for j in range(i, len(lines)) if lines[j] == END), None)
        if end is None:
            raise RenderError(f"{where}: '{line}' has no '{END}' after it")
        out += table(m["file"].strip(), parse_columns(m["columns"]))
        out.append(END)
        i = end + 1
    return "\n".join(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a document is stale; change nothing")
    parser.add_argument("documents", nargs="+", type=pathlib.Path)
    a = parser.parse_args()
    stale = []
    try:
        for path in a.documents:
            old = path.read_text()
            new = render(old, path)
            if new != old:
                stale.append(path)
                if not a.check:
                    path.write_text(new)
    except (RenderError, OSError) as e:
        print(f"render_results: {e}", file=sys.stderr)
        return 2
    for path in stale:
        print(f"render_results: {path} {'is stale' if a.check else 'rewritten'}"
              f"{' (run tools/bench_record/render_results.py ' + str(path) + ')' if a.check else ''}",
              file=sys.stderr)
    return 1 if (stale and a.check) else 0


if __name__ == "__main__":
    sys.exit(main())
