"""Table 1 of Zheng, Achanta & Benjamini (2017) end to end from the Telugu glyphs (a script, not a test).

    nice -n 10 python benchmarks/bench_telugu_table1.py [--subsets 50] [--seed 0]
        [--classifiers nb,logistic,svm,enn,cnn]

Data: :func:`buviz.datasets.fetch_telugu` (Achanta's 48 × 48 binary glyphs, banti2017), a seeded split of
the paper's shape: 400 classes with at least 100 glyphs, 50 training and 50 test glyphs each (which 400
classes and which glyphs the paper drew is not recorded). Pixels are 0/1 (ink = 1), 2304 features.

Classifiers (our own; the paper's are not available):

``nb``
    Bernoulli naive Bayes (Laplace smoothing α = 1, equal class priors); margin = log-likelihood.
    A marginal classifier (Definition 2.1).
``logistic``
    Multinomial logistic regression on the pixels (a linear layer + softmax cross-entropy, torch, L2
    penalty 1e-4 as in the authors' ``8logistic.prms``, Adam lr 1e-3, 30 epochs of batches of 250 on 20
    classes, 15 epochs of 256 on 400); margin = the linear score (logit). scikit-learn's lbfgs took
    minutes per 20-class fit on this shared machine, hence the minibatch fit.
``svm``
    Linear SVM, the multi-class hinge loss of Weston & Watkins (torch ``MultiMarginLoss``, margin 1),
    otherwise as ``logistic``; margin = the linear score.
``enn``
    ε-nearest neighbours as the paper defines it (footnote 4 of §5.2): k-NN with k = εn, n the number of
    training glyphs, ε = 0.002 (k = 2 on 20 classes, k = 40 on 400), Hamming (= squared Euclidean)
    distance; margin = the number of the k neighbours of each class (ties broken at random).
``cnn``
    A small convolutional network (torch, CPU): 3 × [3×3 conv, ReLU, 2×2 max-pool] with 16, 32, 64
    channels, then a linear layer; Adam, 8 epochs, batch 128. Trained on 400 classes only (retraining it
    on every 20-class subset is too slow here), so its 20-class margins are the matching columns of the
    400-class network (protocol ``columns``).

For each classifier: the margin matrix of the 400-class model on the 20 000 test glyphs and its measured
400-class accuracy (eq 3 at k = 400 on that matrix = its test accuracy, ties broken at random), then, on
``--subsets`` random 20-class subsets (the same for every classifier), the 20-class problem in two ways:
``retrain`` (the paper's protocol: the classifier trained on the 20 classes' training glyphs alone) and
``columns`` (the 400-class model's margins restricted to the 20 classes; for a marginal classifier the two
coincide), and each estimator's prediction of the 400-class accuracy (``moment``, ``classexreg``, ``kde``,
``best``).

Writes ``buviz/data/tables/extrapolation_telugu_replicates.csv`` (one row per classifier, protocol,
subset: the observed 20-class accuracy, the truth, every estimator's prediction; appended as computed,
so an interrupted run resumes) and ``buviz/data/tables/extrapolation_telugu_table1.csv`` (per
classifier and protocol: means, spread, δ = mean prediction − truth, the paper's Table 1 row).
Margin matrices of the 400-class models are cached under ``$BUVIZ_BENCH_CACHE``
(default ``/tmp/buviz-realdata-cache``).

References
----------
C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating expected accuracies for multi-class
classification", manuscript, April 21, 2017, §5.2 and Table 1; arXiv:1606.05228.

R. Achanta and T. Hastie, "Telugu OCR framework using deep learning", arXiv:1509.05962, 2015.
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
from benchmarks._realdata import CACHE, METHODS, TABLES, Checkpoint, eq3, predict_all, subproblem  # noqa: E402

REPLICATES = TABLES / "extrapolation_telugu_replicates.csv"
SUMMARY = TABLES / "extrapolation_telugu_table1.csv"
CLASSIFIERS = ("nb", "logistic", "svm", "enn", "cnn")
EPSILON = 0.002
#: Table 1 of Zheng, Achanta & Benjamini (2017): test acc(20), test acc(400), ÂGA_400.
PAPER = {"nb": (0.951, 0.601, 0.858), "logistic": (0.922, 0.711, 0.812), "svm": (0.860, 0.545, 0.687),
         "enn": (0.951, 0.591, 0.410), "cnn": (0.995, 0.986, 0.907)}
MARGINAL = {"nb": True, "logistic": False, "svm": False, "enn": False, "cnn": False}


def load_split(seed: int = 0):
    """The 400 × (50 + 50) split: ``(X_train, y_train, X_test, y_test)`` with 0/1 float32 pixels."""
    from buviz.datasets import fetch_telugu

    ds = fetch_telugu(n_classes=400, n_train=50, n_test=50, random_state=seed)
    return (ds.X_train.astype(np.float32), np.asarray(ds.y_train), ds.X_test.astype(np.float32),
            np.asarray(ds.y_test))


# ----------------------------------------------------------------------------------------------------
# classifiers: fit on (X, y) with classes 0..K-1, return the (n_test, K) margin matrix
# ----------------------------------------------------------------------------------------------------
def margins_nb(Xtr, ytr, Xte, K, seed):
    cnt = np.bincount(ytr, minlength=K).astype(np.float64)
    ink = np.zeros((K, Xtr.shape[1]))
    np.add.at(ink, ytr, Xtr)
    p = (ink + 1.0) / (cnt[:, None] + 2.0)
    return Xte @ np.log(p).T + (1.0 - Xte) @ np.log1p(-p).T


def _torch_linear(Xtr, ytr, Xte, K, seed, loss, epochs):
    """A linear score ``W x + b`` trained by Adam on minibatches (float32, CPU), L2 penalty 1e-4."""
    import torch
    from torch import nn

    torch.manual_seed(seed)
    torch.set_num_threads(1)
    lin = nn.Linear(Xtr.shape[1], K)
    xt, yt = torch.from_numpy(Xtr), torch.from_numpy(ytr.astype(np.int64))
    opt = torch.optim.Adam(lin.parameters(), lr=1e-3, weight_decay=1e-4)
    crit = nn.CrossEntropyLoss() if loss == "logistic" else nn.MultiMarginLoss()
    gen = torch.Generator().manual_seed(seed)
    batch = 250 if len(yt) <= 2000 else 256
    for _ in range(epochs):
        perm = torch.randperm(len(yt), generator=gen)
        for b in range(0, len(yt), batch):
            i = perm[b:b + batch]
            opt.zero_grad()
            crit(lin(xt[i]), yt[i]).backward()
            opt.step()
    with torch.no_grad():
        return lin(torch.from_numpy(Xte)).numpy().astype(np.float64)


def margins_logistic(Xtr, ytr, Xte, K, seed):
    return _torch_linear(Xtr, ytr, Xte, K, seed, "logistic", epochs=30 if K <= 20 else 15)


def margins_svm(Xtr, ytr, Xte, K, seed):
    return _torch_linear(Xtr, ytr, Xte, K, seed, "svm", epochs=30 if K <= 20 else 15)


def margins_enn(Xtr, ytr, Xte, K, seed, eps=EPSILON):
    k = max(1, int(round(eps * len(ytr))))
    sq = Xtr.sum(axis=1)
    out = np.zeros((len(Xte), K))
    for s in range(0, len(Xte), 1000):
        D = sq[None, :] - 2.0 * Xte[s:s + 1000] @ Xtr.T                  # Hamming distance − |x_test|
        nn = np.argpartition(D, k - 1, axis=1)[:, :k]
        np.add.at(out[s:s + 1000], (np.repeat(np.arange(len(nn)), k), ytr[nn].ravel()), 1.0)
    return out


def margins_cnn(Xtr, ytr, Xte, K, seed, epochs=8, log=print):
    import torch
    from torch import nn

    torch.manual_seed(seed)
    torch.set_num_threads(1)
    net = nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Dropout(0.3), nn.Linear(64 * 6 * 6, K))
    xt = torch.from_numpy(Xtr.reshape(-1, 1, 48, 48))
    yt = torch.from_numpy(ytr.astype(np.int64))
    opt = torch.optim.Adam(net.parameters(), lr=2e-3)
    gen = torch.Generator().manual_seed(seed)
    for ep in range(epochs):
        net.train()
        perm = torch.randperm(len(yt), generator=gen)
        tot = 0.0
        for b in range(0, len(yt), 128):
            i = perm[b:b + 128]
            opt.zero_grad()
            loss = nn.functional.cross_entropy(net(xt[i]), yt[i])
            loss.backward()
            opt.step()
            tot += float(loss.detach()) * len(i)
        log(f"  cnn epoch {ep + 1}/{epochs}: training loss {tot / len(yt):.3f}")
    net.eval()
    with torch.no_grad():
        xe = torch.from_numpy(Xte.reshape(-1, 1, 48, 48))
        return torch.cat([torch.log_softmax(net(xe[b:b + 1000]), 1) for b in range(0, len(xe), 1000)]).numpy()


MARGINS = {"nb": margins_nb, "logistic": margins_logistic, "svm": margins_svm, "enn": margins_enn,
           "cnn": margins_cnn}
RETRAIN = ("nb", "logistic", "svm", "enn")          # the CNN is trained on 400 classes only


def full_margins(clf, data, seed, log=print):
    """The 400-class model's margins on all test glyphs (cached)."""
    path = CACHE / f"telugu_{clf}_seed{seed}.npy"
    if path.exists():
        return np.load(path)
    Xtr, ytr, Xte, _ = data
    t0 = time.perf_counter()
    M = MARGINS[clf](Xtr, ytr, Xte, 400, seed)
    log(f"{clf}: 400-class model fitted in {time.perf_counter() - t0:.0f} s")
    path.parent.mkdir(parents=True, exist_ok=True)
    np.save(path, M)
    return M


