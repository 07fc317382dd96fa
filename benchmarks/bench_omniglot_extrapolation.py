"""Extrapolation against ground truth at scale: Omniglot, one-shot 1-NN (a script, not a test).

    nice -n 10 python benchmarks/bench_omniglot_extrapolation.py [--reps 20] [--seeds 0-5]
        [--representations pixels,blur2]

The shape of the face experiment of Zheng, Achanta & Benjamini (2017, §5.1, Figs 11 and 12; LFW, 1672
people, one training and one test photo each, 1-NN), on Omniglot (Lake, Salakhutdinov & Tenenbaum 2015;
1623 handwritten characters × 20 drawers; :func:`buviz.datasets.fetch_omniglot`, 32 × 32 ink intensity):
for a seed, one drawer's image of each character is the training example and another drawer's the test
image (the two drawers drawn with ``numpy.random.default_rng(seed)``). The recognition system is 1-NN
with margin ``−‖x − x_train‖`` (a marginal classifier, Definition 2.1), on two representations:

``pixels``
    the 1024 ink intensities in [0, 1];
``blur2``
    the same images smoothed by a Gaussian of σ = 2 px (scipy ``gaussian_filter``) before the distance:
    a cheap, stronger representation (one-shot accuracy about 11 % against 4 % at 1623 classes; PCA
    whitening fitted on the other drawers was tried and did not beat it).

Ground truth: eq 3 on the full 1623 × 1623 margin matrix (at k = 1623 it is the measured one-shot
accuracy; ties broken at random). For each K in ``--ks`` (default 50, 100, 200, 400, 800), ``--reps``
random K-class subsets; on each, every estimator of :func:`buviz.extrapolation.extrapolate` predicts the
1623-class accuracy from the K × K sub-problem (Fig 12's spread). For the first seed, one K = 400 subset
also gives (seed 0) the whole predicted curve AGA_k, k = 2…1623, against the true curve (Fig 11).

Writes ``buviz/data/tables/extrapolation_omniglot_replicates.csv`` (one row per representation, seed, K,
replicate; appended as computed, so an interrupted run resumes),
``buviz/data/tables/extrapolation_omniglot_summary.csv`` (per representation, seed, K and estimator: mean,
sd, bias, RMSE) and ``buviz/data/tables/extrapolation_omniglot_curves.csv`` (Fig 11's curves). The
authors' saved LFW predictions drawn beside ours are not shipped (no licence):
:func:`buviz.datasets.fetch_lfw_predictions` reads them from the data folder.

References
----------
C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating expected accuracies for multi-class
classification", manuscript, April 21, 2017, §5.1, Figs 11-12; arXiv:1606.05228.

B. M. Lake, R. Salakhutdinov and J. B. Tenenbaum, "Human-level concept learning through probabilistic
program induction", *Science* 350(6266), 1332-1338, 2015. https://doi.org/10.1126/science.aab3050
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import buviz  # noqa: E402
from benchmarks._realdata import METHODS, TABLES, Checkpoint, eq3, predict_all, subproblem  # noqa: E402
from benchmarks._realdata import summarize as _summarize  # noqa: E402

REPLICATES = TABLES / "extrapolation_omniglot_replicates.csv"
SUMMARY = TABLES / "extrapolation_omniglot_summary.csv"
CURVES = TABLES / "extrapolation_omniglot_curves.csv"
KS = (50, 100, 200, 400, 800)
REPRESENTATIONS = ("pixels", "blur2")
N_CLASSES = 1623
CURVE_KS = (2, 5, 10, 20, 50, 100, 200, 300, 400, 600, 800, 1000, 1200, 1400, 1623)


def load_images() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(X, label, drawer)``: the 32 460 images as (n, 32, 32) float32 ink intensities in [0, 1]."""
    from buviz.datasets import fetch_omniglot

    ds = fetch_omniglot(32)
    return (ds.X.reshape(-1, 32, 32).astype(np.float32) / 255.0, np.asarray(ds.label),
            np.asarray(ds.meta["drawer"]).astype(np.int64))


def drawers(seed: int) -> tuple[int, int]:
    """The (training, test) drawers of ``seed``."""
    a, b = np.random.default_rng(seed).choice(np.arange(1, 21), 2, replace=False)
    return int(a), int(b)


def features(X: np.ndarray, representation: str) -> np.ndarray:
    """Flattened features of the (n, 32, 32) images."""
    if representation == "pixels":
        return X.reshape(len(X), -1)
    if representation == "blur2":
        from scipy.ndimage import gaussian_filter

        return gaussian_filter(X, (0, 2, 2)).reshape(len(X), -1)
    raise ValueError(f"representation must be one of {REPRESENTATIONS}, got {representation!r}")


def one_shot_margins(F: np.ndarray, label: np.ndarray, drawer: np.ndarray, seed: int) -> np.ndarray:
    """(1623 test images × 1623 classes) margins ``−‖x_test − x_train(class)‖``; test image i is of class i."""
    a, b = drawers(seed)
    tr = np.zeros((N_CLASSES, F.shape[1]), np.float64)
    te = np.zeros_like(tr)
    tr[label[drawer == a]] = F[drawer == a]
    te[label[drawer == b]] = F[drawer == b]
    D = (te ** 2).sum(1)[:, None] + (tr ** 2).sum(1)[None, :] - 2.0 * te @ tr.T
    return -np.sqrt(np.maximum(D, 0.0))


