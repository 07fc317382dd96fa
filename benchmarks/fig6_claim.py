"""The paper's Fig 6 claim on `gmm` (N = 2000, N_te = 18000, γ = 2^−10 … 2^10): with T̃, Û_tr ≈ Û_te.

Prints mean |Û_tr − Û_te| over the γ grid with T̃ (a = 1/2, the default) and without (a = 0), the
argmin of −Û_tr and of L_te, and the test error at the γ each criterion picks.

Run:  python benchmarks/fig6_claim.py [--seeds 0 1 2]
"""

from __future__ import annotations

import argparse

import numpy as np

from buviz import datasets
from buviz.classifiers import svm_status
from buviz.uncertainty import BoundaryUncertainty


def main(seeds, amplitudes):
    log2g = np.arange(-10, 11)
    print(f"{'seed':>4} {'a':>4} {'mean|Utr-Ute|':>13} {'argmax Utr':>10} {'argmin Lte':>10} "
          f"{'Lte@U':>6} {'min Lte':>7}")
    for seed in seeds:
        ds = datasets.load("gmm", n_train=2000, n_test=18000, random_state=seed)
        statuses = [svm_status(ds.X_train, ds.y_train, 2.0**g) for g in log2g]
        l_te = np.array([np.mean(d.predict(ds.X_test) != ds.y_test) for d in statuses])
        for a in amplitudes:
            bu_tr = BoundaryUncertainty(M=40, perturbation=a, random_state=0).fit(ds.X_train, ds.y_train)
            bu_te = BoundaryUncertainty(M=40, perturbation=a, random_state=0).fit(ds.X_test, ds.y_test)
            u_tr = np.array([bu_tr.evaluate(d).value for d in statuses])
            u_te = np.array([bu_te.evaluate(d).value for d in statuses])
            print(f"{seed:>4} {a:>4} {np.mean(np.abs(u_tr - u_te)):>13.3f} {log2g[u_tr.argmax()]:>10} "
                  f"{log2g[l_te.argmin()]:>10} {l_te[u_tr.argmax()]:>6.3f} {l_te.min():>7.3f}", flush=True)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, nargs="*", default=[0, 1, 2])
    ap.add_argument("--amplitudes", type=float, nargs="*", default=[0.5, 0.0, 1.0])
    args = ap.parse_args()
    main(args.seeds, args.amplitudes)
