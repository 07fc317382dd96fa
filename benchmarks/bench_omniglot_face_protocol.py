"""The face protocol of Zheng, Achanta & Benjamini (§5.1, Figs 11-12) on Omniglot's 1623 classes (a script).

    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/bench_omniglot_face_protocol.py [--reps 300] [--seed 0]

The paper's face experiment, step by step, with Omniglot (Lake, Salakhutdinov & Tenenbaum 2015; 1623
handwritten characters × 20 drawers; :func:`buviz.datasets.fetch_omniglot`, 32 × 32 ink intensity) in
place of LFW, whose OpenFace embeddings the authors did not publish:

1. **Two images per class.** For each of the 1623 characters, two of its 20 drawers' images are drawn at
   random (``numpy.random.default_rng(seed)``, one draw per class, as the paper draws 2 photos per person):
   the first is the training example, the second the test image.
2. **A fixed embedding, "blur2-PCA128".** Each 32 × 32 image is smoothed by a Gaussian of σ = 2 px
   (scipy ``gaussian_filter``) and projected on the first 128 principal components of the *other* 18
   images of every class (29 214 images; eigenvectors of their covariance, no label used). It plays the
   part of OpenFace: a 128-dimensional map fixed before the experiment and learned without the training
   and test images (OpenFace was trained on other people's faces). Blur then PCA was the best of the
   maps tried on one drawer-pair split, by 1623-class one-shot accuracy (raw pixels 4.1 %, PCA of raw
   pixels ≤ 7.6 %, whitened PCA ≤ 8.8 %, PCA whitened within classes with the other drawers' labels
   ≤ 9.4 %, blur2 and PCA 11.4 %); on this protocol's split it reaches 10.8 %.
3. **1-NN.** The margin of class c for test image i is ``−‖x_i − x_train(c)‖²`` (the paper's margin
   function), so 1-NN is marginal. Ties would be broken by class index (the lower index wins); the
   script counts them (``n_ties``) and none occur.
4. **Truth.** eq 3 on the full 1623 × 1623 margin matrix (at k = 1623 the measured one-shot accuracy).
5. **Extrapolation.** For K in 100, 200, 400, 800, ``--reps`` random K-class subsets
   (``default_rng([seed, K])``, drawn in turn, so the first n are the same whatever ``--reps``; computed
   replicate by replicate over every K); on each, every estimator of :func:`buviz.extrapolation.extrapolate`
   (``moment``: the paper's method, linear spline with m = 10 000 knots and NNLS; ``classexreg``, ``kde``
   and ``best``) predicts the 1623-class accuracy (Fig 12). One K = 400 subset (``default_rng([seed, 400,
   11])``) also gives the whole curve AGA_k, k = 2…1623, against the truth (Fig 11 a, b).

The shipped tables: 300 replicates per K (as many as the authors saved for LFW), 1 641 s niced on two
shared cores. That run projected with the SVD of the centred matrix; the eigenvector form used now gives
the same margins to 2e-13 (their smallest gap within a row is 5e-9), so the same ranks and predictions.

Writes ``buviz/data/tables/extrapolation_omniglot_face_replicates.csv`` (one row per K and replicate,
appended as computed, so an interrupted run resumes), ``..._face_summary.csv`` (per K and estimator:
mean, median, sd, bias, RMSE, MAE, 10 % and 90 % quantiles) and ``..._face_curves.csv`` (Fig 11). The data folder is
``$BUVIZ_DATA_DIR`` (its ``zheng/`` holds ``omniglot_32x32_grey.npz``).

References
----------
C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating expected accuracies for multi-class
classification", manuscript, April 21, 2017, §5.1, Figs 11-12; arXiv:1606.05228.

B. M. Lake, R. Salakhutdinov and J. B. Tenenbaum, "Human-level concept learning through probabilistic
program induction", *Science* 350(6266), 1332-1338, 2015. https://doi.org/10.1126/science.aab3050

B. Amos, B. Ludwiczuk and M. Satyanarayanan, "OpenFace: A general-purpose face recognition library with
mobile applications", CMU-CS-16-118, 2016.
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
from benchmarks._realdata import METHODS, TABLES, Checkpoint, eq3, predict_all, subproblem, summarize  # noqa: E402

REPLICATES = TABLES / "extrapolation_omniglot_face_replicates.csv"
SUMMARY = TABLES / "extrapolation_omniglot_face_summary.csv"
CURVES = TABLES / "extrapolation_omniglot_face_curves.csv"
KS = (100, 200, 400, 800)
N_CLASSES = 1623
EMBEDDING = "blur2-PCA128"
N_COMPONENTS = 128
CURVE_KS = (2, 5, 10, 20, 50, 100, 200, 300, 400, 500, 600, 800, 1000, 1200, 1400, 1623)


def one_shot_pairs(label: np.ndarray, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Per class c = 0…C−1, the indices of its training and its test image: two of its images at random.

    Parameters
    ----------
    label : array of int, shape (n,)
        Class of each image (classes 0…C−1, at least two images each).
    seed : int
        Seed of ``numpy.random.default_rng``; the classes draw in order 0…C−1.

    Returns
    -------
    train, test : arrays of int, shape (C,)
        Indices into ``label``; ``label[train[c]] == label[test[c]] == c``.
    """
    rng = np.random.default_rng(seed)
    n_classes = int(label.max()) + 1
    train, test = np.empty(n_classes, np.int64), np.empty(n_classes, np.int64)
    for c in range(n_classes):
        members = np.flatnonzero(label == c)
        if len(members) < 2:
            raise ValueError(f"label: class {c} has {len(members)} image(s); the protocol needs two")
        train[c], test[c] = rng.choice(members, 2, replace=False)
    return train, test


