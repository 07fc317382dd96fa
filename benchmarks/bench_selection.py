"""Reduced model-selection study: does Û (training set only) pick hyper-parameters as well as CV?

    python benchmarks/bench_selection.py [--seeds 3] [--quick] [--out table.csv]

For each (dataset, classifier, seed): a train/test split (standardised on the training part), a grid
of one hyper-parameter, and four ways of choosing the candidate from the training set alone: the
largest boundary uncertainty Û⁽³⁾ (Proposal 2, no held-out data), 5-fold and 10-fold stratified CV,
and one stratified 75/25 hold-out split. The chosen candidate, refitted on the whole training set,
is scored on the test set; **regret** = its test error − the smallest test error over the grid.
**Cost** = seconds the selection took (Û: per-dataset work + one fit and one Û evaluation per
candidate; CV / hold-out: every fold fit and prediction, no refit), and its ratio to Û's cost.

This is a reduced version of the study of the issue (fewer datasets, classifiers and seeds; no
MLP) so that it runs in a few minutes on two cores. Datasets: ``gmm`` (exact mixture, N = 400),
``make_moons`` (noise 0.3, N = 400), ``make_classification`` (10 features, N = 400),
``breast_cancer`` and ``wine`` (scikit-learn's shipped copies, a stratified 50/50 split). Also
available with ``--datasets``: ``gmm_separable``, ``gmm_inclusion``, ``gmm3`` (N = 400),
``circles`` (noise 0.2), ``classif20``, ``iris``, ``digits``.
Classifiers: RBF SVC (γ), k-NN (k), random forest (``min_samples_leaf``), logistic regression (C).

Reference for Û: D. Ha, S. Katagiri, H. Watanabe, M. Ohsaki, "An Improved Boundary Uncertainty-Based
Estimation for Classifier Evaluation", Journal of Signal Processing Systems, 2021.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, StratifiedKFold, StratifiedShuffleSplit, train_test_split
from sklearn.neighbors import KNeighborsClassifier
from sklearn.svm import SVC

from buviz import datasets
from buviz.uncertainty import BoundaryUncertainty

CLASSIFIERS = {
    "svc": (SVC(), "gamma", [2.0**e for e in range(-8, 7, 2)]),
    "knn": (KNeighborsClassifier(), "n_neighbors", [1, 3, 5, 9, 15, 25, 41]),
    "forest": (RandomForestClassifier(n_estimators=30, random_state=0), "min_samples_leaf", [1, 2, 5, 10, 20, 40]),
    "logreg": (LogisticRegression(max_iter=2000), "C", [10.0**e for e in range(-3, 4)]),
}


def load(name: str, seed: int):
    """(X_train, y_train, X_test, y_test, bayes_error or None), standardised on the training part."""
    from sklearn import datasets as skd

    if name in ("gmm", "gmm_separable", "gmm_inclusion", "gmm3"):
        ds = datasets.load(name, n_train=400, n_test=5000, random_state=seed)
        bayes = ds.model.bayes_error() if name != "gmm3" else None
        return ds.X_train, ds.y_train, ds.X_test, ds.y_test, bayes
    if name == "moons":
        X, y = skd.make_moons(5400, noise=0.3, random_state=seed)
        Xtr, Xte, ytr, yte = X[:400], X[400:], y[:400], y[400:]
    elif name == "circles":
        X, y = skd.make_circles(5400, noise=0.2, factor=0.5, random_state=seed)
        Xtr, Xte, ytr, yte = X[:400], X[400:], y[:400], y[400:]
    elif name in ("classif10", "classif20"):
        X, y = skd.make_classification(5400, n_features=int(name[-2:]), n_informative=5, random_state=seed)
        Xtr, Xte, ytr, yte = X[:400], X[400:], y[:400], y[400:]
    else:
        loaders = {"breast_cancer": skd.load_breast_cancer, "wine": skd.load_wine, "iris": skd.load_iris,
                   "digits": skd.load_digits}
        bunch = loaders[name]()
        Xtr, Xte, ytr, yte = train_test_split(bunch.data, bunch.target, test_size=0.5, stratify=bunch.target,
                                              random_state=seed)
    mu, sd = Xtr.mean(0), Xtr.std(0)
    sd[sd == 0] = 1
    return (Xtr - mu) / sd, ytr, (Xte - mu) / sd, yte, None


def run_cell(dataset: str, clf: str, seed: int, M: int, perturbation: float = 0.5,
             mode: str = "features") -> dict:
    Xtr, ytr, Xte, yte, bayes = load(dataset, seed)
    est, param, grid = CLASSIFIERS[clf]
    # Û: per-dataset work once, then one fit + one evaluation per candidate
    t0 = time.perf_counter()
    bu = BoundaryUncertainty(M=min(M, len(Xtr)), perturbation=perturbation, perturbation_mode=mode,
                             random_state=seed).fit(Xtr, ytr)
    u, test_err = [], []
    for value in grid:
        model = clone(est).set_params(**{param: value}).fit(Xtr, ytr)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            u.append(bu.evaluate(model).value)
        t_pause = time.perf_counter()
        test_err.append(float(np.mean(model.predict(Xte) != yte)))  # not part of the cost
        t0 += time.perf_counter() - t_pause
    cost_u = time.perf_counter() - t0
    test_err = np.array(test_err)
    best_test = test_err.min()
    row = {"dataset": dataset, "classifier": clf, "seed": seed, "best_test_error": best_test,
           "bayes_error": bayes, "choice_U": grid[int(np.argmax(u))],
           "regret_U": test_err[int(np.argmax(u))] - best_test, "cost_U": cost_u}
    splitters = {"CV5": StratifiedKFold(5, shuffle=True, random_state=seed),
                 "CV10": StratifiedKFold(10, shuffle=True, random_state=seed),
                 "HO": StratifiedShuffleSplit(1, test_size=0.25, random_state=seed)}
    for name, cv in splitters.items():
        t1 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            search = GridSearchCV(clone(est), {param: grid}, cv=cv, refit=False, n_jobs=1).fit(Xtr, ytr)
        row[f"cost_{name}"] = time.perf_counter() - t1
        i = int(search.best_index_)
        row[f"choice_{name}"] = grid[i]
        row[f"regret_{name}"] = test_err[i] - best_test
    return row


def summarise(raw: pd.DataFrame) -> pd.DataFrame:
    methods = ["U", "CV5", "CV10", "HO"]
    agg = raw.groupby(["dataset", "classifier"]).agg(
        **{f"regret_{m}": (f"regret_{m}", "mean") for m in methods},
        **{f"cost_{m}": (f"cost_{m}", "mean") for m in methods},
        best_test_error=("best_test_error", "mean"))
    for m in methods[1:]:
        agg[f"ratio_{m}"] = agg[f"cost_{m}"] / agg["cost_U"]
    return agg


def main(argv=None) -> pd.DataFrame:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--M", type=int, default=40)
    ap.add_argument("--datasets", nargs="*", default=["gmm", "moons", "classif10", "breast_cancer", "wine"])
    ap.add_argument("--classifiers", nargs="*", default=list(CLASSIFIERS))
    ap.add_argument("--perturbation", type=float, default=0.5, help="T̃ amplitude a (Algorithm 1)")
    ap.add_argument("--mode", default="features", choices=["features", "scalar"], help="T̃ mode")
    ap.add_argument("--out", default=None, help="write the raw per-seed rows to this CSV")
    args = ap.parse_args(argv)
    rows = []
    t0 = time.perf_counter()
    for dataset in args.datasets:
        for clf in args.classifiers:
            for seed in range(args.seeds):
                rows.append(run_cell(dataset, clf, seed, args.M, args.perturbation, args.mode))
            print(f"  {dataset:14s} {clf:7s} done ({time.perf_counter() - t0:.0f} s)", flush=True)
    raw = pd.DataFrame(rows)
    if args.out:
        raw.to_csv(args.out, index=False)
    table = summarise(raw)
    pd.set_option("display.width", 200)
    print("\nMean test-error regret (chosen − best on the grid) and selection cost, "
          f"{args.seeds} seeds:\n")
    print(table.round(4).to_string())
    overall = raw[[c for c in raw if c.startswith("regret_") or c.startswith("cost_")]].mean()
    print("\nOverall mean regret:  " + "  ".join(f"{m}={overall[f'regret_{m}']:.4f}"
                                                  for m in ("U", "CV5", "CV10", "HO")))
    print("Overall mean cost (s): " + "  ".join(f"{m}={overall[f'cost_{m}']:.3f}" for m in ("U", "CV5", "CV10", "HO")))
    wins = {m: int((raw[f"regret_{m}"] <= raw["regret_CV10"] + 1e-12).sum()) for m in ("U", "CV5", "HO")}
    print(f"Cells where the method's regret <= 10-fold CV's: {wins} of {len(raw)}")
    return table


if __name__ == "__main__":
    main()
