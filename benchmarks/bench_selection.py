"""Model-selection study: does Û (training set only) pick hyper-parameters as well as CV?

    python benchmarks/bench_selection.py [--seeds 5] [--out buviz/data/tables/selection_full.csv]

For each (dataset, classifier, seed): a train/test split (standardised on the training part), a grid
of one hyper-parameter, and four ways of choosing the candidate from the training set alone: the
largest boundary uncertainty Û⁽³⁾ (Proposal 2, no held-out data), 5-fold and 10-fold stratified CV,
and one stratified 75/25 hold-out split. The chosen candidate, refitted on the whole training set,
is scored on the test set; **regret** = its test error − the smallest test error over the grid.
**Cost** = seconds the selection took (Û: per-dataset work + one fit and one Û evaluation per
candidate; CV / hold-out: every fold fit and prediction, no refit), and its ratio to Û's cost.

Datasets: the four exact mixtures ``gmm``, ``gmm_separable``, ``gmm_inclusion``, ``gmm3`` (N = 400,
5000 test points; exact Bayes error stored for the two-class ones), ``moons`` (``make_moons``, noise
0.3), ``circles`` (``make_circles``, noise 0.2, factor 0.5), ``classif10`` / ``classif20``
(``make_classification``, 10 / 20 features, 5 informative) with N = 400 and 5000 test points, and
scikit-learn's ``breast_cancer``, ``wine``, ``iris``, ``digits`` (stratified 50/50 split).
Classifiers: RBF SVC (γ), k-NN (k), random forest (``min_samples_leaf``), logistic regression (C),
and on ``digits`` an MLP (128-64, ReLU, Adam) read off at training epochs (the paper's Fig 9 on
Letter Recognition; one network trained with ``partial_fit``, statuses at the grid's epochs, and one
network per fold for CV).

**T̃ law** (``--amplitudes``, ``--modes``): for every cell the same candidates are also scored with
T̃ drawn with each amplitude a and mode (see :func:`buviz.model_selection.perturbation_amplitude_sweep`),
on the training set (Û_tr) and with the test set as input (Û_te, on the first N_train test points so
that both use the same N); one row per (cell, a, mode) goes to ``<out>_amplitude.csv`` (mean
|Û_tr − Û_te| over the grid, regret of argmax Û_tr).

Run it with one BLAS / OpenMP thread (``OMP_NUM_THREADS=1``): every method then runs single-threaded,
so the costs compare like with like (and k-NN's threaded distance code does not stall on a busy machine).
Rows are appended to the CSVs as each cell finishes and cells already present are skipped, so an
interrupted run resumes where it stopped. Cells are run seed by seed (all datasets for seed 0 first).

Reference for Û: D. Ha, S. Katagiri, H. Watanabe, M. Ohsaki, "An Improved Boundary Uncertainty-Based
Estimation for Classifier Evaluation", Journal of Signal Processing Systems, Springer, 2021,
doi:10.1007/s11265-021-01671-1.
"""

from __future__ import annotations

import argparse
import os
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
from buviz.classifiers import mlp_statuses
from buviz.model_selection import perturbation_amplitude_sweep
from buviz.uncertainty import BoundaryUncertainty

CLASSIFIERS = {
    "svc": (SVC(), "gamma", [2.0**e for e in range(-8, 7, 2)]),
    "knn": (KNeighborsClassifier(), "n_neighbors", [1, 3, 5, 9, 15, 25, 41]),
    "forest": (RandomForestClassifier(n_estimators=30, random_state=0), "min_samples_leaf", [1, 2, 5, 10, 20, 40]),
    "logreg": (LogisticRegression(max_iter=2000), "C", [10.0**e for e in range(-3, 4)]),
}
MLP_EPOCHS = [1, 2, 5, 10, 20, 50, 100]
MLP_DATASETS = ("digits",)
ALL_DATASETS = ["gmm", "gmm_separable", "gmm_inclusion", "gmm3", "breast_cancer", "wine", "digits", "iris",
                "moons", "circles", "classif10", "classif20"]
METHODS = ("U", "CV5", "CV10", "HO")
KEY = ["dataset", "classifier", "seed"]


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