def pca_embedding(F: np.ndarray, fit: np.ndarray, n_components: int) -> np.ndarray:
    """``F`` projected on the first ``n_components`` principal axes of ``F[fit]`` (no labels).

    The axes are the leading eigenvectors of the covariance of ``F[fit]`` (``numpy.linalg.eigh``): the
    right singular vectors of the centred matrix up to sign, about ten times faster than its SVD here.
    """
    mu = F[fit].mean(0)
    C = F[fit] - mu
    w, v = np.linalg.eigh(C.T @ C)
    return (F - mu) @ v[:, np.argsort(w)[::-1][:n_components]]


def one_nn_margins(train: np.ndarray, test: np.ndarray) -> np.ndarray:
    """Margins ``M[i, c] = −‖test_i − train_c‖²`` of 1-NN with one training example per class."""
    train, test = np.asarray(train, np.float64), np.asarray(test, np.float64)
    D = (test ** 2).sum(1)[:, None] + (train ** 2).sum(1)[None, :] - 2.0 * test @ train.T
    return -np.maximum(D, 0.0)


def one_nn_accuracy(M: np.ndarray, y: np.ndarray) -> float:
    """1-NN accuracy from margins; ties broken by class index (``argmax`` takes the lowest index)."""
    return float(np.mean(np.argmax(M, axis=1) == y))


def count_ties(M: np.ndarray, y: np.ndarray) -> int:
    """Number of test points whose true margin equals some other class's margin."""
    true = M[np.arange(len(y)), y]
    eq = M == true[:, None]
    eq[np.arange(len(y)), y] = False
    return int(eq.any(1).sum())


