"""Goal (a) of Ha et al. (2021) against the truth: Û_tr and Û_te beside the true U(Λ) on the GMM mixture.

For each training size N, seed and γ of the RBF SVC (C = :data:`C`), the status is fitted on a fresh
draw of ``datasets.load("gmm", n_train=N, n_test=N_TE, random_state=seed)``; its true boundary
uncertainty U(Λ) is the line integral of :func:`buviz.uncertainty.true_boundary_uncertainty` (exact
posteriors along B(Λ)); Û_tr and Û_te are Proposal 2 (eq 39 as printed, K by AIC over the paper's
1, 3, ..., 39, T̃ with a = 0.5) fitted on T and on the test set, for each M. Every cell holds the 75/25 hold-out
error L_HO and L_te; at N = 2 000 and M = 40 (the paper's Fig 6) also Û without T̃, and with ``--cv``
10-fold CV (L_tr, L_val); those rows are the shipped table ``buviz/data/tables/uncertainty_fig6_gmm.csv`` that the
figure ``uncertainty_fig6`` draws.

Cells are written to ``--work-dir`` as they finish (a rerun resumes). Then::

    python benchmarks/goal_a_oracle.py                       # the grid N ∈ {300, 2000}, M ∈ {20, 40}
    python benchmarks/goal_a_oracle.py --cv --write-table    # also CV, and (re)write the shipped Fig 6 table

prints, per (N, M), the mean over seeds and γ of |Û_tr − Û_te|, |Û_tr − U| and |Û_te − U|, the mean
signed errors (a bias both share shows as equal signed errors), the correlation of each with U, and
the γ steps between the argmax of each and of U; ``benchmarks/results/goal_a_oracle.csv`` holds the rows.
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from buviz import datasets
from buviz.classifiers import svm_status
from buviz.uncertainty import PAPER_K_RANGE, PAPER_SEPARABILITY, BoundaryUncertainty
from buviz.uncertainty.oracle import true_boundary_uncertainty

#: C of the SVC: the value ``buviz.reproduce.choose_C("gmm")`` selects for the GMM set (10-fold CV at γ = 1/d).
C = 16.0
#: Test-set size (the paper's GMM test set).
N_TE = 18_000
#: The γ grid (the paper's 2⁻¹⁵ … 2¹⁵).
LOG2_GAMMAS = tuple(range(-15, 16))
#: T̃'s amplitude (Algorithm 1; 0: without T̃).
PERTURBATION = 0.5
#: Grid points per axis of U(Λ)'s line integral over the box (each row records the change from a grid
#: twice as coarse in ``U_true_accuracy``; large-γ statuses use a finer certified region anyway).
ORACLE_RESOLUTION = 201
#: The paper's Fig 6 size: its rows are the shipped table.
PAPER_N, PAPER_M = 2000, 40
ROOT = Path(__file__).resolve().parents[1]
TABLE = ROOT / "buviz" / "data" / "tables" / "uncertainty_fig6_gmm.csv"
RESULTS = ROOT / "benchmarks" / "results" / "goal_a_oracle.csv"


def _estimators(ds, M: int, seed: int, perturbation: float):
    kw = dict(M=M, K="aic", K_range=PAPER_K_RANGE, perturbation=perturbation, separability=PAPER_SEPARABILITY,
              random_state=seed, n_jobs=1)
    return (BoundaryUncertainty(**kw).fit(ds.X_train, ds.y_train),
            BoundaryUncertainty(**kw).fit(ds.X_test, ds.y_test))


def _error(d, X, y) -> float:
    return float(np.mean(d.predict(X) != y))


def _cv_errors(ds, seed: int, gamma: float) -> dict:
    """10-fold stratified CV (L_tr, L_val) of the status's SVC, folds seeded with ``seed``."""
    from buviz import sweep

    X, y = ds.X_train, ds.y_train
    folds = []
    for tr, va in sweep._splits(y, 10, seed):
        f = svm_status(X[tr], y[tr], gamma, C)
        folds.append((_error(f, X[tr], y[tr]), _error(f, X[va], y[va])))
    return {"L_tr": float(np.mean([f[0] for f in folds])), "L_val": float(np.mean([f[1] for f in folds]))}


