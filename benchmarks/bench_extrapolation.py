"""Benchmark for buviz.extrapolation (a script that prints figures, not a test).

Default: the side-by-side table against the ClassEx R package on its own 1-NN Gaussian simulation
(``buviz/data/peers/classex_public.npz``, shipped with the package: 30 instances, 500 observed of
2000 classes, σ² = 0.05..0.5, predict the 2000-class accuracy from k = 20, 40, ..., 500). For every
method: max and mean over σ² of the RMSE against the exact 2000-class accuracy, the peer's stored
predictions scored the same way, agreement with the peer per instance, and seconds per instance (wall
clock, this machine).

Margins are minus the *Euclidean* distances, as in the peer's simulation script (``pdist2`` returns
distances); the row "kde (ucv), -squared distance" shows what the KDE does on minus squared distances.

Options:
  --fresh N     also draw N new instances per σ² the same way (2000 classes, 500 observed; truth by
                eq 3 on all 2000) and score our methods on them (no peer column: R is not needed).
  --legacy      also run the older sections (eq 3 speed; 400-from-20 on a synthetic population).

Usage: python benchmarks/bench_extrapolation.py [--fixture PATH] [--fresh 5] [--legacy]
"""

from __future__ import annotations

import argparse
import math
import os
import time

import numpy as np
from scipy.spatial.distance import cdist

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


SIGMA2S = (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5)

# (label, extrapolate() keywords, peer field or None)
METHOD_ROWS = [
    ("classexreg", {"method": "classexreg"}, "ClassExReg"),
    ("kde (ucv)", {"method": "kde", "bw": "ucv"}, "KDE_UCV"),
    ("kde (bcv)", {"method": "kde", "bw": "bcv"}, "KDE_BCV"),
    ("best", {"method": "best"}, None),
    ("moment (linear spline)", {"method": "moment"}, None),
]


def _rmse_by_sigma(pred, truth, sigma2):
    levels = np.unique(sigma2)
    r = np.array([np.sqrt(np.mean((pred[sigma2 == s] - truth[sigma2 == s]) ** 2)) for s in levels])
    return r.max(), r.mean(), levels[int(np.argmax(r))]


def _run_methods(margins, ks, k_target, rows, random_state=0):
    """Predictions (n_instances,), mean wall-clock and CPU seconds per instance for every row."""
    y = np.arange(margins[0].shape[1])
    ex.extrapolate(margins[0], y, k_target, method="classexreg", ks=ks)      # warm the basis cache
    out = {}
    for label, kw, _ in rows:
        preds, secs, cpu = [], [], []
        for M in margins:
            t0, c0 = time.perf_counter(), time.process_time()
            preds.append(ex.extrapolate(M, y, k_target, ks=ks, random_state=random_state, **kw))
            secs.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
        out[label] = (np.array(preds), float(np.mean(secs)), float(np.mean(cpu)))
    return out


def bench_fixture(path=None) -> None:
    d = ex.load_classex_fixture(path)
    s2, truth, ks = d["sigma2"], d["truth"], d["ks_train"]
    k_target = int(d["k_total"])
    margins = [-cdist(d["ys"][i], d["mu_hats"][i]) for i in range(len(s2))]
    t0 = time.perf_counter()
    res = _run_methods(margins, ks, k_target, METHOD_ROWS)
    sq = [-cdist(d["ys"][i], d["mu_hats"][i], "sqeuclidean") for i in range(len(s2))]
    res["kde (ucv), -squared distance"] = _run_methods(sq, ks, k_target, [("x", {"method": "kde"}, None)])["x"]
    total = time.perf_counter() - t0
    print(f"[ClassEx fixture] {len(s2)} instances, {d['k_observed']} -> {k_target} classes, "
          f"sigma2 {s2.min():g}..{s2.max():g}; {total:.0f} s for everything below")
    print(f"load average at start: {os.getloadavg()[0]:.1f} (wall-clock times grow with other processes' load; "
          "CPU seconds much less)")
    print("| method | ClassEx (R) max RMSE | buviz max RMSE | ClassEx mean RMSE | buviz mean RMSE "
          "| within 0.01 of ClassEx | max abs diff to ClassEx | buviz s/instance (wall) | buviz CPU s/instance |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    peer_of = {label: key for label, _, key in METHOD_ROWS}
    for label, (pred, secs, cpu) in res.items():
        mx, mn, _ = _rmse_by_sigma(pred, truth, s2)
        key = peer_of.get(label)
        if key is not None:
            pmx, pmn, _ = _rmse_by_sigma(d[key], truth, s2)
            diff = np.abs(pred - d[key])
            peer = (f"{pmx:.3f}", f"{pmn:.3f}", f"{np.mean(diff < 0.01):.0%}", f"{diff.max():.1e}")
        else:
            peer = ("–", "–", "–", "–")
        print(f"| {label} | {peer[0]} | {mx:.3f} | {peer[1]} | {mn:.3f} | {peer[2]} | {peer[3]} | {secs:.2f} "
              f"| {cpu:.2f} |")
    print(f"ClassEx seconds per instance for its three predictions: {d['secs'].mean():.2f} (fixture, busy "
          "machine); about 0.42 on an idle 2-core machine (peer README)")


def _one_nn_instance(n_classes, n_observed, sigma2, seed):
    """The ClassEx simulation: margins of the observed classes and the exact n_classes accuracy."""
    rng = np.random.default_rng(seed)
    mu = rng.standard_normal((n_classes, 10))
    ys = mu + np.sqrt(sigma2) * rng.standard_normal((n_classes, 10))
    mh = mu + np.sqrt(sigma2) * rng.standard_normal((n_classes, 10))
    D = cdist(ys, mh)
    own = D[np.arange(n_classes), np.arange(n_classes)][:, None]
    ranks = np.count_nonzero(D >= own, axis=1)                  # 1 = worst, n_classes = correct
    truth = ex.average_accuracy_from_ranks(ranks, n_classes, k1=n_classes)
    return -D[:n_observed, :n_observed], truth


def bench_fresh(per_sigma: int, sigma2s=SIGMA2S) -> None:
    ks = np.arange(20, 501, 20)
    margins, truth, s2 = [], [], []
    for s in sigma2s:
        for r in range(per_sigma):
            M, t = _one_nn_instance(2000, 500, s, seed=10_000 + 100 * r + int(round(s * 100)))
            margins.append(M)
            truth.append(t)
            s2.append(s)
    truth, s2 = np.array(truth), np.array(s2)
    res = _run_methods(margins, ks, 2000, METHOD_ROWS)
    print(f"[fresh draws] {len(s2)} instances ({per_sigma} per sigma2), 500 -> 2000 classes")
    print("| method | buviz max RMSE | buviz mean RMSE | worst sigma2 | s/instance (wall) | CPU s/instance |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, (pred, secs, cpu) in res.items():
        mx, mn, worst = _rmse_by_sigma(pred, truth, s2)
        print(f"| {label} | {mx:.3f} | {mn:.3f} | {worst:g} | {secs:.2f} | {cpu:.2f} |")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--fixture", default=None, help="another .npz (default: the one shipped with buviz)")
    ap.add_argument("--fresh", type=int, default=0)
    ap.add_argument("--legacy", action="store_true")
    args = ap.parse_args()
    bench_fixture(args.fixture)
    if args.fresh:
        bench_fresh(args.fresh)
    if args.legacy:
        bench_eq3()
        bench_population()


if __name__ == "__main__":
    main()
