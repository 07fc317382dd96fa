"""Benchmark for buviz.discrete (a script, not a test): prints timings and ratios to a baseline.

1. Exact S(p) on a 201-point p grid for N = 200, k = 50 (target <= 1 s), per closed-form method,
   against a baseline that evaluates the same mu/sigma/omega sums with plain Python loops over
   (n1, n2) for a few p values (extrapolated to 201).
2. The balanced-optimal table for N = 50, k = 10 (target <= 10 s), against a baseline that runs the
   same damped iteration with a Python loop over cells for a few iterations (extrapolated).
"""

from __future__ import annotations

import math
import time

import numpy as np

from buviz import discrete as d


def _loop_delta(x, N, k, p):
    """Naive Delta(p): Python loops over the trinomial pairs (n1, n2) and the cell counts m."""
    a = 1.0 / k
    psi = d.true_risk_table(N, a, p)
    ph = np.zeros(N + 1)
    phh = np.zeros(N + 1)
    for n in range(N + 1):
        for m in range(n + 1):
            b = math.comb(n, m) * p**m * (1 - p) ** (n - m)
            h = x[n, m] - psi[n, m]
            ph[n] += b * h
            phh[n] += b * h * h
    single = sum(math.comb(N, n) * a**n * (1 - a) ** (N - n) * phh[n] for n in range(N + 1))
    cross = 0.0
    for n1 in range(N + 1):
        for n2 in range(N + 1 - n1):
            t = math.exp(math.lgamma(N + 1) - math.lgamma(n1 + 1) - math.lgamma(n2 + 1)
                         - math.lgamma(N - n1 - n2 + 1) + (n1 + n2) * math.log(a)
                         + (N - n1 - n2) * math.log(1 - 2 * a))
            cross += t * ph[n1] * ph[n2]
    return k * single + k * (k - 1) * cross


def bench_rms():
    N, k = 200, 50
    p = np.linspace(0, 1, 201)
    print(f"== exact S(p), N={N}, k={k}, {p.size} p values ==")
    for method in ("resubstitution", "loo", "bootstrap632"):
        d._bootstrap632_cached.cache_clear()
        t0 = time.perf_counter()
        x = d.cell_values(method, N, N)
        t1 = time.perf_counter()
        S = d.moments(x, N, k, p).S
        t2 = time.perf_counter()
        n_base = 3
        tb = time.perf_counter()
        base = [math.sqrt(max(_loop_delta(x, N, k, float(pv)), 0.0)) for pv in p[[20, 100, 170]]]
        tb = (time.perf_counter() - tb) / n_base * p.size
        assert np.allclose(base, S[[20, 100, 170]], rtol=1e-8)
        print(f"{method:15s} table {t1 - t0:6.3f} s  moments {t2 - t1:6.3f} s  total {t2 - t0:6.3f} s"
              f"  | loop baseline ~{tb:7.1f} s (extrapolated)  speed-up x{tb / (t2 - t1):.0f}")


def bench_balanced():
    N, k = 50, 10
    print(f"== balanced-optimal table, N={N}, k={k} (tau=0.1, 201 p values) ==")
    t0 = time.perf_counter()
    r = d.balanced_optimal(N, k)
    el = time.perf_counter() - t0
    print(f"vectorised: {el:6.2f} s, {r.iterations} projected iterations + 117 paper-gauge steps,"
          f" residual {r.residual:.1e}, drift {r.drift:.2e}")
    # baseline: the same derivative evaluated cell by cell in Python, 2 iterations, extrapolated
    prob = d._BalancedProblem(N, k, r.p_grid)
    x = np.minimum(prob.cm, prob.cn - prob.cm) / N
    t0 = time.perf_counter()
    iters = 2
    for _ in range(iters):
        pi_h = np.add.reduceat(prob.Bc * x, prob.starts, axis=1) - prob.pi_g
        c = pi_h @ prob.C.T
        new = x.copy()
        for j in range(x.size):
            D = prob.Bc[:, j] * ((x[j] - prob.psi[:, j]) + (k - 1) * c[:, prob.cn[j]])
            ip, im = int(D.argmax()), int(D.argmin())
            bp, bm = prob.Bc[ip, j], prob.Bc[im, j]
            d2 = bp * (1 + (k - 1) * prob.Cdiag[j] * bp) + bm * (1 + (k - 1) * prob.Cdiag[j] * bm)
            if d2 > 0:
                new[j] = x[j] - 0.1 * (D[ip] + D[im]) / d2
        x = new
    per_it = (time.perf_counter() - t0) / iters
    base = per_it * (r.iterations + 117)
    print(f"per-cell loop baseline: {per_it * 1e3:.1f} ms/iteration -> ~{base:.1f} s for the same iterations;"
          f" speed-up x{base / el:.1f}")


if __name__ == "__main__":
    bench_rms()
    bench_balanced()
