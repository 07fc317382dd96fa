"""How fast ``buviz figure`` refuses a wrong name, against starting Python with buviz imported.

    python benchmarks/bench_cli.py [--repeat 5]

Runs, as separate processes and alternated ``--repeat`` times, ``python -c "import buviz"`` (the
baseline: an interpreter and the package) and ``buviz figure uncertainty_fig_6`` (the console script's
function, ``buviz.cli.main``, run by the same interpreter; a name one character
off: it exits 2 with "did you mean 'uncertainty_fig6'"), and prints the median seconds of each and their
ratio. The command checks the name against the registry's names read from the source, before any figure
module (HoloViews, Bokeh, Matplotlib) is imported (``tests/cli/test_figure_names.py``); it once imported
every figure first and took 13 s, 46-56 s on a busy machine.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

COMMANDS = {
    "python -c 'import buviz'": [sys.executable, "-c", "import buviz"],
    "buviz figure uncertainty_fig_6": [sys.executable, "-c", "import sys; from buviz.cli import main; "
                                       "sys.exit(main(['figure', 'uncertainty_fig_6']))"],
}


def _seconds(argv: list[str]) -> tuple[float, int]:
    t = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    return time.perf_counter() - t, done.returncode


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    runs: dict[str, list[float]] = {name: [] for name in COMMANDS}
    codes: dict[str, set[int]] = {name: set() for name in COMMANDS}
    for _ in range(args.repeat):
        for name, argv in COMMANDS.items():
            seconds, code = _seconds(argv)
            runs[name].append(seconds)
            codes[name].add(code)
    base = statistics.median(runs["python -c 'import buviz'"])
    for name, seconds in runs.items():
        med = statistics.median(seconds)
        print(f"{name:34s} median {med:5.2f} s  ratio {med / base:4.1f}  exit {sorted(codes[name])}")


if __name__ == "__main__":
    main()