def cell(ds, seed: int, log2_gamma: int, estimators: dict, paper: bool) -> dict:
    """One (N, seed, γ) cell: the status, its true U(Λ), L_te, L_HO and Û of every estimator."""
    from buviz import sweep
    from buviz.classifiers import Discriminant
    from buviz.reproduce import _Shared

    gamma = 2.0 ** log2_gamma
    t0 = time.perf_counter()
    fitted = svm_status(ds.X_train, ds.y_train, gamma, C)
    # the estimators evaluate g on the same T̃ and test set: computed once per array (as buviz.reproduce does)
    d = Discriminant(_Shared(fitted), fitted.n_classes, name=fitted.name, estimator=fitted.estimator)
    row = {"log2_gamma": float(log2_gamma), "gamma": gamma, "C": C, "n_sv": int(len(fitted.estimator.support_)),
           "L_te": _error(d, ds.X_test, ds.y_test)}
    t1 = time.perf_counter()
    truth = true_boundary_uncertainty(fitted, ds.model, resolution=ORACLE_RESOLUTION, check=True)
    row.update(U_true=truth.value, U_true_accuracy=truth.accuracy, boundary_length=truth.boundary_length,
               boundary_mass=truth.boundary_mass, time_oracle=time.perf_counter() - t1)
    for key, (bu_tr, bu_te) in estimators.items():
        row[f"U_tr_{key}"] = bu_tr.evaluate(d).value
        row[f"U_te_{key}"] = bu_te.evaluate(d).value
    tr, va = sweep._holdout_split(ds.y_train, seed)
    row["L_ho"] = _error(svm_status(ds.X_train[tr], ds.y_train[tr], gamma, C), ds.X_train[va], ds.y_train[va])
    row["time_cell"] = time.perf_counter() - t0
    return row


def run(n_trains, Ms, seeds, work_dir: Path, n_jobs: int, log2_gammas=LOG2_GAMMAS, cv: bool = False) -> pd.DataFrame:
    from joblib import Parallel, delayed

    work_dir.mkdir(parents=True, exist_ok=True)
    rows = []
    for N in n_trains:
        for seed in seeds:
            path = work_dir / f"N{N}_seed{seed}.json"
            done = json.loads(path.read_text()) if path.exists() else {}
            need = [g for g in log2_gammas if str(g) not in done]
            if need:
                ds = datasets.load("gmm", n_train=N, n_test=N_TE, random_state=seed)
                paper = N == PAPER_N
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    est = {}
                    for M in Ms:
                        est[f"M{M}"] = _estimators(ds, M, seed, PERTURBATION)
                    if paper and PAPER_M in Ms:
                        tr, te = est[f"M{PAPER_M}"]
                        est[f"M{PAPER_M}_noT"] = (tr.with_perturbation(0.0), te.with_perturbation(0.0))

                    def one(g, ds=ds, seed=seed, est=est, paper=paper):
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            return g, cell(ds, seed, g, est, paper)

                    for g, row in Parallel(n_jobs=n_jobs, return_as="generator")(delayed(one)(g) for g in need):
                        done[str(g)] = row
                        path.write_text(json.dumps(done))
                        print(f"N={N} seed={seed} log2g={g}: U={row['U_true']:.3f} "
                              + " ".join(f"{k}={row[k]:.3f}" for k in row if k.startswith("U_tr_"))
                              + f" ({row['time_cell']:.0f} s)", flush=True)
            if cv and N == PAPER_N:
                need = [g for g in log2_gammas if "L_val" not in done[str(g)]]
                if need:
                    ds = datasets.load("gmm", n_train=N, n_test=N_TE, random_state=seed)
                    for g, row in Parallel(n_jobs=n_jobs, return_as="generator")(
                            delayed(lambda g, ds=ds, seed=seed: (g, _cv_errors(ds, seed, 2.0 ** g)))(g) for g in need):
                        done[str(g)].update(row)
                        path.write_text(json.dumps(done))
                        print(f"N={N} seed={seed} log2g={g}: L_val={row['L_val']:.3f}", flush=True)
            for g in log2_gammas:
                rows.append({"n_train": N, "n_test": N_TE, "seed": seed, **done[str(g)]})
    return pd.DataFrame(rows)


