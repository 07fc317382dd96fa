"""Time to load the shipped real datasets (a script printing figures, not a test).

    python benchmarks/bench_datasets.py [--repeats 5]

Each load runs in a fresh Python process (nothing cached, ``import buviz.datasets`` done before the
clock starts), so the figure is what a user's first ``datasets.load(name)`` costs: for the sets
split at random that includes importing scikit-learn's ``model_selection`` (``train_test_split``),
so a second column has it imported before the clock starts (what a session that already uses
scikit-learn sees). Letter Recognition's fixed split needs neither pandas nor scikit-learn. The baseline, in
the same run and the same way, is scikit-learn's ``load_digits`` (a bundled set of 1797 × 64,
parsed from its own compressed CSV); the issue's target for Letter Recognition is 0.2 s.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]

LOAD = """
import time, warnings
from buviz import datasets
{preimport}
warnings.simplefilter("ignore", datasets.ConstantFeatureWarning)
t0 = time.perf_counter()
datasets.load({name!r})
print(time.perf_counter() - t0)
"""
BASELINE = """
import time
import sklearn.datasets
t0 = time.perf_counter()
sklearn.datasets.load_digits()
print(time.perf_counter() - t0)
"""


def _cold(code: str, repeats: int) -> float:
    """Median seconds over ``repeats`` fresh processes."""
    times = [float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                                  cwd=ROOT).stdout.strip()) for _ in range(repeats)]
    return float(np.median(times))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    from buviz import datasets

    base = _cold(BASELINE, args.repeats)
    print(f"baseline: sklearn load_digits, first call in a fresh process: {base * 1000:7.1f} ms")
    for name in datasets.UCI_NAMES:
        t = _cold(LOAD.format(name=name, preimport=""), args.repeats)
        warm = _cold(LOAD.format(name=name, preimport="import sklearn.model_selection"), args.repeats)
        print(f"{name:24s} first load {t * 1000:7.1f} ms ({t / base:6.2f} × load_digits); "
              f"scikit-learn imported: {warm * 1000:7.1f} ms ({warm / base:5.2f} ×)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
