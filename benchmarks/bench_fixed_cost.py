"""Û's cost against 5-fold GridSearchCV on the same grid, and where Û's time goes.

    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/bench_fixed_cost.py [--quick] [--out results/fixed_cost.csv]

For N ∈ {600, 2000, 10 000} and d ∈ {2, 8, 16, 57} (``make_classification``, 3 classes, 5 informative
features or d when fewer, standardised), two grids: k-NN (9 values of k) and RBF SVC (7 values of
γ = 2^-8 … 2^4, C = 1). For each cell: seconds of :func:`buviz.model_selection.select_by_uncertainty`
(M = 40, the default BoundaryUncertainty) and of ``GridSearchCV(cv=StratifiedKFold(5))`` (with its
refit), their **ratio** CV / Û (> 1: Û is cheaper), and Û's parts: ``fixed`` (the per-training-set
work: neighbourhoods, T̃, Î*), ``fits`` (one fit per candidate) and ``evals`` (Û evaluations and
the training error). Both run in the same process on one thread, alternated ``--repeat`` times
(default 3; once for N = 10 000) and the table gives the median run of each; the CPU seconds of the
process are recorded too (``ratio_cpu``), the steadier ratio on a shared machine.

``--quick``: N ∈ {600, 2000}, d ∈ {2, 8, 57} (under a minute). The full run took 5-9 minutes on a
shared 2-core machine, most of it the N = 10 000 cells (the SVC grid only, at d = 8 and 57, with
γ ∈ {2^-8, 2^-4, 1}, to stay in budget).

The script uses only public API present before and after the fixed-cost change, so running it with
another checkout on ``PYTHONPATH`` measures that checkout (the "before" of docs/benchmarks.md).

``--cv-fast`` (needs :func:`buviz.classifiers.svc_decision_function`): also time, for the SVC
rows, the same 5-fold search scored by accuracy of the argmax of that BLAS decision function
instead of libsvm's ``predict`` (columns ``CV5fast_s``, ``ratio_cpu_fastcv``): how much of Û's
advantage is the faster prediction itself, which a cross-validation could use as well.

Reference for Û: D. Ha, S. Katagiri, H. Watanabe, M. Ohsaki, "An Improved Boundary Uncertainty-Based
Estimation for Classifier Evaluation", Journal of Signal Processing Systems, Springer, 2021,
doi:10.1007/s11265-021-01671-1.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd
from sklearn.datasets import make_classification
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.neighbors import KNeighborsClassifier
from sklearn.svm import SVC

from buviz.model_selection import select_by_uncertainty

GRIDS = {
    "knn": (KNeighborsClassifier(), {"n_neighbors": [1, 3, 5, 9, 15, 25, 41, 61, 81]}),
    "svc": (SVC(), {"gamma": [2.0**e for e in range(-8, 5, 2)]}),
}


def cells(quick: bool):
    """(N, d, classifier, grid) of the run."""
    sizes = (600, 2000) if quick else (600, 2000, 10_000)
    dims = (2, 8, 57) if quick else (2, 8, 16, 57)
    for N in sizes:
        for d in dims:
            for name, (est, grid) in GRIDS.items():
                if N == 10_000:
                    if name == "knn" or d not in (8, 57):
                        continue
                    grid = {"gamma": [2.0**e for e in range(-8, 1, 4)]}
                yield N, d, name, est, grid


def data(N: int, d: int, seed: int = 0):
    X, y = make_classification(N, n_features=d, n_informative=min(d, 5), n_redundant=0, n_classes=3,
                               n_clusters_per_class=1, random_state=seed)
    return (X - X.mean(0)) / X.std(0), y


def _fast_accuracy(estimator, X, y) -> float:
    """Accuracy of the argmax of the decision function computed by matrix products (the SVC rows)."""
    from buviz.classifiers import svc_decision_function

    return float(np.mean(estimator.classes_[np.argmax(svc_decision_function(estimator, X), axis=1)] == y))


def _timed(fn) -> tuple[float, float, object]:
    """(wall seconds, CPU seconds of the process, result) of one call."""
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - t0, time.process_time() - c0, out


def run_cell(N, d, est, grid, cv_fast: bool = False, repeat: int = 1) -> dict:
    X, y = data(N, d)
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    runs = {"U": [], "CV5": [], "CV5fast": []}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(repeat):  # alternated, so that a slow spell of the machine hits both
            t_u, c_u, res = _timed(lambda: select_by_uncertainty(est, grid, X, y, M=40))
            runs["U"].append((t_u, c_u, res))
            runs["CV5"].append(_timed(lambda: GridSearchCV(est, grid, cv=cv).fit(X, y)))
            if cv_fast and isinstance(est, SVC):
                runs["CV5fast"].append(_timed(lambda: GridSearchCV(est, grid, cv=cv, scoring=_fast_accuracy).fit(X, y)))
    # the median run of each (by CPU seconds); Û's parts are those of its median run
    t_u, c_u, res = sorted(runs["U"], key=lambda r: r[1])[len(runs["U"]) // 2]
    t_cv, c_cv = (float(np.median([r[k] for r in runs["CV5"]])) for k in (0, 1))
    extra = {}
    if runs["CV5fast"]:
        extra = {"CV5fast_s": float(np.median([r[0] for r in runs["CV5fast"]])),
                 "ratio_cpu_fastcv": float(np.median([r[1] for r in runs["CV5fast"]])) / c_u}
    fits = float(res.table["fit_time"].sum())
    fixed = float(res.uncertainty_time)
    return {"N": N, "d": d, "candidates": len(res.table), "repeat": repeat, "U_s": t_u, "CV5_s": t_cv,
            "ratio": t_cv / t_u, "U_cpu_s": c_u, "CV5_cpu_s": c_cv, "ratio_cpu": c_cv / c_u,
            "fixed_s": fixed, "fits_s": fits, "evals_s": t_u - fixed - fits, **extra}


def main(argv=None) -> pd.DataFrame:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="N in {600, 2000}, d in {2, 8, 57}")
    ap.add_argument("--out", default=None, help="CSV to write the table to")
    ap.add_argument("--repeat", type=int, default=3,
                    help="runs of each search per cell, alternated; the table reports the medians (default 3)")
    ap.add_argument("--cv-fast", action="store_true",
                    help="also time the SVC search scored through the BLAS decision function")
    args = ap.parse_args(argv)
    rows = []
    for N, d, name, est, grid in cells(args.quick):
        reps = 1 if N >= 10_000 else args.repeat  # the long cells: one run each, to stay in budget
        row = {"classifier": name, **run_cell(N, d, est, grid, args.cv_fast, reps)}
        rows.append(row)
        print(f"{name:4s} N={N:6d} d={d:3d}  U {row['U_s']:7.3f} s  CV5 {row['CV5_s']:7.3f} s  "
              f"CV5/U {row['ratio']:5.2f} (CPU {row['ratio_cpu']:5.2f})  | U: fixed {row['fixed_s']:.3f}  "
              f"fits {row['fits_s']:.3f}  evals {row['evals_s']:.3f}"
              + (f"  | CV5 fast/U (CPU) {row['ratio_cpu_fastcv']:5.2f}" if "ratio_cpu_fastcv" in row else ""),
              flush=True)
    table = pd.DataFrame(rows)
    if args.out:
        table.to_csv(args.out, index=False)
    return table


if __name__ == "__main__":
    main()