def long_table(wide: pd.DataFrame, Ms) -> pd.DataFrame:
    """One row per (N, seed, γ, M, with/without T̃): U_tr, U_te, U_true."""
    out = []
    keys = [f"M{M}" for M in Ms] + ([f"M{PAPER_M}_noT"] if f"U_tr_M{PAPER_M}_noT" in wide else [])
    for key in keys:
        sub = wide[wide[f"U_tr_{key}"].notna()] if f"U_tr_{key}" in wide else wide.iloc[:0]
        part = sub[["n_train", "n_test", "seed", "log2_gamma", "gamma", "C", "L_te", "U_true", "U_true_accuracy",
                    "boundary_length", "boundary_mass"]].copy()
        part["M"] = int(key[1:].split("_")[0])
        part["perturbation"] = 0.0 if key.endswith("noT") else PERTURBATION
        part["U_tr"], part["U_te"] = sub[f"U_tr_{key}"], sub[f"U_te_{key}"]
        out.append(part)
    return pd.concat(out, ignore_index=True)


#: A status is *near-optimal* when its L_te is within this of the seed's smallest L_te; the others are
#: *under-fitted* (smaller γ) or *over-fitted* (larger γ). Statuses without a boundary (one class
#: everywhere: U = Û = 0) are left out of :func:`by_region`.
NEAR_OPTIMAL = 0.02


def by_region(t: pd.DataFrame) -> pd.DataFrame:
    """Mean signed errors Û_tr − U and Û_te − U, and mean |Û_tr − Û_te|, per (N, M, a) and region of γ."""
    parts = []
    for _, s in t[t.boundary_length > 0].groupby(["n_train", "M", "perturbation", "seed"]):
        best = s.loc[s.L_te.idxmin()]
        near = s.L_te <= best.L_te + NEAR_OPTIMAL
        region = np.where(near, "near-optimal", np.where(s.log2_gamma < best.log2_gamma, "under-fitted", "over-fitted"))
        parts.append(s.assign(region=region))
    t = pd.concat(parts)
    g = t.assign(tr=t.U_tr - t.U_true, te=t.U_te - t.U_true, gap=(t.U_tr - t.U_te).abs()).groupby(
        ["n_train", "M", "perturbation", "region"])
    out = g.agg(statuses=("tr", "size"), **{"Û_tr − U": ("tr", "mean"), "Û_te − U": ("te", "mean"),
                                            "|Û_tr − Û_te|": ("gap", "mean")}).reset_index()
    return out.rename(columns={"n_train": "N", "perturbation": "a"})


def summary(t: pd.DataFrame) -> pd.DataFrame:
    """Per (N, M, a): how far Û_tr and Û_te are from each other and from U, over seeds and γ."""
    rows = []
    for (N, M, a), g in t.groupby(["n_train", "M", "perturbation"]):
        arg = []
        for _, s in g.groupby("seed"):
            s = s.sort_values("log2_gamma")
            lg = s["log2_gamma"].to_numpy()
            best = lg[np.argmax(s["U_true"].to_numpy())]
            arg.append((abs(lg[np.argmax(s["U_tr"].to_numpy())] - best),
                        abs(lg[np.argmax(s["U_te"].to_numpy())] - best),
                        abs(lg[np.argmin(s["L_te"].to_numpy())] - best)))
        arg = np.array(arg)
        rows.append({"N": N, "M": M, "a": a, "seeds": g["seed"].nunique(),
                     "|Utr-Ute|": (g.U_tr - g.U_te).abs().mean(),
                     "|Utr-U|": (g.U_tr - g.U_true).abs().mean(), "|Ute-U|": (g.U_te - g.U_true).abs().mean(),
                     "Utr-U": (g.U_tr - g.U_true).mean(), "Ute-U": (g.U_te - g.U_true).mean(),
                     "corr(Utr,U)": np.corrcoef(g.U_tr, g.U_true)[0, 1],
                     "corr(Ute,U)": np.corrcoef(g.U_te, g.U_true)[0, 1],
                     "argmax Utr-U": f"{' '.join(str(int(v)) for v in arg[:, 0])}",
                     "argmax Ute-U": f"{' '.join(str(int(v)) for v in arg[:, 1])}",
                     "argmin Lte-U": f"{' '.join(str(int(v)) for v in arg[:, 2])}"})
    return pd.DataFrame(rows)