def face_protocol_margins(X: np.ndarray, label: np.ndarray, seed: int, *, sigma: float = 2.0,
                          n_components: int = N_COMPONENTS) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The C × C one-shot margin matrix (test image of class i in row i) and the (train, test) indices.

    ``X`` is (n, h, w) images; the embedding is Gaussian blur σ then PCA fitted on every image that is
    neither a training nor a test image.
    """
    from scipy.ndimage import gaussian_filter

    train, test = one_shot_pairs(label, seed)
    F = gaussian_filter(np.asarray(X, np.float64), (0, sigma, sigma)).reshape(len(X), -1) if sigma else \
        np.asarray(X, np.float64).reshape(len(X), -1)
    fit = np.ones(len(X), bool)
    fit[train] = fit[test] = False
    Z = pca_embedding(F, fit, n_components)
    return one_nn_margins(Z[train], Z[test]), train, test


FIELDS = ["embedding", "seed", "K", "rep", "accK_observed", "acc_true", *[f"pred_{m}" for m in METHODS],
          "n_ties", "n_classes", "data", "buviz_version"]


def load_images() -> tuple[np.ndarray, np.ndarray]:
    """``(X, label)``: the 32 460 Omniglot images as (n, 32, 32) ink intensities in [0, 1]."""
    from buviz.datasets import fetch_omniglot

    ds = fetch_omniglot(32)
    return ds.X.reshape(-1, 32, 32).astype(np.float64) / 255.0, np.asarray(ds.label)


def run(reps: int = 300, seed: int = 0, ks=KS, log=print) -> pd.DataFrame:
    X, label = load_images()
    M, _, _ = face_protocol_margins(X, label, seed)
    y = np.arange(N_CLASSES)
    ties = count_ties(M, y)
    truth = float(eq3(M, y, [N_CLASSES], ties="max", seed=seed)[0])
    log(f"{EMBEDDING}, seed {seed}: 1623-class one-shot accuracy {one_nn_accuracy(M, y):.4f} "
        f"(eq 3: {truth:.4f}), {ties} ties")
    ck = Checkpoint(REPLICATES, FIELDS, ("embedding", "seed", "K", "rep"))
    t0 = time.perf_counter()
    subsets = {K: [np.sort(r.choice(N_CLASSES, K, replace=False)) for r in [np.random.default_rng([seed, K])]
                   for _ in range(reps)] for K in ks}
    for r in range(reps):  # replicate by replicate over every K: a run stopped early stays balanced
        for K in ks:
            if ck.has(embedding=EMBEDDING, seed=seed, K=K, rep=r):
                continue
            Ms, ys = subproblem(M, y, subsets[K][r])
            pred = predict_all(Ms, ys, N_CLASSES, ties="max", seed=seed)
            ck.add([{"embedding": EMBEDDING, "seed": seed, "K": K, "rep": r,
                     "accK_observed": round(one_nn_accuracy(Ms, ys), 6), "acc_true": round(truth, 6),
                     **{f"pred_{m}": round(v, 6) for m, v in pred.items()}, "n_ties": ties,
                     "n_classes": N_CLASSES, "data": "omniglot 32x32", "buviz_version": buviz.__version__}])
        if (r + 1) % 10 == 0:
            log(f"  replicate {r + 1}/{reps} of K = {', '.join(map(str, ks))} ({time.perf_counter() - t0:.0f} s)")
    curve_rows(M, y, seed).round(6).to_csv(CURVES, index=False)
    table = summarize(pd.read_csv(REPLICATES), ["embedding", "seed", "K"])
    table.to_csv(SUMMARY, index=False)
    return table


def curve_rows(M, y, seed, K=400) -> pd.DataFrame:
    """Fig 11: one K-class subset's observed and predicted AGA_k against the truth (eq 3, all classes)."""
    from buviz import extrapolation as ex

    S = np.sort(np.random.default_rng([seed, K, 11]).choice(N_CLASSES, K, replace=False))
    Ms, ys = subproblem(M, y, S)
    ks = np.array(CURVE_KS)
    inside = np.unique(np.r_[np.arange(2, 11), np.round(np.geomspace(10, K, 20)).astype(int), K])
    rows = [pd.DataFrame({"curve": f"truth (eq 3, all {N_CLASSES} classes)", "k": ks,
                          "accuracy": eq3(M, y, ks, ties="max")}),
            pd.DataFrame({"curve": f"observed (eq 3, K={K})", "k": inside,
                          "accuracy": eq3(Ms, ys, inside, ties="max")})]
    kk = np.unique(np.r_[inside, ks])
    for m in METHODS:
        p = ex.extrapolate(Ms, ys, kk, method=m, random_state=seed)
        rows.append(pd.DataFrame({"curve": m, "k": kk, "accuracy": p}))
    out = pd.concat(rows, ignore_index=True)
    out.insert(0, "embedding", EMBEDDING)
    out.insert(1, "seed", seed)
    out["K"] = K
    out["buviz_version"] = buviz.__version__
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=300, help="random K-class subsets per K (the authors saved 300)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the image pairs and of the subsets")
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    table = run(args.reps, args.seed, log=lambda s: print(time.strftime("%H:%M:%S"), s, flush=True))
    print(table.pivot_table(index="K", columns="method", values=["bias", "rmse"]).round(3).to_string())
    print(f"wrote {REPLICATES}, {SUMMARY} and {CURVES} in {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
