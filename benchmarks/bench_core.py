"""Cost of Proposal 2 per classifier status, against its floor and against CV.

Part A -- SVC statuses on `gmm`, N = 2000, 5000, 10000, γ = 1 and 32:
    floor   = one evaluation of the classifier on T̃ (what `evaluate` cannot avoid)
    eval    = BoundaryUncertainty.evaluate (includes that classifier evaluation)
    fit     = one SVC fit;  cv10 = 10-fold CV (10 fits + predictions, one process)
    targets: eval / floor <= 1.15;  cv10 / eval >= 8.
Part B -- cheap discriminant (prototype classifier), N = 1e4, 1e5, 1e6, M = 40, each N in a fresh
    process: fit (neighbourhood search), evaluate, peak resident memory of the process.
    targets: evaluate <= 2 s at N = 1e6 and grows linearly; fit <= 15 s.

Run:  python benchmarks/bench_core.py [--quick | --huge]   (--huge: Part B up to N = 1e7)
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import resource
import statistics
import time

import numpy as np


def _best_of(fn, repeat=3):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def part_a(sizes, gammas):
    from sklearn.model_selection import StratifiedKFold

    from buviz import datasets
    from buviz.classifiers import svm_status
    from buviz.uncertainty import BoundaryUncertainty

    print("Part A: SVC statuses on gmm (M = 40, T̃ a = 1/2)")
    print(f"{'N':>6} {'log2γ':>5} {'floor s':>8} {'eval s':>8} {'eval/floor':>10} {'fit s':>7} "
          f"{'cv10 s':>7} {'cv10/eval':>9}")
    for N in sizes:
        ds = datasets.load("gmm", n_train=N, n_test=0, random_state=0)
        bu = BoundaryUncertainty(M=40, random_state=0, n_jobs=2).fit(ds.X_train, ds.y_train)
        for gamma in gammas:
            t0 = time.perf_counter()
            d = svm_status(ds.X_train, ds.y_train, gamma)
            t_fit = time.perf_counter() - t0
            floor = _best_of(lambda d=d, bu=bu: d(bu.X_tilde_))
            ev = _best_of(lambda d=d, bu=bu: bu.evaluate(d))
            t0 = time.perf_counter()
            for tr, va in StratifiedKFold(10, shuffle=True, random_state=0).split(ds.X_train, ds.y_train):
                svm_status(ds.X_train[tr], ds.y_train[tr], gamma).predict(ds.X_train[va])
            t_cv = time.perf_counter() - t0
            print(f"{N:>6} {np.log2(gamma):>5.0f} {floor:>8.3f} {ev:>8.3f} {ev / floor:>10.3f} {t_fit:>7.2f} "
                  f"{t_cv:>7.2f} {t_cv / ev:>9.1f}", flush=True)


def _part_b_child(N, queue):
    from buviz.classifiers import PrototypeClassifier, as_discriminant
    from buviz.uncertainty import BoundaryUncertainty

    rng = np.random.default_rng(0)
    X = rng.normal(size=(N, 2))
    y = (X[:, 0] + 0.5 * rng.normal(size=N) > 0).astype(int)
    pbc = PrototypeClassifier.from_prototypes([np.array([[-1.0, 0.0], [-1.0, 1.0]]),
                                               np.array([[1.0, 0.0], [1.0, 1.0]])])
    d = as_discriminant(pbc)
    t0 = time.perf_counter()
    bu = BoundaryUncertainty(M=40, random_state=0, n_jobs=2).fit(X, y)
    t_fit = time.perf_counter() - t0
    floor = _best_of(lambda: d(bu.X_tilde_))
    ev = _best_of(lambda: bu.evaluate(d))
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    queue.put((N, t_fit, floor, ev, peak_mb))


def part_b(sizes):
    print("\nPart B: prototype-classifier discriminant, M = 40 (each N in a fresh process)")
    print(f"{'N':>9} {'fit s':>7} {'floor s':>8} {'eval s':>7} {'eval/N µs':>9} {'peak RSS MB':>11}")
    ctx = mp.get_context("spawn")
    for N in sizes:
        q = ctx.Queue()
        p = ctx.Process(target=_part_b_child, args=(N, q))
        p.start()
        N, t_fit, floor, ev, peak = q.get()
        p.join()
        print(f"{N:>9} {t_fit:>7.2f} {floor:>8.3f} {ev:>7.3f} {ev / N * 1e6:>9.2f} {peak:>11.0f}", flush=True)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="smaller sizes, for a smoke run")
    ap.add_argument("--huge", action="store_true", help="only Part B at N = 1e5, 1e6, 1e7")
    args = ap.parse_args()
    if args.huge:
        part_b([100_000, 1_000_000, 10_000_000])
    elif args.quick:
        part_a([2000], [1.0])
        part_b([10_000, 100_000])
    else:
        part_a([2000, 5000, 10000], [1.0, 32.0])
        part_b([10_000, 100_000, 1_000_000])
