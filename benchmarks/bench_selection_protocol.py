"""γ selection at the protocol of Ha et al. (2021): Û (two readings of eq 39) against CV and hold-out.

D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based Estimation for
Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021,
https://doi.org/10.1007/s11265-021-01671-1 (§6.1-§6.4, Goal (c)).

The protocol is written down in docs/model_selection.md, "Selection at the paper's protocol": for
each UCI set other than Letter, stratified 80/20 train/test splits (:data:`TEST_SIZE`); on the
training part the paper's C rule (as :func:`buviz.reproduce.choose_C` applies it to the whole set),
the step-1 grid log₂ γ = −15 … 15 (:data:`buviz.reproduce.LOG2_GAMMAS`), and five selections of γ:
argmax Û⁽³⁾ under eq 39 as printed ("literal") and under buviz's tolerance ("threshold"), both read
from one evaluation per status; 10-fold CV, 5-fold CV and one 75/25 hold-out. Letter Recognition's
rows are read from the shipped ``svm_gamma_letter.csv`` (the paper's split; ``--letter-from-table``).

One row per set × split × method goes to ``--out`` (default ``buviz/data/tables/selection_protocol.csv``)
and the 31-point curves per set × split to ``--curves``; a run skips the (set, split) pairs already
there, so it resumes where it stopped::

    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/bench_selection_protocol.py --datasets banknote --splits 0 1 2 3 4
    python benchmarks/bench_selection_protocol.py --letter-from-table
    python benchmarks/bench_selection_protocol.py --report
"""

from __future__ import annotations

import argparse
import fcntl
import os
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from buviz import datasets, reproduce, sweep, verdicts
from buviz._reproduce_cells import _reading
from buviz.classifiers import svm_status

ROOT = Path(__file__).resolve().parents[1]
TABLES = ROOT / "buviz" / "data" / "tables"
OUT = TABLES / "selection_protocol.csv"
CURVES = TABLES / "selection_protocol_curves.csv"
#: Share of each UCI set held out as the test set (stratified); the rest is the training part.
TEST_SIZE = 0.2
#: The split seeds of the protocol (each also seeds T̃, K-means, the CV folds and the hold-out).
SPLITS = (0, 1, 2, 3, 4)
#: The nine UCI sets that get splits, cheapest first (Letter keeps the paper's own split).
DATASETS = ("breast_cancer_wisconsin", "banknote", "german", "winequality_red", "cardiotocography", "abalone",
            "winequality_white", "spambase", "satimage")
#: The selections, in the order of the report.
METHODS = ("U_literal", "U_threshold", "CV10", "CV5", "HO")
#: Each method's criterion column in the curves, and whether it is maximised (Û) or minimised (errors).
CRITERION = {"U_literal": ("U_literal", True), "U_threshold": ("U_threshold", True), "CV10": ("L_val10", False),
             "CV5": ("L_val5", False), "HO": ("L_ho", False)}
SETTINGS = "protocol-v1"