def _splitters(seed: int) -> dict:
    return {"CV5": StratifiedKFold(5, shuffle=True, random_state=seed),
            "CV10": StratifiedKFold(10, shuffle=True, random_state=seed),
            "HO": StratifiedShuffleSplit(1, test_size=0.25, random_state=seed)}


def _mlp_cell(Xtr, ytr, Xte, yte, seed: int, M: int, perturbation: float, mode: str):
    """Û, CV and hold-out choice of the MLP's training epoch; statuses of one network per split."""
    t0 = time.perf_counter()
    bu = BoundaryUncertainty(M=min(M, len(Xtr)), perturbation=perturbation, perturbation_mode=mode,
                             n_jobs=1, random_state=seed).fit(Xtr, ytr)
    models, u, test_err = [], [], []
    for _, status in mlp_statuses(Xtr, ytr, MLP_EPOCHS, random_state=seed):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            u.append(bu.evaluate(status).value)
        t_pause = time.perf_counter()
        test_err.append(float(np.mean(status.predict(Xte) != yte)))  # not part of the cost
        models.append(status)
        t0 += time.perf_counter() - t_pause
    costs, choices = {"U": time.perf_counter() - t0}, {"U": int(np.argmax(u))}
    for name, cv in _splitters(seed).items():
        t1 = time.perf_counter()
        val = []
        for tr, va in cv.split(Xtr, ytr):
            val.append([float(np.mean(s.predict(Xtr[va]) != ytr[va]))
                        for _, s in mlp_statuses(Xtr[tr], ytr[tr], MLP_EPOCHS, random_state=seed)])
        costs[name] = time.perf_counter() - t1
        choices[name] = int(np.argmin(np.mean(val, axis=0)))
    return MLP_EPOCHS, models, np.array(test_err), choices, costs


def _sklearn_cell(clf: str, Xtr, ytr, Xte, yte, seed: int, M: int, perturbation: float, mode: str):
    est, param, grid = CLASSIFIERS[clf]
    # Û: per-dataset work once, then one fit + one evaluation per candidate
    t0 = time.perf_counter()
    bu = BoundaryUncertainty(M=min(M, len(Xtr)), perturbation=perturbation, perturbation_mode=mode,
                             n_jobs=1, random_state=seed).fit(Xtr, ytr)
    models, u, test_err = [], [], []
    for value in grid:
        model = clone(est).set_params(**{param: value}).fit(Xtr, ytr)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            u.append(bu.evaluate(model).value)
        t_pause = time.perf_counter()
        test_err.append(float(np.mean(model.predict(Xte) != yte)))  # not part of the cost
        models.append(model)
        t0 += time.perf_counter() - t_pause
    costs, choices = {"U": time.perf_counter() - t0}, {"U": int(np.argmax(u))}
    for name, cv in _splitters(seed).items():
        t1 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            search = GridSearchCV(clone(est), {param: grid}, cv=cv, refit=False, n_jobs=1).fit(Xtr, ytr)
        costs[name] = time.perf_counter() - t1
        choices[name] = int(search.best_index_)
    return grid, models, np.array(test_err), choices, costs


