#!/usr/bin/env python3
"""Whole-process timings for docs/performance.md: runs commands several times (after a warm-up),
alternating between them so a busy machine slows each alike, and prints a Markdown row per
command with the median wall time, CPU time (user + sys) and peak RSS of the process (wait4).
Prints the ratio of each median wall time to the first command's too and, given the number of
sentences the commands read (--sentences), the median CPU seconds per 1,000 sentences and the
sentences per second of wall time, end to end.

Usage: tests/bench/proc.py [-n RUNS] [--sentences N] LABEL=COMMAND [LABEL=COMMAND ...]
Commands are split as a shell splits words (shlex); their output is discarded.
"""

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import time


def run_once(argv):
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0, proc.returncode


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=7, help="counted runs of each command")
    ap.add_argument("--sentences", type=int, default=0, help="sentences each command reads")
    ap.add_argument("commands", nargs="+", metavar="LABEL=COMMAND")
    args = ap.parse_args()
    commands = []
    for c in args.commands:
        label, _, cmd = c.partition("=")
        commands.append((label, shlex.split(cmd)))
    for _, argv in commands:
        run_once(argv)  # warm-up: page cache, lazy loading
    results = {label: [] for label, _ in commands}
    for _ in range(args.n):
        for label, argv in commands:
            results[label].append(run_once(argv))
    first = None
    for label, _ in commands:
        rows = results[label]
        wall = statistics.median(r[0] for r in rows) * 1000
        cpu = statistics.median(r[1] for r in rows) * 1000
        rss = max(r[2] for r in rows)
        codes = sorted({r[3] for r in rows})
        ratio = "" if first is None else f"{wall / first:.2f}"
        first = wall if first is None else first
        per = (f" {cpu / args.sentences:.2f} | {args.sentences / (wall / 1000):.0f} |"
               if args.sentences > 0 else "")
        print(f"| {label} | {wall:.1f} | {cpu:.1f} | {rss:.0f} | {ratio} | {','.join(map(str, codes))} |{per}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
