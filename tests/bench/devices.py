#!/usr/bin/env python3
"""Whether CUDA and the CPU give the same findings: runs `segue check --tier 1 --format json` on a
folder once per command, times each (wall and CPU, os.wait4) and compares the findings (file, line,
code) and the scores, printing Markdown for docs/performance-cuda.md.

Usage: tests/bench/devices.py FOLDER LABEL=COMMAND LABEL=COMMAND
Each COMMAND is split as a shell splits words and gets `FOLDER` appended; the first is the
reference the second is compared with.
"""

import json
import os
import shlex
import subprocess
import sys
import tempfile
import time


def run(argv):
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        out.seek(0)
        report = json.load(out)
    return report, wall, usage.ru_utime + usage.ru_stime, os.waitstatus_to_exitcode(status)


def findings(report):
    return {
        (f["path"], x["range"]["start"]["line"], x["code"]): x.get("score")
        for f in report["files"]
        for x in f["findings"]
    }


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    folder = sys.argv[1]
    runs = []
    for spec in sys.argv[2:]:
        label, _, cmd = spec.partition("=")
        report, wall, cpu, code = run(shlex.split(cmd) + [folder])
        runs.append((label, report, wall, cpu, code))
    print("| run | wall s | CPU s | exit code | findings |")
    print("|---|---:|---:|---:|---:|")
    for label, report, wall, cpu, code in runs:
        print(f"| {label} | {wall:.1f} | {cpu:.1f} | {code} | {len(findings(report))} |")
    (la, a), (lb, b) = ((r[0], r[1]) for r in runs)
    fa, fb = findings(a), findings(b)
    same = fa.keys() & fb.keys()
    score_diff = max((abs(fa[k] - fb[k]) for k in same if fa[k] is not None and fb[k] is not None),
                     default=0.0)
    sa = {f["path"]: f.get("score") for f in a["files"]}
    sb = {f["path"]: f.get("score") for f in b["files"]}
    file_diff = max((abs(sa[k] - sb[k]) for k in sa.keys() & sb.keys()
                     if sa[k] is not None and sb[k] is not None), default=0.0)
    print()
    print(f"{len(sa)} files: {len(same)} findings in the same places, {len(fa.keys() - fb.keys())} "
          f"only with {la}, {len(fb.keys() - fa.keys())} only with {lb}; the largest difference in a "
          f"finding's score {score_diff:.4f}, in a file's score {file_diff:.4f} (scores are "
          f"printed to 4 decimals).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
