"""Proposal 2 vs Proposal 1: wall time per classifier status and Table-3 style op-count gains.

    python benchmarks/bench_proposal1.py [--sizes 500 1000 2000 5000] [--repeats 5] [--gamma 1]

On ``gmm`` with an RBF SVC (C = 1) at one γ, for each training-set size N: the time of ``fit``
(shared work, reported apart) and of ``evaluate`` (the per-status work the paper compares, §6.10.1)
of both proposals, as the minimum and the median over ``--repeats`` evaluations (3× as many for the
faster Proposal 2); how much of it is spent in the classifier; the wall-clock gain; and the gains in
elementary operations, counted on the run (``"counted"``) and from the §5 formulas (``"paper"``).
``unbatched_P1_s`` estimates Proposal 1 with one classifier call per dichotomy step *per anchor*
(R_A·i_max calls of one sample, the paper's description taken literally): the measured time of a
one-sample call times R_A·i_max, plus the batched run's non-dichotomy time. Finally Table 3
recomputed from the formulas.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import pandas as pd

from buviz import datasets
from buviz.classifiers import svm_status
from buviz.uncertainty import BoundaryUncertainty, Proposal1, gains, proposal1_costs, proposal2_costs, table3


def _time(fn, repeats: int) -> tuple[list[float], object]:
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return times, out


def bench_size(N: int, gamma: float, repeats: int, M: int, seed: int) -> tuple[dict, pd.DataFrame]:
    ds = datasets.load("gmm", n_train=N, n_test=100, random_state=seed)
    X, y = ds.X_train, ds.y_train
    disc = svm_status(X, y, gamma)

    t0 = time.perf_counter()
    bu = BoundaryUncertainty(M=M, random_state=seed).fit(X, y)
    fit2 = time.perf_counter() - t0
    t0 = time.perf_counter()
    p1 = Proposal1(random_state=seed).fit(X, y)
    fit1 = time.perf_counter() - t0

    bu.evaluate(disc)  # warm-up (first-call overheads)
    t2, r2 = _time(lambda: bu.evaluate(disc), 3 * repeats)
    t1, r1 = _time(lambda: p1.evaluate(disc), repeats)

    one = X[:1]
    t_one = min(_time(lambda: disc(one), 50)[0])
    dichotomy = r1.classifier_time - (r1.classifier_time / r1.classified_samples) * N  # calls on midpoints
    unbatched = (r1.evaluate_time - dichotomy) + t_one * p1.R_A_ * p1.i_max

    counted = gains(proposal1_costs(r1), proposal2_costs(r2, mode="counted"))["gain"]
    paper = gains(proposal1_costs(N=N, d=X.shape[1], J=ds.n_classes),
                  proposal2_costs(N=N, M=M, J=ds.n_classes))["gain"]
    row = {
        "N": N,
        "n_SV": int(disc.estimator.n_support_.sum()),
        "fit_P2_s": fit2,
        "fit_P1_s": fit1,
        "P2_min_s": min(t2),
        "P2_med_s": statistics.median(t2),
        "P1_min_s": min(t1),
        "P1_med_s": statistics.median(t1),
        "P1_classifier_share": r1.classifier_time / r1.evaluate_time,
        "gain_min": min(t1) / min(t2),
        "gain_med": statistics.median(t1) / statistics.median(t2),
        "unbatched_P1_s": unbatched,
        "n_B": len(r1.near_boundary),
        "U1": r1.value,
        "U2": r2.value,
    }
    ops = pd.DataFrame({"N": N, "G_counted": counted, "G_paper": paper}).rename_axis("op").reset_index()
    return row, ops


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[500, 1000, 2000, 5000])
    ap.add_argument("--gamma", type=float, default=1.0)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--M", type=int, default=40)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)

    rows, ops = [], []
    for N in args.sizes:
        row, op = bench_size(N, args.gamma, args.repeats, args.M, args.seed)
        rows.append(row)
        ops.append(op)
        print(f"N={N}: P2 {row['P2_min_s']:.4f} s, P1 {row['P1_min_s']:.4f} s, gain {row['gain_min']:.1f}x",
              flush=True)

    pd.set_option("display.width", 200)
    pd.set_option("display.max_columns", 30)
    print(f"\nWall time per status on gmm, SVC(gamma={args.gamma:g}, C=1), evaluate only (fit apart), "
          f"R_A = N, i_max = 20, R_T = 10, i_K = 20, N_max = 40, N_min = 10, M = {args.M}")
    print(pd.DataFrame(rows).to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    table = pd.concat(ops).pivot(index="N", columns="op")
    print("\nOp-count gains G_op = c_op(P1) / c_op(P2) per status (counted on the run | §5 formulas)")
    print(table.to_string(float_format=lambda v: "nan" if np.isnan(v) else f"{v:.3g}"))
    print("\nTable 3 recomputed from the §5 formulas (R_A = N, N_max = 40, log base 2) vs printed")
    print(table3().to_string(float_format=lambda v: f"{v:.2g}"))


if __name__ == "__main__":
    main()