FIELDS = ["classifier", "protocol", "subset", "classes", "acc20_observed", "acc400_true",
          *[f"pred_{m}" for m in METHODS], "marginal", "n_train_per_class", "n_test_per_class", "epsilon",
          "split_seed", "subset_seed", "data", "buviz_version"]


def run(subsets: int = 50, seed: int = 0, classifiers=CLASSIFIERS, log=print) -> pd.DataFrame:
    data = load_split(seed)
    Xtr, ytr, Xte, yte = data
    rng = np.random.default_rng(seed)
    draws = [np.sort(rng.choice(400, 20, replace=False)) for _ in range(subsets)]
    ck = Checkpoint(REPLICATES, FIELDS, ("classifier", "protocol", "subset", "split_seed"))
    t0 = time.perf_counter()
    for clf in classifiers:
        M = full_margins(clf, data, seed, log)
        truth = float(eq3(M, yte, [400], seed=seed)[0])
        log(f"{clf}: measured 400-class accuracy {truth:.4f}")
        for protocol in ("columns", "retrain") if clf in RETRAIN else ("columns",):
            if protocol == "retrain" and MARGINAL[clf]:
                continue                                  # identical to the columns (marginal classifier)
            for b, S in enumerate(draws):
                if ck.has(classifier=clf, protocol=protocol, subset=b, split_seed=seed):
                    continue
                if protocol == "columns":
                    Ms, ys = subproblem(M, yte, S)
                else:
                    code = np.full(400, -1)
                    code[S] = np.arange(20)
                    tr, te = np.isin(ytr, S), np.isin(yte, S)
                    Ms = MARGINS[clf](Xtr[tr], code[ytr[tr]], Xte[te], 20, seed)
                    ys = code[yte[te]]
                acc20 = float(eq3(Ms, ys, [20], seed=seed)[0])
                pred = predict_all(Ms, ys, 400, seed=seed)
                ck.add([{"classifier": clf, "protocol": protocol, "subset": b,
                         "classes": " ".join(map(str, S)), "acc20_observed": round(acc20, 6),
                         "acc400_true": round(truth, 6),
                         **{f"pred_{m}": round(v, 6) for m, v in pred.items()},
                         "marginal": MARGINAL[clf], "n_train_per_class": 50, "n_test_per_class": 50,
                         "epsilon": EPSILON if clf == "enn" else "", "split_seed": seed, "subset_seed": seed,
                         "data": "telugu banti2017 48x48", "buviz_version": buviz.__version__}])
            log(f"{clf} {protocol}: {subsets} subsets done ({time.perf_counter() - t0:.0f} s)")
    table = summarize(pd.read_csv(REPLICATES))
    table.to_csv(SUMMARY, index=False)
    return table