def decompose(seeds, work_dir: Path, log2_gammas=tuple(range(-8, 11, 2)), M: int = PAPER_M) -> pd.DataFrame:
    """Split Û − U at N = 2 000 (two classes: Û = Σ k̂(x) Û(x) / Σ k̂(x) where w > 0) into

    - *posterior error*: Û − Û*, with Û* = Σ k̂(x) U*(x) / Σ k̂(x) and U*(x) = 1 − |2 P(C_i|x) − 1| the exact
      local uncertainty at the same samples x, with the same weights k̂(x) (eqs 27-29, 37);
    - *where it looks*: Û* − U, the samples near B(Λ) and their weights k̂ against B(Λ) itself with p ds.

    U is read from the cells of :func:`run` (run it first).
    """
    rows = []
    for seed in seeds:
        done = json.loads((work_dir / f"N{PAPER_N}_seed{seed}.json").read_text())
        ds = datasets.load("gmm", n_train=PAPER_N, n_test=N_TE, random_state=seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tr, te = _estimators(ds, M, seed, PERTURBATION)
            for g in log2_gammas:
                d = svm_status(ds.X_train, ds.y_train, 2.0 ** g, C)
                row = {"seed": seed, "log2_gamma": g, "U_true": done[str(g)]["U_true"]}
                for name, bu, X in (("tr", tr, ds.X_train), ("te", te, ds.X_test)):
                    r = bu.evaluate(d)
                    post = ds.model.posterior(X)[np.arange(len(X)), r.pair_i]
                    exact = 1.0 - np.abs(2.0 * post - 1.0)
                    w = np.asarray(r.k, dtype=float)
                    row[f"U_{name}"] = r.value
                    row[f"U_{name}_exactpost"] = float(np.sum(w * exact) / np.sum(w)) if w.sum() > 0 else np.nan
                rows.append(row)
                print(f"seed={seed} log2g={g}: U={row['U_true']:.3f} Û_tr={row['U_tr']:.3f} "
                      f"Û*_tr={row['U_tr_exactpost']:.3f} Û_te={row['U_te']:.3f} Û*_te={row['U_te_exactpost']:.3f}",
                      flush=True)
    return pd.DataFrame(rows)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n-train", type=int, nargs="*", default=[PAPER_N, 300])
    ap.add_argument("--M", type=int, nargs="*", default=[PAPER_M, 20])
    ap.add_argument("--seeds", type=int, nargs="*", default=[0, 1, 2])
    ap.add_argument("--work-dir", type=Path, default=ROOT / "benchmarks" / "results" / "goal_a_cells")
    ap.add_argument("--n-jobs", type=int, default=2)
    ap.add_argument("--log2-gammas", type=int, nargs="*", default=list(LOG2_GAMMAS))
    ap.add_argument("--cv", action="store_true", help=f"add 10-fold CV (L_tr, L_val) to the N = {PAPER_N} cells")
    ap.add_argument("--write-table", action="store_true", help=f"write {TABLE.name} from the N = {PAPER_N} rows")
    ap.add_argument("--decompose", action="store_true",
                    help="split Û − U into posterior error and where Û looks (N = 2 000, M = 40; after the run)")
    args = ap.parse_args(argv)
    if args.decompose:
        t = decompose(args.seeds, args.work_dir)
        t.to_csv(RESULTS.with_name("goal_a_decompose.csv"), index=False)
        print(t.groupby("log2_gamma").mean(numeric_only=True).drop(columns="seed").round(3).to_string())
        return
    wide = run(args.n_train, args.M, args.seeds, args.work_dir, args.n_jobs, args.log2_gammas, args.cv)
    t = long_table(wide, args.M)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    t.to_csv(RESULTS, index=False)
    pd.set_option("display.width", 200)
    print(summary(t).round(3).to_string(index=False))
    print(by_region(t).round(3).to_string(index=False))
    if args.write_table:
        paper = wide[wide.n_train == PAPER_N]
        cols = ["n_train", "n_test", "seed", "log2_gamma", "gamma", "C", "n_sv", "L_ho", "L_te",
                "U_true", "U_true_accuracy", "boundary_length", "boundary_mass"]
        out = paper[cols + [c for c in ("L_tr", "L_val") if c in paper]].copy()
        out.insert(0, "dataset", "gmm")
        out["M"], out["K"], out["separability"] = PAPER_M, "aic", PAPER_SEPARABILITY
        out["U_tr"], out["U_te"] = paper[f"U_tr_M{PAPER_M}"], paper[f"U_te_M{PAPER_M}"]
        out["U_tr_noT"], out["U_te_noT"] = paper[f"U_tr_M{PAPER_M}_noT"], paper[f"U_te_M{PAPER_M}_noT"]
        out.to_csv(TABLE, index=False, float_format="%.10g")
        print(f"wrote {TABLE} ({len(out)} rows)")


if __name__ == "__main__":
    main()
