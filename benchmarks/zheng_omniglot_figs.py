"""Figs 11 and 12 of Zheng, Achanta & Benjamini (2017) on a real many-class task: Omniglot (a script).

    nice -n 10 python benchmarks/zheng_omniglot_figs.py [--data-dir DIR] [--repeats 20] [--seed 0]

The paper's face experiment (section 5.1: LFW, one training and one test photo per person, 1-NN on
OpenFace features, 1672 people) cannot be redone: its features are not obtainable. Omniglot (1623
handwritten characters × 20 drawers; :func:`buviz.datasets.fetch_omniglot`, 32 × 32 grey) has the
same shape: for every character two random drawers, one training and one test image; the classifier
is one-shot 1-NN on the pixels, margins ``-‖x_test - x_train‖²`` (a marginal classifier, Definition
2.1). The ground truth is AverageTA_k (eq 3, exact) on all 1623 characters.

- Fig 11 (``zheng_fig11_omniglot.csv``): K = 400 random characters; AverageTA_k observed on them
  (k ≤ 400), every estimator's extrapolation (moment, classexreg, kde, best) to k = 1623, the truth.
- Fig 12 (``zheng_fig12_omniglot.csv``): for K = 50, 100, 200, 400, 800, ``--repeats`` random subsets;
  each estimator's extrapolated curve from each subset, and the truth.

Both tables ship in ``buviz/data/tables`` (our numbers; the images do not ship) and the figures
``extrapolation_fig11`` / ``extrapolation_fig12`` read them. Takes about two minutes on two cores.
``tests/figures/test_extrapolation_paper_keys.py`` recomputes the truth when the data are present.

References
----------
C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating expected accuracies for multi-class
classification", manuscript, April 21, 2017, section 5.1, Figs 11-12; arXiv:1606.05228.

B. M. Lake, R. Salakhutdinov and J. B. Tenenbaum, "Human-level concept learning through probabilistic
program induction", *Science* 350(6266), 1332-1338, 2015.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from buviz import extrapolation as ex
from buviz.datasets import fetch_omniglot

ROOT = Path(__file__).resolve().parents[1]
KS_FIG12 = (50, 100, 200, 400, 800)
K_FIG11 = 400


def one_shot_margins(images, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Margins (test character × training character) of one-shot 1-NN, and the ground-truth k grid."""
    rng = np.random.default_rng(seed)
    n = len(images.class_name)
    pairs = np.array([rng.choice(np.flatnonzero(images.label == c), 2, replace=False) for c in range(n)])
    X = images.images().astype(np.float64) / 255.0
    A, B = X[pairs[:, 1]], X[pairs[:, 0]]
    M = -(np.sum(A**2, 1)[:, None] - 2 * A @ B.T + np.sum(B**2, 1)[None, :])
    return M, np.unique(np.round(np.geomspace(2, n, 40)).astype(int))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=str(ROOT / "buviz" / "data" / "tables"))
    args = parser.parse_args(argv)
    images = fetch_omniglot(32, data_dir=args.data_dir)
    M, k_all = one_shot_margins(images, args.seed)
    n = M.shape[0]
    y = np.arange(n)
    truth = ex.average_accuracy_from_ranks(ex.ranks_from_margins(M, y), k_all, k1=n)
    rng = np.random.default_rng(args.seed + 1)

    def subset(K):
        sub = np.sort(rng.choice(n, K, replace=False))
        return M[np.ix_(sub, sub)], np.arange(K)

    rows = [{"series": "truth", "k": k, "accuracy": a} for k, a in zip(k_all, truth, strict=True)]
    Ms, ys = subset(K_FIG11)
    ko = np.arange(2, K_FIG11 + 1)
    observed = ex.average_accuracy_from_ranks(ex.ranks_from_margins(Ms, ys), ko, k1=K_FIG11)
    rows += [{"series": "observed", "k": k, "accuracy": a} for k, a in zip(ko, observed, strict=True)]
    for method in ex.METHODS:
        pred = ex.fit_extrapolator(Ms, ys, method, random_state=args.seed).accuracy(k_all)
        rows += [{"series": method, "k": k, "accuracy": a} for k, a in zip(k_all, pred, strict=True)]
    fig11 = pd.DataFrame(rows).assign(K=K_FIG11, n_classes=n, seed=args.seed)

    rows = [{"K": 0, "repeat": 0, "method": "truth", "k": k, "accuracy": a} for k, a in zip(k_all, truth, strict=True)]
    for K in KS_FIG12:
        for rep in range(args.repeats):
            Ms, ys = subset(K)
            for method in ex.METHODS:
                pred = ex.fit_extrapolator(Ms, ys, method, random_state=args.seed).accuracy(k_all)
                rows += [{"K": K, "repeat": rep, "method": method, "k": k, "accuracy": a}
                         for k, a in zip(k_all, pred, strict=True)]
        print(f"K = {K} done", flush=True)
    fig12 = pd.DataFrame(rows)  # the settings (n_classes, seed) are in the Fig 11 table
    out = Path(args.out)
    fig11.to_csv(out / "zheng_fig11_omniglot.csv", index=False, float_format="%.5g")
    fig12.to_csv(out / "zheng_fig12_omniglot.csv", index=False, float_format="%.5g")
    at_n = fig12[(fig12["k"] == n) & (fig12["method"] != "truth")]
    print(f"1-NN accuracy on all {n} characters: {truth[-1]:.4f}")
    print(at_n.groupby(["method", "K"])["accuracy"].describe()[["mean", "std", "min", "max"]].round(4))


if __name__ == "__main__":
    main()