# -- the data and C ---------------------------------------------------------------------------------
def split_dataset(name: str, split: int, *, test_size: float = TEST_SIZE, n_sub: int | None = None):
    """The stratified train/test split ``split`` of UCI set ``name``, standardised on its training part.

    ``n_sub`` first draws a stratified subsample of that many rows (seed 0; for tests only).
    """
    from sklearn.model_selection import train_test_split

    X, y, columns = datasets._read_uci(name)
    if n_sub is not None and n_sub < len(y):
        idx = train_test_split(np.arange(len(y)), train_size=n_sub, stratify=y, random_state=0)[0]
        X, y = X[np.sort(idx)], y[np.sort(idx)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", datasets.ConstantFeatureWarning)
        return datasets.from_arrays(X, y, test_size=test_size, random_state=split, name=name,
                                    feature_names=list(columns))


def choose_C_on(X, y) -> tuple[float, list[float]]:
    """The paper's C rule as :func:`buviz.reproduce.choose_C` applies it, on the arrays given.

    10-fold stratified CV (folds seeded with :data:`buviz.reproduce.C_SEED`) over
    :data:`buviz.reproduce.C_GRID` at γ = 1/d; the smallest mean validation error wins, ties to the
    smaller C. Returns C and the validation error of each C.
    """
    gamma = 1.0 / X.shape[1]
    folds = sweep._splits(y, reproduce.CV, reproduce.C_SEED)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        val = [float(np.mean([reproduce._val_error(X, y, tr, va, gamma, C) for tr, va in folds]))
               for C in reproduce.C_GRID]
    return float(reproduce.C_GRID[int(np.argmin(val))]), val


# -- one (set, split) -------------------------------------------------------------------------------
def _fold_errors(X, y, folds, gamma: float, C: float) -> tuple[float, float]:
    """Mean validation error over ``folds`` and the seconds it took."""
    t0 = time.perf_counter()
    err = float(np.mean([reproduce._val_error(X, y, tr, va, gamma, C) for tr, va in folds]))
    return err, time.perf_counter() - t0


def pick(values, *, maximise: bool, log2_gammas) -> float:
    """The chosen log₂ γ: the best value of the criterion, ties (:data:`buviz.verdicts.TIE_ATOL`) to the smallest γ."""
    v = np.asarray(values, dtype=float)
    v = -v if maximise else v
    order = np.argsort(np.asarray(log2_gammas, dtype=float), kind="stable")
    v, g = v[order], np.asarray(log2_gammas, dtype=float)[order]
    return float(g[np.flatnonzero(v <= np.nanmin(v) + verdicts.TIE_ATOL)[0]])


def width(values, *, maximise: bool) -> int:
    """Goal (c)'s width of a curve's minimum: :func:`buviz.verdicts.near_top` of Û, or of −L for an error."""
    v = np.asarray(values, dtype=float)
    return verdicts.near_top(v if maximise else -v)


def rows_from_curves(curves: pd.DataFrame, costs: dict[str, float], meta: dict) -> list[dict]:
    """One row per method of one (set, split) from its curves (one row per log₂ γ)."""
    c = curves.sort_values("log2_gamma")
    g, l_te = c["log2_gamma"].to_numpy(float), c["L_te"].to_numpy(float)
    best = float(np.nanmin(l_te))
    rows = []
    for method in METHODS:
        col, maximise = CRITERION[method]
        if col not in c or c[col].isna().all():
            continue
        x = pick(c[col], maximise=maximise, log2_gammas=g)
        l_pick = float(l_te[g == x][0])
        dist = float(np.mean(np.abs(c[col].to_numpy(float) - l_te))) if not maximise else float("nan")
        rows.append({**meta, "method": method, "log2_gamma_pick": x, "L_te_pick": l_pick, "L_te_min": best,
                     "log2_gamma_best": pick(l_te, maximise=False, log2_gammas=g), "regret": l_pick - best,
                     "cost_s": costs.get(method, float("nan")), "width": width(c[col], maximise=maximise),
                     "dist_to_L_te": dist})
    return rows


def cell(name: str, split: int, *, test_size: float = TEST_SIZE, log2_gammas=reproduce.LOG2_GAMMAS,
         n_sub: int | None = None, M: int = reproduce.M) -> tuple[list[dict], pd.DataFrame]:
    """Every selection of γ on one (set, split): the method rows and the curves over log₂ γ.

    Parameters
    ----------
    name : str
        A UCI set of :data:`DATASETS`.
    split : int
        The split seed (also T̃'s, K-means', the folds' and the hold-out's).
    test_size : float
        The test share of the split.
    log2_gammas : sequence of float
        The grid (the protocol: :data:`buviz.reproduce.LOG2_GAMMAS`).
    n_sub : int, optional
        Subsample the set to this many rows first (tests).
    M : int
        Proposal 2's neighbourhood size.

    Returns
    -------
    (list of dict, pandas.DataFrame)
        The rows of :func:`rows_from_curves` and the curves (``L_te``, ``L_val10``, ``L_val5``,
        ``L_ho``, ``U_literal``, ``U_threshold`` per log₂ γ).
    """
    from buviz.uncertainty import BoundaryUncertainty

    ds = split_dataset(name, split, test_size=test_size, n_sub=n_sub)
    X, y = ds.X_train, ds.y_train
    t0 = time.perf_counter()
    C, C_val = choose_C_on(X, y)
    t_C = time.perf_counter() - t0
    folds10 = sweep._splits(y, 10, split)
    folds5 = sweep._splits(y, 5, split)
    ho = [sweep._holdout_split(y, split)]
    costs = dict.fromkeys(("U", "CV10", "CV5", "HO"), 0.0)
    curves = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bu = BoundaryUncertainty(M=M, K="aic", perturbation=reproduce.PERTURBATION, K_range=reproduce.K_RANGE,
                                 separability=reproduce.SEPARABILITY, random_state=split, n_jobs=1).fit(X, y)
        costs["U"] += bu.fit_time_
        for lg in log2_gammas:
            gamma = 2.0 ** float(lg)
            t1 = time.perf_counter()
            disc = svm_status(X, y, gamma, C)
            r = bu._evaluate(disc, copy_discriminant=False)
            costs["U"] += time.perf_counter() - t1
            row = {"log2_gamma": float(lg), "L_te": reproduce._error(disc, ds.X_test, ds.y_test),
                   "L_tr": reproduce._error(disc, X, y),
                   **{f"U_{rule}": _reading(r, rule) for rule in verdicts.READINGS}}
            for key, folds in (("CV10", folds10), ("CV5", folds5), ("HO", ho)):
                err, dt = _fold_errors(X, y, folds, gamma, C)
                costs[key] += dt
                row[{"CV10": "L_val10", "CV5": "L_val5", "HO": "L_ho"}[key]] = err
            curves.append(row)
    curves = pd.DataFrame(curves)
    meta = {"dataset": name, "split": int(split), "source": "computed", "settings": SETTINGS,
            "test_size": test_size, "n_train": len(y), "n_test": len(ds.y_test), "C": C,
            "C_val": " ".join(f"{v:.4f}" for v in C_val), "time_C_s": t_C}
    per_method = {"U_literal": costs["U"], "U_threshold": costs["U"], "CV10": costs["CV10"], "CV5": costs["CV5"],
                  "HO": costs["HO"]}
    curves.insert(0, "split", int(split))
    curves.insert(0, "dataset", name)
    return rows_from_curves(curves, per_method, meta), curves


def _reading_or_nan(t: pd.DataFrame, reading: str) -> np.ndarray:
    col = verdicts.reading_column(t, reading)
    return t[col].to_numpy(float) if col is not None else np.full(len(t), np.nan)


def letter_from_table(path: Path | None = None) -> tuple[list[dict], pd.DataFrame]:
    """Letter Recognition's rows (the paper's 10 000 / 10 000 split) from the shipped ``svm_gamma_letter.csv``.

    Each seed (T̃, K-means, the 10-fold CV and the hold-out) is one "split"; there is no 5-fold CV.
    Û's cost is that run's ``time_u_fit`` + Σ (``time_fit`` + ``time_u_tr``), CV10's Σ ``time_cv``,
    HO's Σ ``time_ho``. A reading of eq 39 the table does not hold gives no row.
    """
    t = pd.read_csv(path or TABLES / "svm_gamma_letter.csv")
    t = t[(t["variant"] == "base") & (t["perturbation"] == reproduce.PERTURBATION)]
    rows, curves = [], []
    for seed, g in t.groupby("seed"):
        g = g.sort_values("log2_gamma")
        c = pd.DataFrame({"dataset": "letter", "split": int(seed), "log2_gamma": g["log2_gamma"].to_numpy(float),
                          "L_te": g["L_te"].to_numpy(float), "L_tr": g["L_tr"].to_numpy(float),
                          **{f"U_{rule}": _reading_or_nan(g, rule) for rule in verdicts.READINGS},
                          "L_val10": g["L_val"].to_numpy(float), "L_val5": np.nan,
                          "L_ho": g["L_ho"].to_numpy(float)})
        u_cost = float(g["time_u_fit"].iloc[0] + (g["time_fit"] + g["time_u_tr"]).sum())
        costs = {"U_literal": u_cost, "U_threshold": u_cost, "CV10": float(g["time_cv"].sum()),
                 "HO": float(g["time_ho"].sum())}
        meta = {"dataset": "letter", "split": int(seed), "source": "svm_gamma_letter.csv", "settings": SETTINGS,
                "test_size": float("nan"), "n_train": int(g["n_train"].iloc[0]), "n_test": int(g["n_test"].iloc[0]),
                "C": float(g["C"].iloc[0]), "C_val": "", "time_C_s": float("nan")}
        rows += rows_from_curves(c, costs, meta)
        curves.append(c)
    return rows, pd.concat(curves, ignore_index=True)


# -- the CSV checkpoint -----------------------------------------------------------------------------
def _append(path: Path, frame: pd.DataFrame) -> None:
    """Append ``frame`` to ``path`` under an exclusive lock (two processes may share the file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            fh.seek(0, os.SEEK_END)
            frame.to_csv(fh, header=fh.tell() == 0, index=False, float_format="%.10g")
            fh.flush()
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _drop(path: Path, dataset: str) -> None:
    """Remove ``dataset``'s rows from ``path`` (under the lock), so that they can be written again."""
    if not path.is_file():
        return
    with open(path, "r+") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            t = pd.read_csv(fh)
            fh.seek(0)
            fh.truncate()
            t[t["dataset"] != dataset].to_csv(fh, index=False, float_format="%.10g")
            fh.flush()
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _done(path: Path) -> set[tuple[str, int]]:
    if not path.is_file():
        return set()
    t = pd.read_csv(path)
    return {(d, int(s)) for d, s in zip(t["dataset"], t["split"], strict=True)}


# -- the report -------------------------------------------------------------------------------------
def report(out: Path = OUT, curves_path: Path = CURVES) -> str:
    """The tables of docs/model_selection.md's results section, as Markdown."""
    t = pd.read_csv(out)
    lines = ["Mean regret (splits with regret 0) and mean cost in s per set and method:", "",
             "| dataset | splits | N train / test | C | " + " | ".join(f"regret {m}" for m in METHODS)
             + " | cost Û (s) | " + " | ".join(f"{m}/Û" for m in METHODS[2:]) + " |",
             "|:--|--:|--:|--:|" + "--:|" * (len(METHODS) + 1 + len(METHODS) - 2)]
    for name, g in t.groupby("dataset", sort=False):
        n = g["split"].nunique()
        cells = []
        for m in METHODS:
            r = g[g["method"] == m]["regret"]
            cells.append(f"{r.mean():.4f} ({int((r <= verdicts.TIE_ATOL).sum())}/{len(r)})" if len(r) else "—")
        cost = g.groupby("method")["cost_s"].mean()
        u_cost = cost.get("U_literal", cost.get("U_threshold"))  # one evaluation serves both readings
        ratios = [f"{cost[m] / u_cost:.2f}" if m in cost else "—" for m in METHODS[2:]]
        Cs = "/".join(f"{c:g}" for c in sorted(g["C"].unique()))
        lines.append(f"| {name} | {n} | {int(g['n_train'].iloc[0])} / {int(g['n_test'].iloc[0])} | {Cs} | "
                     + " | ".join(cells) + f" | {u_cost:.1f} | " + " | ".join(ratios) + " |")
    nl = t[t["dataset"] != "letter"]
    if len(nl):
        cells = []
        for m in METHODS:
            r = nl[nl["method"] == m]["regret"]
            cells.append(f"{r.mean():.4f} ({int((r <= verdicts.TIE_ATOL).sum())}/{len(r)})")
        cost = nl.groupby("method")["cost_s"].mean()
        lines.append(f"| **all but Letter** | {nl.groupby('dataset')['split'].nunique().sum()} | | | "
                     + " | ".join(cells) + f" | {cost['U_literal']:.1f} | "
                     + " | ".join(f"{cost[m] / cost['U_literal']:.2f}" for m in METHODS[2:]) + " |")
    # Goal (c)
    lines += ["", "Goal (c): width of the minimum (γ within verdicts.SHARP_WITHIN = "
              f"{verdicts.SHARP_WITHIN} of it), −Û against 10-fold L_val, per (set, split):", "",
              "| reading | pairs | −Û sharper | as wide | wider | sharper among Û regret 0 | median width −Û / L_val |",
              "|:--|--:|--:|--:|--:|--:|--:|"]
    w = t.pivot_table(index=["dataset", "split"], columns="method", values="width")
    reg = t.pivot_table(index=["dataset", "split"], columns="method", values="regret")
    for m in ("U_literal", "U_threshold"):
        if m not in w:
            continue
        d = w[[m, "CV10"]].dropna()
        ok = reg.loc[d.index, m] <= verdicts.TIE_ATOL
        s = d[m] < d["CV10"]
        lines.append(f"| {m[2:]} | {len(d)} | {int(s.sum())} | {int((d[m] == d['CV10']).sum())} | "
                     f"{int((d[m] > d['CV10']).sum())} | {int(s[ok].sum())} of {int(ok.sum())} | "
                     f"{d[m].median():g} / {d['CV10'].median():g} |")
    # §6.4.1
    dist = t.pivot_table(index=["dataset", "split"], columns="method", values="dist_to_L_te")[["CV10", "HO"]].dropna()
    lines += ["", "§6.4.1: mean over γ of \\|curve − L_te\\|, hold-out against 10-fold L_val:", "",
              "| dataset | splits | mean \\|L_HO − L_te\\| | mean \\|L_val − L_te\\| | L_HO closer |",
              "|:--|--:|--:|--:|--:|"]
    for name, g in dist.groupby(level="dataset", sort=False):
        lines.append(f"| {name} | {len(g)} | {g['HO'].mean():.4f} | {g['CV10'].mean():.4f} | "
                     f"{int((g['HO'] < g['CV10']).sum())}/{len(g)} |")
    lines.append(f"| **all** | {len(dist)} | {dist['HO'].mean():.4f} | {dist['CV10'].mean():.4f} | "
                 f"{int((dist['HO'] < dist['CV10']).sum())}/{len(dist)} |")
    return "\n".join(lines)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=DATASETS)
    p.add_argument("--splits", nargs="+", type=int, default=list(SPLITS))
    p.add_argument("--out", type=Path, default=OUT)
    p.add_argument("--curves", type=Path, default=CURVES)
    p.add_argument("--letter-from-table", action="store_true", help="add Letter's rows from svm_gamma_letter.csv")
    p.add_argument("--report", action="store_true", help="print the tables and exit")
    a = p.parse_args(argv)
    if a.report:
        print(report(a.out, a.curves))
        return
    if a.letter_from_table:  # read from the shipped table: replaces Letter's rows
        rows, curves = letter_from_table()
        for path, frame in ((a.curves, curves), (a.out, pd.DataFrame(rows))):
            _drop(path, "letter")
            _append(path, frame)
        print(f"letter: {len(rows)} rows from svm_gamma_letter.csv")
        return
    done = _done(a.out)
    for name in a.datasets:
        for split in a.splits:
            if (name, split) in done:
                print(f"{name} split {split}: already in {a.out.name}")
                continue
            t0 = time.perf_counter()
            rows, curves = cell(name, split)
            _append(a.curves, curves)
            _append(a.out, pd.DataFrame(rows))
            regrets = ", ".join(f"{r['method']} {r['regret']:.4f}" for r in rows)
            print(f"{name} split {split}: {time.perf_counter() - t0:.0f} s; C = {rows[0]['C']:g}; {regrets}",
                  flush=True)


if __name__ == "__main__":
    main()
