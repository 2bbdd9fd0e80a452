#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""detred.sum with the default thread count against threads=1, on a host made busy by competing processes.

    PYTHONPATH=build/release/bindings/python /usr/bin/python3 tools/python_bench/busy_host.py [--rounds 31] [--load 2]

Starts --load processes that spin (one Python busy loop each), then times detred.sum of float64 arrays of 10^4 to
10^8 elements, the default team (threads=0) and one thread (threads=1) once each in every round, in a random order
(interleaved, so that a slow phase of the machine affects both alike), each the median over rounds of single calls. docs/performance.md
("The default team on a busy machine") has the table and the policy it checks: the default never more than 10 %
slower than one thread at any size.
"""

import argparse
import multiprocessing
import statistics
import time

import numpy as np

import detred


def spin():
    while True:
        pass


def _timed(call):
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=101, help="rounds per size (a fifth of them at 10^8)")
    parser.add_argument("--load", type=int, default=2, help="competing busy processes (default 2)")
    parser.add_argument("--max-log10", type=int, default=8)
    args = parser.parse_args()
    competitors = [multiprocessing.Process(target=spin, daemon=True) for _ in range(args.load)]
    for p in competitors:
        p.start()
    try:
        print(f"{args.load} competing busy processes; {args.rounds} rounds ({max(args.rounds // 5, 5)} at 10^8)")
        print(f"{'n':>6} {'median ms: default':>19} {'threads=1':>10} {'ratio':>6}   {'mean ms: default':>17} "
              f"{'threads=1':>10} {'ratio':>6}")
        for k in range(4, args.max_log10 + 1):
            x = np.random.default_rng(k).uniform(-1, 1, 10**k)
            times = {0: [], 1: []}
            order = np.random.default_rng(100 + k)
            for _ in range(args.rounds if k < 8 else max(args.rounds // 5, 5)):
                # A random order in each round: a fixed one locks onto the scheduler's time slices (with calls of a
                # few ms, the first call of every pair was the one taken off its core, whichever it was).
                for threads in order.permutation(2):
                    times[int(threads)].append(_timed(lambda: detred.sum(x, threads=int(threads))))
            # The median and the mean: when a call lasts about a scheduler time slice, its times split into two modes
            # (run through, or taken off the core for a slice) and the median jumps between them from run to run.
            default, one = statistics.median(times[0]), statistics.median(times[1])
            mean_default, mean_one = statistics.fmean(times[0]), statistics.fmean(times[1])
            print(f"  1e{k} {default * 1e3:19.3f} {one * 1e3:10.3f} {default / one:6.2f}   {mean_default * 1e3:17.3f} "
                  f"{mean_one * 1e3:10.3f} {mean_default / mean_one:6.2f}")
    finally:
        for p in competitors:
            p.terminate()


if __name__ == "__main__":
    main()