def run_cell(dataset: str, clf: str, seed: int, M: int = 40, perturbation: float = 0.5, mode: str = "features",
             amplitudes=(0.0, 0.25, 0.5, 1.0, 2.0, 4.0), modes=("features", "scalar")):
    """One (dataset, classifier, seed): the selection row and the T̃-law rows (empty if no amplitudes)."""
    Xtr, ytr, Xte, yte, bayes = load(dataset, seed)
    warnings.filterwarnings("ignore", message=".*batch_size.*")  # partial_fit on a short last mini-batch
    cell = _mlp_cell if clf == "mlp" else (lambda *a: _sklearn_cell(clf, *a))
    grid, models, test_err, choices, costs = cell(Xtr, ytr, Xte, yte, seed, M, perturbation, mode)
    best = float(test_err.min())
    row = {"dataset": dataset, "classifier": clf, "seed": seed, "n_train": len(Xtr), "n_test": len(Xte),
           "best_test_error": best, "best_choice": grid[int(np.argmin(test_err))], "bayes_error": bayes,
           "perturbation": perturbation, "mode": mode}
    for m in METHODS:
        row[f"choice_{m}"] = grid[choices[m]]
        row[f"regret_{m}"] = float(test_err[choices[m]] - best)
        row[f"cost_{m}"] = costs[m]
    amp_rows = []
    if amplitudes:
        param = "epoch" if clf == "mlp" else CLASSIFIERS[clf][1]
        sweep = perturbation_amplitude_sweep(Xtr, ytr, Xte, yte, param=param, values=grid, amplitudes=amplitudes,
                                             modes=modes, M=min(M, len(Xtr)), max_test=len(Xtr),
                                             random_state=seed, fitted_models=models)
        for (m, a), g in sweep.groupby(["mode", "amplitude"], sort=False):
            i_tr, i_te = int(np.argmax(g["U_tr"].to_numpy())), int(np.argmax(g["U_te"].to_numpy()))
            amp_rows.append({"dataset": dataset, "classifier": clf, "seed": seed, "mode": m, "amplitude": a,
                             "mean_abs_dU": float(np.mean(np.abs(g["U_tr"] - g["U_te"]))),
                             "regret_U_tr": float(test_err[i_tr] - best), "regret_U_te": float(test_err[i_te] - best),
                             "choice_U_tr": grid[i_tr], "U_tr": ";".join(f"{v:.4f}" for v in g["U_tr"]),
                             "U_te": ";".join(f"{v:.4f}" for v in g["U_te"])})
    return row, amp_rows


def summarise(raw: pd.DataFrame) -> pd.DataFrame:
    """Mean ± sd regret per method and mean cost (ratio to Û) per (dataset, classifier)."""
    spec = {}
    for m in METHODS:
        spec[f"regret_{m}"] = (f"regret_{m}", "mean")
        spec[f"sd_{m}"] = (f"regret_{m}", "std")
        spec[f"cost_{m}"] = (f"cost_{m}", "mean")
    agg = raw.groupby(["dataset", "classifier"]).agg(**spec, best_test_error=("best_test_error", "mean"),
                                                      seeds=("seed", "count"))
    for m in METHODS[1:]:
        agg[f"ratio_{m}"] = agg[f"cost_{m}"] / agg["cost_U"]
    return agg


def summarise_amplitude(amp: pd.DataFrame) -> pd.DataFrame:
    """Per T̃ law: mean |Û_tr − Û_te| and mean regret of argmax Û_tr over all cells."""
    return amp.groupby(["mode", "amplitude"]).agg(mean_abs_dU=("mean_abs_dU", "mean"),
                                                  regret_U_tr=("regret_U_tr", "mean"),
                                                  sd_regret=("regret_U_tr", "std"),
                                                  regret_U_te=("regret_U_te", "mean"), cells=("seed", "count"))


def read_amplitude(path: str) -> pd.DataFrame:
    """The T̃-law rows of a run; a cell interrupted after its T̃-law rows and rerun appears once (last)."""
    amp = pd.read_csv(path)
    return amp.drop_duplicates(["dataset", "classifier", "seed", "mode", "amplitude"], keep="last")


def paired_against(amp: pd.DataFrame, mode: str = "features", amplitude: float = 0.5) -> pd.DataFrame:
    """Per T̃ law: mean and standard error of (its regret − the reference law's regret), paired by cell."""
    key = ["dataset", "classifier", "seed"]
    ref = amp[(amp["mode"] == mode) & np.isclose(amp["amplitude"], amplitude)].set_index(key)["regret_U_tr"]
    out = []
    for (m, a), g in amp.groupby(["mode", "amplitude"]):
        d = g.set_index(key)["regret_U_tr"] - ref
        d = d.dropna()
        out.append({"mode": m, "amplitude": a, "diff": d.mean(), "se": d.std(ddof=1) / np.sqrt(len(d)),
                    "better": int((d < -1e-12).sum()), "worse": int((d > 1e-12).sum()), "cells": len(d)})
    return pd.DataFrame(out).set_index(["mode", "amplitude"])


#: +1: a larger value of the hyper-parameter gives a more flexible boundary; -1: a smaller one.
FLEXIBILITY = {"svc": 1, "knn": -1, "forest": -1, "logreg": 1, "mlp": 1}


