"""Benchmark for buviz.extrapolation (a script that prints figures, not a test).

1. AverageTA_k (eq 3) for every k <= k1 = 1000 with r2 = 10 test points per class, against a naive
   baseline (exact integer binomials per test point, ``math.comb``) measured in the same run.
2. Each estimator's error predicting k = 400 from K = 20 on a synthetic population (ground truth =
   eq 3 on all 1000 classes).
3. The peers' benchmark (SPEC §2, ClassEx simulation): 1-NN, one train/test point per class in
   10-D, predict k = 2000 and 10000 from k1 = 500; RMSE over replicates, max over σ².

Usage: python benchmarks/bench_extrapolation.py [--reps 3] [--sigma2 0.05 0.1 ...] [--skip-peers]
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from buviz import extrapolation as ex


def bench_eq3(k1: int = 1000, r2: int = 10, n_naive_k: int = 40) -> None:
    rng = np.random.default_rng(0)
    ranks = rng.integers(1, k1 + 1, size=(k1, r2))
    ks = np.arange(2, k1 + 1)
    ex.average_accuracy_from_ranks(ranks, ks)                    # warm-up
    t0 = time.perf_counter()
    n_rep = 5
    for _ in range(n_rep):
        fast = ex.average_accuracy_from_ranks(ranks, ks)
    t_fast = (time.perf_counter() - t0) / n_rep
    # naive: exact big-integer binomials for each test point and each k (a subset of k, then scaled)
    sub = np.unique(np.linspace(2, k1, n_naive_k).astype(int))
    flat = ranks.ravel().tolist()
    t0 = time.perf_counter()
    naive = []
    for k in sub:
        den = math.comb(k1 - 1, k - 1)
        naive.append(sum(math.comb(r - 1, k - 1) for r in flat) / den / len(flat))
    t_naive_sub = time.perf_counter() - t0
    t_naive = t_naive_sub * len(ks) / len(sub)
    err = np.max(np.abs(np.array(naive) - fast[sub - 2]))
    print(f"[eq 3] k1={k1}, r2={r2}, all k=2..{k1}: {t_fast * 1e3:.1f} ms  "
          f"(naive exact integers: {t_naive_sub:.2f} s for {len(sub)} k -> ~{t_naive:.1f} s for all k; "
          f"speed-up ~{t_naive / t_fast:.0f}x; max |difference| {err:.1e})")


def bench_population(seeds=range(10)) -> None:
    pop = ex.make_population(1000, 10, rho=0.8, n_train=5, n_test=20, random_state=0)
    M, y = ex.population_margins(pop, "nearest_centroid")
    truth = ex.average_accuracy(M, y, [20, 400])
    print(f"[population] nearest centroid, rho=0.8, p=10, 1000 classes: truth AGA_20={truth[0]:.3f}, "
          f"AGA_400={truth[1]:.3f}")
    errs: dict[str, list] = {}
    for seed in seeds:
        rng = np.random.default_rng(seed)
        S = np.sort(rng.choice(1000, 20, replace=False))
        sel = np.isin(y, S)
        remap = np.full(1000, -1)
        remap[S] = np.arange(20)
        Ms, ys = M[np.ix_(sel, S)], remap[y[sel]]
        for method in ex.METHODS + ex.EXTRA_METHODS:
            t0 = time.perf_counter()
            a = ex.extrapolate(Ms, ys, 400, method=method, random_state=seed)
            errs.setdefault(method, []).append((a - truth[1], time.perf_counter() - t0))
    # class-sampling floor: the mean over the K sampled classes of their *exact* population accuracy at
    # k=400 (what a perfect per-class extrapolator would report) still differs from the truth
    r = ex.ranks_from_margins(M, y)
    per_class = np.array([ex.average_accuracy_from_ranks(r[y == c], 400, k1=1000) for c in range(1000)]).ravel()
    floor = [per_class[np.sort(np.random.default_rng(s).choice(1000, 20, replace=False))].mean() - truth[1]
             for s in seeds]
    print(f"  {'oracle':11s} (class-sampling floor) errors: {np.round(floor, 3)}  max|e|={np.max(np.abs(floor)):.3f}")
    for method, v in errs.items():
        e = np.array([x[0] for x in v])
        print(f"  {method:11s} errors at k=400 from K=20: {np.round(e, 3)}  "
              f"max|e|={np.max(np.abs(e)):.3f}  rmse={np.sqrt(np.mean(e**2)):.3f}  "
              f"time/fit={np.mean([x[1] for x in v]):.2f}s")


def _one_nn_truth(n_classes, sigma2, ks, seed, chunk=1000):
    """eq 3 on a big 1-NN population, ranks computed in chunks (no n x n matrix in memory)."""
    rng = np.random.default_rng(seed)
    mu = rng.standard_normal((n_classes, 10))
    xtr = mu + np.sqrt(sigma2) * rng.standard_normal((n_classes, 10))
    xte = mu + np.sqrt(sigma2) * rng.standard_normal((n_classes, 10))
    ranks = np.empty(n_classes, dtype=np.int64)
    sq_tr = (xtr**2).sum(1)
    for s in range(0, n_classes, chunk):
        a = xte[s:s + chunk]
        d = (a**2).sum(1)[:, None] + sq_tr[None, :] - 2 * a @ xtr.T
        own = d[np.arange(len(a)), np.arange(s, s + len(a))][:, None]
        ranks[s:s + chunk] = np.count_nonzero(d >= own, axis=1)
    truth = ex.average_accuracy_from_ranks(ranks, ks, k1=n_classes)
    return truth, xtr, xte


def bench_peers(sigma2s, reps: int, k_big: int = 10000, k1: int = 500) -> None:
    targets = [2000, 10000]
    ks_train = np.arange(20, k1 + 1, 20)
    methods = ex.METHODS + ex.EXTRA_METHODS
    res = {m: {t: {} for t in targets} for m in methods}
    t_start = time.perf_counter()
    for s2 in sigma2s:
        for rep in range(reps):
            truth, xtr, xte = _one_nn_truth(k_big, s2, targets, seed=1000 * rep + int(s2 * 1000))
            rng = np.random.default_rng(rep)
            S = np.sort(rng.choice(k_big, k1, replace=False))
            a, b = xte[S], xtr[S]
            M = -((a**2).sum(1)[:, None] + (b**2).sum(1)[None, :] - 2 * a @ b.T)
            y = np.arange(k1)
            for m in methods:
                pred = ex.extrapolate(M, y, targets, method=m, ks=ks_train, random_state=rep)
                for t, p, tr in zip(targets, pred, truth, strict=True):
                    res[m][t].setdefault(s2, []).append(p - tr)
    print(f"[peers] 1-NN, p=10, k1={k1} -> {targets}, sigma2 in {list(sigma2s)}, {reps} reps "
          f"({time.perf_counter() - t_start:.0f} s). Max over sigma2 of the RMSE "
          "(published: ClassExReg 0.044/0.098, KDE-UCV 0.059/0.045, KDE-BCV 0.088/0.076):")
    for m in methods:
        line = []
        for t in targets:
            rmse = {s2: float(np.sqrt(np.mean(np.square(v)))) for s2, v in res[m][t].items()}
            worst = max(rmse, key=rmse.get)
            line.append(f"k={t}: max RMSE {rmse[worst]:.3f} (at sigma2={worst})")
        print(f"  {m:11s} " + "; ".join(line))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--sigma2", type=float, nargs="*", default=[0.01, 0.05, 0.1, 0.2, 0.3, 0.5])
    ap.add_argument("--skip-peers", action="store_true")
    args = ap.parse_args()
    bench_eq3()
    bench_population()
    if not args.skip_peers:
        bench_peers(args.sigma2, args.reps)


if __name__ == "__main__":
    main()