def summarize(rep: pd.DataFrame) -> pd.DataFrame:
    """Per classifier and protocol: observed acc(20), truth, each estimator's mean/sd/δ/RMSE, the paper's row."""
    rows = []
    for (clf, protocol, seed), g in rep.groupby(["classifier", "protocol", "split_seed"], sort=False):
        truth = float(g.acc400_true.iloc[0])
        row = {"classifier": clf, "protocol": protocol, "n_subsets": len(g),
               "acc20_mean": g.acc20_observed.mean(), "acc20_sd": g.acc20_observed.std(ddof=1),
               "acc400_true": truth}
        for m in METHODS:
            p = g[f"pred_{m}"].to_numpy(float)
            ok = p[np.isfinite(p)]
            row |= {f"{m}_mean": ok.mean(), f"{m}_sd": ok.std(ddof=1), f"{m}_delta": ok.mean() - truth,
                    f"{m}_rmse": float(np.sqrt(np.mean((ok - truth) ** 2))), f"{m}_failed": int(len(p) - len(ok))}
        pa = PAPER[clf]
        row |= {"paper_acc20": pa[0], "paper_acc400": pa[1], "paper_aga400": pa[2],
                "paper_delta": round(pa[2] - pa[1], 3), "marginal": bool(g.marginal.iloc[0]),
                "split_seed": seed, "data": g.data.iloc[0], "buviz_version": g.buviz_version.iloc[0]}
        rows.append(row)
    return pd.DataFrame(rows).round(6)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--subsets", type=int, default=50, help="random 20-class subsets")
    parser.add_argument("--seed", type=int, default=0, help="seed of the split and of the subsets")
    parser.add_argument("--classifiers", default=",".join(CLASSIFIERS))
    args = parser.parse_args(argv)
    table = run(args.subsets, args.seed, tuple(args.classifiers.split(",")),
                log=lambda s: print(time.strftime("%H:%M:%S"), s, flush=True))
    cols = ["classifier", "protocol", "acc20_mean", "acc400_true", *[f"{m}_mean" for m in METHODS],
            "paper_acc20", "paper_acc400", "paper_aga400"]
    print(table[cols].round(3).to_string(index=False))
    print(f"wrote {REPLICATES} and {SUMMARY}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