FIELDS = ["representation", "seed", "K", "rep", "accK_observed", "acc_true", *[f"pred_{m}" for m in METHODS],
          "train_drawer", "test_drawer", "n_classes", "data", "buviz_version"]


def run(reps: int = 20, seeds=range(6), representations=REPRESENTATIONS, ks=KS, log=print) -> pd.DataFrame:
    X, label, drawer = load_images()
    y = np.arange(N_CLASSES)
    ck = Checkpoint(REPLICATES, FIELDS, ("representation", "seed", "K", "rep"))
    curves = []
    t0 = time.perf_counter()
    for rep_name in representations:
        F = features(X, rep_name)
        for seed in seeds:
            M = one_shot_margins(F, label, drawer, seed)
            truth = float(eq3(M, y, [N_CLASSES], seed=seed)[0])
            a, b = drawers(seed)
            log(f"{rep_name} seed {seed} (drawers {a}->{b}): 1623-class accuracy {truth:.4f}")
            for K in ks:
                rng = np.random.default_rng([seed, K])
                subsets = [np.sort(rng.choice(N_CLASSES, K, replace=False)) for _ in range(reps)]
                for r, S in enumerate(subsets):
                    if ck.has(representation=rep_name, seed=seed, K=K, rep=r):
                        continue
                    Ms, ys = subproblem(M, y, S)
                    pred = predict_all(Ms, ys, N_CLASSES, seed=seed)
                    ck.add([{"representation": rep_name, "seed": seed, "K": K, "rep": r,
                             "accK_observed": round(float(eq3(Ms, ys, [K], seed=seed)[0]), 6),
                             "acc_true": round(truth, 6), **{f"pred_{m}": round(v, 6) for m, v in pred.items()},
                             "train_drawer": a, "test_drawer": b, "n_classes": N_CLASSES,
                             "data": "omniglot 32x32", "buviz_version": buviz.__version__}])
                log(f"  K={K}: {reps} replicates ({time.perf_counter() - t0:.0f} s)")
            if seed == 0:
                curves.append(curve_rows(M, y, rep_name, seed))
    if curves:
        new = pd.concat(curves)
        if CURVES.exists():
            old = pd.read_csv(CURVES)
            new = pd.concat([old[~old.representation.isin(new.representation)], new])
        new.round(6).to_csv(CURVES, index=False)
    table = summarize(pd.read_csv(REPLICATES))
    table.to_csv(SUMMARY, index=False)
    return table


def curve_rows(M, y, rep_name, seed, K=400) -> pd.DataFrame:
    """Fig 11: the predicted AGA_k curves from one K-class subset and the true curve (eq 3 on all classes)."""
    from buviz import extrapolation as ex

    S = np.sort(np.random.default_rng([seed, K, 11]).choice(N_CLASSES, K, replace=False))
    Ms, ys = subproblem(M, y, S)
    ks = np.array(CURVE_KS)
    rows = [pd.DataFrame({"curve": "truth (eq 3, all 1623 classes)", "k": ks, "accuracy": eq3(M, y, ks, seed=seed)})]
    rows.append(pd.DataFrame({"curve": f"observed (eq 3, K={K})", "k": ks[ks <= K],
                              "accuracy": eq3(Ms, ys, ks[ks <= K], seed=seed)}))
    for m in METHODS:
        p = ex.extrapolate(Ms, ys, ks, method=m, random_state=seed, ties="random")
        rows.append(pd.DataFrame({"curve": m, "k": ks, "accuracy": p}))
    out = pd.concat(rows, ignore_index=True)
    out.insert(0, "representation", rep_name)
    out.insert(1, "seed", seed)
    out["K"] = K
    out["buviz_version"] = buviz.__version__
    return out


def summarize(rep: pd.DataFrame) -> pd.DataFrame:
    """Per representation, seed, K and estimator: mean, sd, bias and RMSE of the predictions, failures."""
    return _summarize(rep, ["representation", "seed", "K"])


def _seeds(text: str) -> list[int]:
    if "-" in text:
        lo, hi = text.split("-")
        return list(range(int(lo), int(hi) + 1))
    return [int(s) for s in text.split(",")]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=20, help="random K-class subsets per K")
    parser.add_argument("--seeds", default="0-5", help="drawer seeds, e.g. 0-5 or 0,3")
    parser.add_argument("--representations", default=",".join(REPRESENTATIONS))
    args = parser.parse_args(argv)
    table = run(args.reps, _seeds(args.seeds), tuple(args.representations.split(",")),
                log=lambda s: print(time.strftime("%H:%M:%S"), s, flush=True))
    print(table.pivot_table(index=["representation", "K"], columns="method", values="rmse").round(3).to_string())
    print(f"wrote {REPLICATES}, {SUMMARY} and {CURVES}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