def direction_table(raw: pd.DataFrame) -> pd.DataFrame:
    """Share of cells where each method chose a more flexible / the same / a less flexible candidate than
    the best one on the test set (ties on the test error count as "same")."""
    out = {}
    for m in METHODS:
        sign = np.sign((raw[f"choice_{m}"] - raw["best_choice"]) * raw["classifier"].map(FLEXIBILITY))
        same = (sign == 0) | (raw[f"regret_{m}"] <= 1e-12)
        out[m] = {"more flexible": float(np.mean((sign > 0) & ~same)), "best": float(np.mean(same)),
                  "less flexible": float(np.mean((sign < 0) & ~same))}
    return pd.DataFrame(out).T


def markdown_report(raw: pd.DataFrame, amp: pd.DataFrame | None = None) -> str:
    """The tables of ``docs/model_selection.md``: regret mean ± sd per method per (dataset, classifier),
    overall, cost ratios, and the T̃-law table."""
    def pm(mean, sd):
        return f"{mean:.4f} ± {0 if np.isnan(sd) else sd:.4f}"

    agg = summarise(raw)
    head = ("| dataset | classifier | best L_te | regret Û | regret CV5 | regret CV10 | regret HO | cost Û (s) "
            "| CV5/Û | CV10/Û | HO/Û |\n|---|---|---|---|---|---|---|---|---|---|---|")
    lines = [head]
    for (d, c), r in agg.iterrows():
        lines.append(f"| {d} | {c} | {r.best_test_error:.4f} | " + " | ".join(pm(r[f'regret_{m}'], r[f'sd_{m}'])
                                                                        for m in METHODS)
                     + f" | {r.cost_U:.2f} | {r.ratio_CV5:.1f} | {r.ratio_CV10:.1f} | {r.ratio_HO:.2f} |")
    cost = {m: raw[f"cost_{m}"].mean() for m in METHODS}
    lines.append("| **all** | **all** | " + f"{raw.best_test_error.mean():.4f} | "
                 + " | ".join(f"**{pm(raw[f'regret_{m}'].mean(), raw[f'regret_{m}'].std())}**" for m in METHODS)
                 + f" | {cost['U']:.2f} | {cost['CV5'] / cost['U']:.1f} | {cost['CV10'] / cost['U']:.1f} "
                   f"| {cost['HO'] / cost['U']:.2f} |")
    out = "\n".join(lines)
    d = direction_table(raw)
    out += ("\n\n| method | chose the best (or a tie) | more flexible than the best | less flexible |"
            "\n|---|---|---|---|\n")
    out += "\n".join(f"| {m} | {r['best']:.0%} | {r['more flexible']:.0%} | {r['less flexible']:.0%} |"
                      for m, r in d.iterrows())
    if amp is not None and len(amp):
        t = summarise_amplitude(amp)
        rows = ["| mode | a | mean \\|Û_tr − Û_te\\| | regret of argmax Û_tr (mean ± sd) "
                "| regret of argmax Û_te | cells |",
                "|---|---|---|---|---|---|"]
        for (m, a), r in t.iterrows():
            rows.append(f"| {m} | {a:g} | {r.mean_abs_dU:.4f} | {pm(r.regret_U_tr, r.sd_regret)} | "
                        f"{r.regret_U_te:.4f} | {int(r.cells)} |")
        out += "\n\n" + "\n".join(rows)
        p = paired_against(amp)
        rows = ["| mode | a | regret − regret(features, ½), mean ± se | cells better / worse / of |",
                "|---|---|---|---|"]
        for (m, a), r in p.iterrows():
            rows.append(f"| {m} | {a:g} | {r['diff']:+.4f} ± {r.se:.4f} | "
                        f"{int(r.better)} / {int(r.worse)} / {int(r.cells)} |")
        out += "\n\n" + "\n".join(rows)
    return out


def _done(path: str) -> set:
    if not path or not os.path.exists(path):
        return set()
    old = pd.read_csv(path)
    return set(zip(old["dataset"], old["classifier"], old["seed"], strict=True))


def _append(path: str, rows: list[dict]) -> None:
    if path and rows:
        pd.DataFrame(rows).to_csv(path, mode="a", header=not os.path.exists(path), index=False)


