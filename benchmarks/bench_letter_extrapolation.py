"""Accuracy extrapolation on a real 26-class problem: Letter Recognition (a script, not a test).

    nice -n 10 python benchmarks/bench_letter_extrapolation.py [--draws 30] [--n-train 5200] [--n-test 2600]

From random subsets of k = 2…10 of the 26 letters (``--draws`` subsets per k, the same subsets for
both classifiers), predict the 26-class accuracy of two marginal classifiers (Definition 2.1 of Zheng,
Achanta & Benjamini 2017: 1-NN on the training points, and QDA, a generative classifier, covariance
shrunk half-way to the identity) with each estimator of :func:`buviz.extrapolation.extrapolate`
(``moment``, ``classexreg``, ``kde``, ``best``), and compare with the true 26-class accuracy: eq 3
at k = 26 on all 26 letters (each letter weighted equally), which for a marginal classifier is the
accuracy of the classifier trained on all 26. Margins of a subset are the matching columns of the
26-class margin matrix (a marginal classifier's class scores depend on that class's data alone).

Data: ``buviz.datasets.load("letter", n_train, n_test)``: stratified subsamples of the paper's
10 000 / 10 000 split (the full sizes would need a 10 000 × 10 000 distance matrix for 1-NN).

Writes ``buviz/data/tables/letter_extrapolation.csv`` (one row per classifier, k and method: the
mean, standard deviation, bias and RMSE of the predictions over the draws, the failures, the mean
accuracy observed on the k letters, the truth, and the settings) and prints it.

References
----------
C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating expected accuracies for multi-class
classification", manuscript, April 21, 2017; arXiv:1606.05228. https://arxiv.org/abs/1606.05228

C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating Expected Accuracies for Large Multi-Class
Problems", *Journal of Machine Learning Research* 19, 1-30, 2018. https://jmlr.org/papers/v19/17-701.html
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd

import buviz
from buviz import datasets
from buviz import extrapolation as ex

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "buviz" / "data" / "tables" / "letter_extrapolation.csv"  # shipped: notebook 04 reads it
CLASSIFIERS = ("1nn", "qda")
METHODS = ("moment", "classexreg", "kde", "best")
KS = range(2, 11)


def letter_extrapolation(draws: int = 30, n_train: int = 5200, n_test: int = 2600, seed: int = 0, ks=KS,
                         classifiers=CLASSIFIERS, progress=print) -> pd.DataFrame:
    """The table of the module docstring (the subsets of k are drawn for k = 2, 3, … in turn)."""
    t_start = time.perf_counter()
    ds = datasets.load("letter", n_train=n_train, n_test=n_test, random_state=seed)
    J, y = ds.n_classes, ds.y_test
    rng = np.random.default_rng(seed)
    subsets = {k: [np.sort(rng.choice(J, k, replace=False)) for _ in range(draws)] for k in ks}
    rows = []
    for clf in classifiers:
        M = ex.margin_matrix(clf, ds.X_train, ds.y_train, ds.X_test, random_state=seed)
        ranks = ex.ranks_from_margins(M, y)
        truth = float(ex.average_accuracy_from_ranks(ranks, [J], k1=J, groups=y)[0])
        for k in ks:
            preds = {m: [] for m in METHODS}
            observed = []
            for S in subsets[k]:
                te = np.isin(y, S)
                remap = np.full(J, -1)
                remap[S] = np.arange(k)
                Ms, ys = M[te][:, S], remap[y[te]]
                r = ex.ranks_from_margins(Ms, ys)
                observed.append(float(ex.average_accuracy_from_ranks(r, [k], k1=k, groups=ys)[0]))
                for m in METHODS:
                    try:
                        preds[m].append(float(ex.extrapolate(Ms, ys, J, method=m, random_state=seed)))
                    except (ValueError, np.linalg.LinAlgError):
                        preds[m].append(np.nan)
            for m in METHODS:
                p = np.asarray(preds[m])
                ok = p[np.isfinite(p)]
                rows.append({"classifier": clf, "k": k, "method": m, "n_draws": draws,
                             "n_failed": int(np.sum(~np.isfinite(p))), "truth_26": truth,
                             "mean_pred": ok.mean() if ok.size else np.nan,
                             "sd_pred": ok.std(ddof=1) if ok.size > 1 else np.nan,
                             "bias": ok.mean() - truth if ok.size else np.nan,
                             "rmse": float(np.sqrt(np.mean((ok - truth) ** 2))) if ok.size else np.nan,
                             "observed_k_acc": float(np.mean(observed)),
                             "n_train": len(ds.y_train), "n_test": len(y), "seed": seed,
                             "buviz_version": buviz.__version__})
            if progress:
                progress(f"{clf} k={k:2d} done ({time.perf_counter() - t_start:.0f} s)")
    return pd.DataFrame(rows).round(6)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=30, help="label subsets per k")
    parser.add_argument("--n-train", type=int, default=5200)
    parser.add_argument("--n-test", type=int, default=2600)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    t_start = time.perf_counter()
    table = letter_extrapolation(args.draws, args.n_train, args.n_test, args.seed,
                                 progress=lambda text: print(text, flush=True))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.out, index=False)
    wide = table.pivot_table(index=["classifier", "k"], columns="method", values="rmse")
    print(f"\nRMSE of the predicted 26-class accuracy (truth: "
          f"{', '.join(f'{c} {t:.4f}' for c, t in table.groupby('classifier').truth_26.first().items())}):")
    print(wide.round(3).to_string())
    print(f"\nwrote {args.out} ({len(table)} rows, {time.perf_counter() - t_start:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
