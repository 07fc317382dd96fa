"""A lecture hall on one machine: 30 or more browsers and one hostile student (a script printing figures).

    python benchmarks/bench_lecture_hall.py [--sessions 30] [--seconds 30] [--think 0]

Runs the suite's load test (``tests/ui/test_load.py::test_concurrent_sessions``) at lecture-hall size:
``--sessions`` Chromium pages of one headless browser open the explorer served with the classroom flags,
then move γ, M, K and switch tabs for ``--seconds`` (back to back, or pausing about ``--think`` seconds
between two actions, as a class does); meanwhile one more student uploads a 200 000-row
table (3 MB), a 16 MB file and malformed files (not UTF-8, binary, one column, empty), each from a new
tab that is closed abruptly two seconds later. Server, browsers and the hostile student share this
machine's cores. Printed: the page-load times, every other session's γ step from key press to the new
status shown (median and p90, against the goal of 1.5 s), the server's time per applied change, its
event-loop wait, its share of one core, its memory at the start and at its peak, and whether every
session ended on the Û the public API computes for its final settings. The same assertions as the
suite's smaller run apply (no console error, no server traceback, the right numbers, bounded memory).

The suite runs the same test with 20 sessions for 15 s (``scripts/test.sh``); the figures of both are
in ``docs/deployment.md``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=30, help="browser pages besides the hostile student (≥ 1)")
    ap.add_argument("--seconds", type=float, default=30.0, help="seconds of activity once every page is open")
    ap.add_argument("--think", type=float, default=0.0,
                    help="a student's pause between two actions, seconds (each drawn from 0.5 to 1.5 times it; "
                         "0: back to back, as in the suite)")
    args = ap.parse_args(argv)
    if args.sessions < 1 or args.seconds <= 0 or args.think < 0:
        ap.error("--sessions must be ≥ 1, --seconds > 0 and --think ≥ 0")
    env = {**os.environ, "BUVIZ_LOAD_SESSIONS": str(args.sessions), "BUVIZ_LOAD_SECONDS": str(args.seconds),
           "BUVIZ_LOAD_HOSTILE": "1", "BUVIZ_LOAD_THINK_S": str(args.think)}
    cmd = [sys.executable, "-m", "pytest", "tests/ui/test_load.py::test_concurrent_sessions", "-s", "-q",
           "-p", "no:cacheprovider"]
    print(f"{args.sessions} sessions + 1 hostile student, {args.seconds:g} s of activity, think time "
          f"{args.think:g} s, {os.cpu_count()} cores", flush=True)
    return subprocess.call(cmd, cwd=ROOT, env=env)


if __name__ == "__main__":
    raise SystemExit(main())