def main(argv=None) -> pd.DataFrame:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--M", type=int, default=40)
    ap.add_argument("--datasets", nargs="*", default=ALL_DATASETS)
    ap.add_argument("--classifiers", nargs="*", default=list(CLASSIFIERS) + ["mlp"],
                    help="mlp runs on the datasets of MLP_DATASETS only")
    ap.add_argument("--perturbation", type=float, default=0.5, help="T̃ amplitude a of the Û selection")
    ap.add_argument("--mode", default="features", choices=["features", "scalar"], help="T̃ mode of the Û selection")
    ap.add_argument("--amplitudes", type=float, nargs="*", default=[0.0, 0.25, 0.5, 1.0, 2.0, 4.0],
                    help="T̃ amplitudes of the T̃-law study (none: skip it)")
    ap.add_argument("--modes", nargs="*", default=["features", "scalar"])
    ap.add_argument("--amplitude-seeds", type=int, default=None,
                    help="run the T̃-law study on the first this many seeds only (default: all)")
    ap.add_argument("--jobs", type=int, default=1, help="cells run in parallel (processes)")
    ap.add_argument("--out", default=None, help="append the raw per-cell rows to this CSV (resumes from it)")
    ap.add_argument("--report", action="store_true", help="only print the markdown tables of --out")
    args = ap.parse_args(argv)
    amp_out = args.out[:-4] + "_amplitude.csv" if args.out and args.out.endswith(".csv") else None
    if args.report:
        raw = pd.read_csv(args.out)
        print(markdown_report(raw, read_amplitude(amp_out) if amp_out and os.path.exists(amp_out) else None))
        return summarise(raw)
    done = _done(args.out)
    cells = [(d, c, s) for s in range(args.seeds) for d in args.datasets for c in args.classifiers
             if (c != "mlp" or d in MLP_DATASETS) and (d, c, s) not in done]
    print(f"{len(cells)} cells to run ({len(done)} already in {args.out})", flush=True)
    t0 = time.perf_counter()
    rows, amp_rows = [], []

    def record(cell, out):
        row, amp = out
        rows.append(row)
        amp_rows.extend(amp)
        _append(amp_out, amp)  # the amplitude rows first: a cell counts as done once its main row is written
        _append(args.out, [row])
        print(f"  {cell[0]:14s} {cell[1]:7s} seed {cell[2]} regret U {row['regret_U']:.4f} "
              f"CV10 {row['regret_CV10']:.4f} ({time.perf_counter() - t0:.0f} s)", flush=True)

    kw = dict(M=args.M, perturbation=args.perturbation, mode=args.mode, modes=args.modes)

    def amplitudes(seed):
        n = args.seeds if args.amplitude_seeds is None else args.amplitude_seeds
        return args.amplitudes if seed < n else ()

    if args.jobs > 1:
        from joblib import Parallel, delayed

        outs = Parallel(n_jobs=args.jobs, return_as="generator")(
            delayed(run_cell)(*c, amplitudes=amplitudes(c[2]), **kw) for c in cells)
        for cell, out in zip(cells, outs, strict=True):
            record(cell, out)
    else:
        for cell in cells:
            try:
                out = run_cell(*cell, amplitudes=amplitudes(cell[2]), **kw)
            except Exception as exc:  # noqa: BLE001 - report and go on; the cell stays missing and reruns
                print(f"  {cell} FAILED: {type(exc).__name__}: {exc}", flush=True)
                continue
            record(cell, out)
    raw = pd.read_csv(args.out) if args.out else pd.DataFrame(rows)
    pd.set_option("display.width", 250)
    print("\nMean test-error regret (chosen − best on the grid) ± sd and selection cost:\n")
    print(summarise(raw).round(4).to_string())
    print("\nOverall mean regret:  " + "  ".join(f"{m}={raw[f'regret_{m}'].mean():.4f}" for m in METHODS))
    print("Overall mean cost (s): " + "  ".join(f"{m}={raw[f'cost_{m}'].mean():.3f}" for m in METHODS))
    amp = read_amplitude(amp_out) if amp_out and os.path.exists(amp_out) else pd.DataFrame(amp_rows)
    if len(amp):
        print("\nT̃ law:\n" + summarise_amplitude(amp).round(4).to_string())
    return summarise(raw)


if __name__ == "__main__":
    main()
