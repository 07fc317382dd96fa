"""Speed of the moment method's spline fit: :func:`buviz.extrapolation.spline_nnls` against scipy's nnls.

    python benchmarks/bench_spline_nnls.py [--repeats 5]

The linear-spline fit of Zheng, Achanta & Benjamini (2017, §4.3; m = 10 000 knots in §5.1) is a
non-negative least-squares problem with one row per fitted class count (19 to 25) and one column per knot.
For each m and each problem (the authors' four Telugu 20-class matrices when their files are found, and
toy-model draws of 20 classes, Bayes rule, ρ = 0.5 and 0.9), this script times the fit with buviz's
active-set solver and with :func:`scipy.optimize.nnls` on the same design (the best of ``--repeats`` runs
each, the design built once beforehand, as the explorer's cache does), checks that both reach the same
ÂGA₄₀₀, and prints the times and their ratio. The ratio, not the absolute time, is what carries over to
another machine.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from scipy.optimize import nnls

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from buviz import extrapolation as ex  # noqa: E402

MS = (100, 1000, 10_000, 100_000)


def problems():
    ks = np.arange(2, 21)
    out = []
    try:
        from buviz.datasets import fetch_telugu_scores

        scores = fetch_telugu_scores()
        for paper in ex.PAPER_TABLE1:
            if paper["matrix"]:
                M, y = scores.margins(paper["matrix"])
                out.append((f"Telugu {paper['classifier']}", 1 - ex.average_accuracy(M, y, ks)))
    except Exception as err:  # noqa: BLE001 - the Telugu files are optional here
        print(f"(Telugu skipped: {err})")
    for rho in (0.5, 0.9):
        M, y = ex.toy_margins(20, rho, r_test=5, random_state=int(rho * 10))
        out.append((f"toy ρ = {rho}", 1 - ex.average_accuracy(M, y, ks)))
    return ks, out


def best_of(fn, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        res = fn()
        times.append(time.perf_counter() - t0)
    return min(times), res


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    ks, probs = problems()
    print(f"{'problem':24s} {'m':>7s} {'active set ms':>14s} {'scipy ms':>10s} {'ratio':>6s} {'|ΔÂGA400|':>10s}")
    for m in MS:
        t = np.arange(m) / m
        H = ex.moment_matrix("linear_spline", ks, params=t)
        h = ex.moment_matrix("linear_spline", [400], params=t)[0]
        ratios = []
        for name, risk in probs:
            ta, (beta, _) = best_of(lambda H=H, risk=risk: ex.spline_nnls(H, risk), args.repeats)
            tb, (ref, _) = best_of(lambda H=H, risk=risk, m=m: nnls(H, risk, maxiter=50 * m), args.repeats)
            ratios.append(tb / ta)
            print(f"{name:24s} {m:7d} {1e3 * ta:14.2f} {1e3 * tb:10.2f} {tb / ta:6.1f} {abs(h @ beta - h @ ref):10.2e}")
        print(f"{'median ratio':24s} {m:7d} {'':14s} {'':10s} {np.median(ratios):6.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
