"""The explorer's slowest snapshot at the bounds of what it accepts, against its default one.

    python benchmarks/bench_worst_case.py [--repeat 3]

A class server bounds a student's input before it costs anything: N ≤ 5000 training samples, M ≤ N,
K ≤ 40 prototypes per class, γ ≤ 2^15, C ≤ 2^10, the MLP at ≤ 60 epochs, an upload of ≤ 5 MB subsampled
to ≤ 5000 training rows. This script computes the snapshot (every step: data, the classifier's status,
Proposal 2's fit and evaluation, the Bayes boundary, the covariate-shift statistics) of the largest of
those settings, each from empty caches, and prints its seconds and its ratio to the default setting's
(N = 1000, M = 40), timed in the same run. The largest ratio times the default's seconds on a server is
what :data:`buviz.app.compute.SNAPSHOT_TIME_BUDGET_S` must leave room for (docs/deployment.md).

The upload row is a 64-feature, 8-class table of 7 142 rows (3.4 MB, subsampled to 5 000 training
rows), read as the explorer reads an upload (:meth:`buviz.app.store.SessionStore.upload_csv`).
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings

import numpy as np

from buviz.app import compute
from buviz.app.controls import Controls
from buviz.app.store import SessionStore

#: name -> the controls that differ from the defaults.
CASES = {
    "default (N = 1000, M = 40)": {},
    "N = 5000, M = 40": dict(n_train=5000),
    "N = M = 5000": dict(n_train=5000, M=5000),
    "N = M = 5000, K = 40": dict(n_train=5000, M=5000, K="40"),
    "N = M = 5000, γ = 2^15, C = 2^10": dict(n_train=5000, M=5000, log2_gamma=15, log2_C=10),
    "MLP, N = 5000, 60 epochs": dict(n_train=5000, classifier="MLP", epoch=60),
    "letter (26 classes, 16 features), N = M = 5000": dict(dataset="letter", n_train=5000, M=5000),
}


def _seconds(settings: dict) -> float:
    compute.clear_caches()
    t = time.perf_counter()
    compute.compute_snapshot(settings)
    return time.perf_counter() - t


def _upload_table(rows: int = 7142, features: int = 64, classes: int = 8) -> bytes:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(rows, features))
    y = rng.integers(0, classes, rows)
    X[:, 0] += 2.0 * (y == 0)
    head = ",".join(f"x{i}" for i in range(features)) + ",label\n"
    return (head + "\n".join(",".join(f"{v:.4f}" for v in r) + f",c{c}" for r, c in zip(X, y, strict=True))).encode()


def _upload_seconds(data: bytes) -> float:
    """The snapshot of the uploaded table at M = N(train), from empty caches (the reading not counted)."""
    compute.clear_caches()
    store = SessionStore(auto_sweep=False)
    store.upload_csv(data, "wide.csv")
    store.wait()
    settings = {**store.settings(), "M": len(store.snapshot.ds.X_train), "K": "40"}
    compute.clear_caches()
    compute.dataset_for(compute.ResultKey.of(settings).data)  # the parsed upload, as the page holds it
    t = time.perf_counter()
    compute.compute_snapshot(settings)
    seconds = time.perf_counter() - t
    store.close()
    return seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="runs of each case (the median is printed)")
    args = ap.parse_args()
    warnings.filterwarnings("ignore")
    runs: dict[str, list[float]] = {name: [] for name in CASES}
    runs["upload: 5000 × 64, 8 classes, M = 5000, K = 40"] = []
    data = _upload_table()
    for _ in range(args.repeat):  # the cases alternated, so that a slower minute touches them all
        for name, kw in CASES.items():
            runs[name].append(_seconds(Controls(**kw).settings()))
        runs["upload: 5000 × 64, 8 classes, M = 5000, K = 40"].append(_upload_seconds(data))
    base = statistics.median(runs["default (N = 1000, M = 40)"])
    print(f"{'setting':52s} {'seconds':>8s} {'ratio':>7s}")
    for name, seconds in runs.items():
        med = statistics.median(seconds)
        print(f"{name:52s} {med:8.2f} {med / base:7.1f}")
    worst = max(statistics.median(s) for s in runs.values())
    print(f"slowest / default = {worst / base:.1f}; the budget ({compute.SNAPSHOT_TIME_BUDGET_S:.0f} s) "
          f"is {compute.SNAPSHOT_TIME_BUDGET_S / worst:.0f} times the slowest here")


if __name__ == "__main__":
    main()
