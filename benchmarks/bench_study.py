"""Pre-registered study on the ten real datasets of Ha et al. (2021), Table 2: Û against CV and hold-out
for choosing the RBF SVC's γ.

    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/bench_study.py --half tuning
    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/bench_study.py --half confirmation
    python benchmarks/bench_study.py --report          # the tables of docs/model_selection.md
    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/bench_study.py --spikes   # eq 39's Case 1/3 rules on a step-1 γ grid
    OMP_NUM_THREADS=1 python benchmarks/bench_study.py --letter-cost   # Û's classifier cost on Letter, pair at x or x̃
    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/bench_study.py --round2 tuning  # second round: seeds 0-4 rescored
    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/bench_study.py --round2 confirmation  # second round: seeds 5-9
    python benchmarks/bench_study.py --round2 report
    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/bench_study.py --round2 cost   # Û vs CV10 CPU time, seed 5

The design (datasets of each half, configurations, criterion) is fixed in ``docs/model_selection.md``
("Pre-registered study") before any run. Per (dataset, classifier, seed): ``datasets.load(name,
n_train=min(1500, available), n_test=min(3000, available), random_state=seed)`` (70/30 stratified
split, Letter: the paper's 10 000 / 10 000; training part subsampled for the compute budget;
standardised on the training part), a grid of one hyper-parameter (SVC, C = 1: log₂ γ ∈ {−10, −8, …,
10}), and each method picks one candidate from the training set alone: argmax Û⁽³⁾ in 16
configurations (4 rules of eq 39 × 4 T̃-law / M settings), 10-fold and 5-fold stratified CV, one
stratified 75/25 hold-out split. **Regret** = test error of the pick (fitted on the training set) −
the smallest test error over the grid. **argmin distance** = |index of the pick − index of argmin
L_val| in grid steps (L_val: the 10-fold CV error; for SVC one step is 2 in log₂ γ). **Spike**: the
pick's test error is within 0.05 of the majority-class error while the grid's best is more than 0.05
below it. **Cost** (seconds, one thread): Û = its per-dataset fit + one classifier fit and one Û
evaluation per candidate; CV / hold-out = every fold's fits and predictions.

The four rules are computed from the same evaluation (:func:`buviz.uncertainty.proposal2.pair_uncertainty`
on the result's per-sample arrays), so they cost the same. Rows are appended to
``benchmarks/results/study.csv`` (one per cell × method) and the curves to ``study_curves.csv`` as each
cell finishes; cells already present are skipped, so an interrupted run resumes.

Reference: D. Ha, S. Katagiri, H. Watanabe, M. Ohsaki, "An Improved Boundary Uncertainty-Based
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
from sklearn.model_selection import StratifiedKFold, StratifiedShuffleSplit
from sklearn.neighbors import KNeighborsClassifier
from sklearn.svm import SVC

from buviz import datasets
from buviz.uncertainty import BoundaryUncertainty
from buviz.uncertainty.proposal2 import case3_error, pair_uncertainty

TUNING = ("winequality_red", "abalone", "banknote", "german", "satimage")
CONFIRMATION = ("winequality_white", "breast_cancer_wisconsin", "cardiotocography", "spambase", "letter")
CLASSIFIERS = {
    "svc": (SVC(C=1.0), "gamma", [2.0**e for e in range(-10, 11, 2)]),
    "knn": (KNeighborsClassifier(), "n_neighbors", [1, 3, 5, 9, 15, 25, 41, 65]),
    "forest": (RandomForestClassifier(n_estimators=50, random_state=0), "min_samples_leaf", [1, 2, 5, 10, 20, 40]),
}
#: T̃ law and M: (name, amplitude a, mode, M); the first is the current default.
SETTINGS = (("a0.5-features-M40", 0.5, "features", 40), ("a0.25-features-M40", 0.25, "features", 40),
            ("a0.5-scalar-M40", 0.5, "scalar", 40), ("a0.5-features-M20", 0.5, "features", 20))
#: Rules of eq 39: (name, rule, n0); the first is the current default.
RULES = (("threshold", "threshold", None), ("shrink10", "shrinkage", 10.0), ("shrink30", "shrinkage", 30.0),
         ("shrink100", "shrinkage", 100.0), ("graded10", "graded", 10.0), ("graded30", "graded", 30.0),
         ("graded100", "graded", 100.0))
DEFAULT_CONFIG = f"{SETTINGS[0][0]}/{RULES[0][0]}"
N_TRAIN, N_TEST = 1500, 3000
KEY = ["dataset", "classifier", "seed"]


def load(name: str, seed: int, *, full: bool = False):
    """The split of one cell: at most N_TRAIN training and N_TEST test points.

    ``full=True``: the whole split at the paper's sizes (the 70/30 stratified split of the set, Letter
    its 10 000 / 10 000), nothing subsampled; standardised on the training part.
    """
    if full:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return datasets.load(name, random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # constant columns (cardiotocography) are left unscaled
        full = datasets.load(name, random_state=seed, standardize=False)
        n_tr, n_te = min(N_TRAIN, len(full.y_train)), min(N_TEST, len(full.y_test))
        return datasets.load(name, n_train=None if n_tr == len(full.y_train) else n_tr,
                             n_test=None if n_te == len(full.y_test) else n_te, random_state=seed)


def _fit(est, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return clone(est).fit(X, y)


def _cv_error(est, param: str, grid, X, y, splitter) -> np.ndarray:
    """The validation error of every candidate, averaged over the splits of ``splitter``."""
    err = np.zeros(len(grid))
    splits = list(splitter.split(X, y))
    for tr, va in splits:
        for n, v in enumerate(grid):
            m = _fit(est.set_params(**{param: v}), X[tr], y[tr])
            err[n] += np.mean(m.predict(X[va]) != y[va]) / len(splits)
    return err


def rule_values(res, e3: np.ndarray, weight_tol: float) -> dict:
    """Û of one evaluation under every rule of :data:`RULES`, from the result's per-sample arrays (so
    whatever rule the estimator itself was built with)."""
    out = {}
    for rname, rule, n0 in RULES:
        pv = pair_uncertainty(res.k, res.local_uncertainty, res.pair_match, res.true_pair_index,
                              res.pair_error_tilde, len(res.pairs), rule=rule, weight_tol=weight_tol,
                              n0=30.0 if n0 is None else n0, case3_error=e3)
        out[rname] = float(np.dot(res.pair_probabilities, pv.values))
    return out


def run_cell(name: str, clf: str, seed: int, *, settings=SETTINGS, cv: bool = True, full: bool = False):
    """Return (rows, curves) of one (dataset, classifier, seed) cell.

    ``settings``: the T̃ law / M settings of Û to run; ``cv=False`` skips CV and hold-out (the second
    round's rescoring of the first round's cells: Û under today's code, test errors refitted);
    ``full``: the split at the paper's sizes (:func:`load`).
    """
    ds = load(name, seed, full=full)
    Xtr, ytr, Xte, yte = ds.X_train, ds.y_train, ds.X_test, ds.y_test
    est, param, grid = CLASSIFIERS[clf]
    majority = 1.0 - np.bincount(yte).max() / len(yte)
    fits, fit_time, test_err = [], [], []
    for v in grid:
        t0 = time.perf_counter()
        model = _fit(est.set_params(**{param: v}), Xtr, ytr)
        fit_time.append(time.perf_counter() - t0)
        fits.append(model)
        test_err.append(float(np.mean(model.predict(Xte) != yte)))
    test_err = np.array(test_err)
    curves = {"L_te": test_err}
    costs, choices = {}, {}
    for method, splitter in (("CV10", StratifiedKFold(10, shuffle=True, random_state=seed)),
                             ("CV5", StratifiedKFold(5, shuffle=True, random_state=seed)),
                             ("HO", StratifiedShuffleSplit(1, test_size=0.25, random_state=seed))):
        if not cv:
            break
        t0 = time.perf_counter()
        err = _cv_error(est, param, grid, Xtr, ytr, splitter)
        costs[method] = time.perf_counter() - t0
        choices[method] = int(np.argmin(err))
        curves[f"L_{method}"] = err
    for sname, a, mode, M in settings:
        t0 = time.perf_counter()
        bu = BoundaryUncertainty(M=M, perturbation=a, perturbation_mode=mode, n_jobs=1,
                                 random_state=seed).fit(Xtr, ytr)
        t_eval = time.perf_counter() - t0
        e3 = case3_error(bu.true_pairs_.pair_index, bu.y_, len(bu.true_pairs_.pairs))
        values = {r: [] for r, _, _ in RULES}
        for model in fits:
            t1 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = bu.evaluate(model)
            t_eval += time.perf_counter() - t1
            for rname, v in rule_values(res, e3, bu.weight_tol).items():
                values[rname].append(v)
            if sname == SETTINGS[0][0]:
                curves.setdefault("n_eff_min", []).append(float(np.min(res.pair_effective_size)))
        for rname, _, _ in RULES:
            config = f"{sname}/{rname}"
            costs[config] = t_eval + sum(fit_time)
            choices[config] = int(np.argmax(values[rname]))
            curves[f"U[{config}]"] = np.array(values[rname])
    best = float(test_err.min())
    ref = choices.get("CV10")
    rows = []
    for method, c in choices.items():
        rows.append(dict(dataset=name, classifier=clf, seed=seed, half="tuning" if name in TUNING else "confirmation",
                         method=method if method in ("CV10", "CV5", "HO") else "U",
                         config=method if method not in ("CV10", "CV5", "HO") else "",
                         choice=grid[c], choice_index=c, test_error=float(test_err[c]), best_test_error=best,
                         regret=float(test_err[c] - best), argmin_steps=np.nan if ref is None else abs(c - ref),
                         majority_error=majority, K_range=str(BoundaryUncertainty().K_range),
                         spike=bool(test_err[c] >= majority - 0.05 and best < majority - 0.05),
                         cost_s=costs[method], n_train=len(ytr), n_test=len(yte), n_classes=ds.n_classes))
    curve_rows = pd.DataFrame({"dataset": name, "classifier": clf, "seed": seed, "param": param, "value": grid,
                               **curves})
    return pd.DataFrame(rows), curve_rows


def _append(df: pd.DataFrame, path: str) -> None:
    df.to_csv(path, mode="a", header=not os.path.exists(path), index=False)


def run(names, classifiers, seeds, out: str, **cell) -> None:
    done = set()
    if os.path.exists(out):
        done = set(map(tuple, pd.read_csv(out)[KEY].drop_duplicates().itertuples(index=False)))
    curves_out = out.replace(".csv", "_curves.csv")
    for clf in classifiers:
        for seed in seeds:
            for name in names:
                if (name, clf, seed) in done:
                    continue
                t0 = time.perf_counter()
                rows, curves = run_cell(name, clf, seed, **cell)
                _append(rows, out)
                _append(curves, curves_out)
                u = rows[rows.config == DEFAULT_CONFIG].iloc[0]
                cv10 = rows[rows.method == "CV10"].regret
                print(f"{name:24s} {clf:6s} seed {seed}: regret U(default) {u.regret:.3f}, "
                      f"CV10 {cv10.iloc[0] if len(cv10) else float('nan'):.3f} ({time.perf_counter() - t0:.0f} s)",
                      flush=True)


def report(out: str, classifiers=None) -> None:
    """Print the tables of docs/model_selection.md: per classifier, then the verdict pooled over them."""
    df = pd.read_csv(out).fillna({"config": ""})
    for clf in classifiers or df.classifier.unique():
        print(f"\n# {clf}")
        _report(df[df.classifier == clf])
    if classifiers is None and len(df.classifier.unique()) > 1:
        print("\n# pooled over classifiers")
        _verdict(df)
    spikes = out.replace(".csv", "_spikes.csv")
    if classifiers is None and os.path.exists(spikes):
        sp = pd.read_csv(spikes)
        print("\n# spike check (SVC, log2 γ step 1)\n")
        summary = sp.groupby("rule").agg(regret=("regret", "mean"), cells=("seed", "size"),
                                         near_chance_above_best=("near_chance_above_best", "sum"))
        print(summary.round(4).to_markdown())
        print(sp.pivot_table(index="dataset", columns="rule", values="regret").round(4).to_markdown())


def _report(df: pd.DataFrame) -> None:
    df = df.assign(label=np.where(df.method == "U", "U " + df.config, df.method))
    for half in ("tuning", "confirmation"):
        d = df[df.half == half]
        if d.empty:
            continue
        print(f"\n## {half} half ({d.groupby(KEY).ngroups} cells)\n")
        summary = d.groupby("label").agg(regret=("regret", "mean"), argmin_steps=("argmin_steps", "mean"),
                                         spikes=("spike", "sum"), cost_s=("cost_s", "sum"), cells=("seed", "size"))
        print(summary.sort_values("regret").round(4).to_markdown())
        print()
        print(_per_dataset(d).to_markdown(index=False))
    _verdict(df)


def _per_dataset(d: pd.DataFrame) -> pd.DataFrame:
    """Per dataset, mean over seeds: argmin distance |Δ| (SVC: log₂ units, else grid steps), regrets, cost."""
    shrink = f"{SETTINGS[0][0]}/shrink10"
    step = 2 if (d.classifier == "svc").all() else 1
    rows = []
    for ds, g in d.groupby("dataset", sort=True):
        def r(label, col="regret", g=g):
            return g[g.label == label][col].mean()
        rows.append({"dataset": ds, "seeds": g.seed.nunique(),
                     "|Δ| U thr": step * r("U " + DEFAULT_CONFIG, "argmin_steps"),
                     "|Δ| U shr10": step * r("U " + shrink, "argmin_steps"),
                     "regret U thr": r("U " + DEFAULT_CONFIG), "U shr10": r("U " + shrink),
                     "CV5": r("CV5"), "CV10": r("CV10"), "HO": r("HO"),
                     "cost U": r("U " + DEFAULT_CONFIG, "cost_s"), "cost CV5": r("CV5", "cost_s"),
                     "cost CV10": r("CV10", "cost_s"), "cost HO": r("HO", "cost_s")})
    t = pd.DataFrame(rows)
    t = pd.concat([t, pd.DataFrame([{"dataset": "**mean**", **t.drop(columns="seeds").mean(numeric_only=True)}])])
    return t.round({c: 1 if c.startswith(("|Δ|", "cost")) else 4 for c in t.columns if c not in ("dataset", "seeds")})


def _verdict(df: pd.DataFrame) -> None:
    tune = df[(df.half == "tuning") & (df.method == "U")]
    conf = df[(df.half == "confirmation") & (df.method == "U")]
    if len(tune) and len(conf):
        s = tune.groupby("config").agg(regret=("regret", "mean"), steps=("argmin_steps", "mean"))
        tuned = s.sort_values(["regret", "steps"]).index[0]
        c = conf.groupby("config").agg(regret=("regret", "mean"), spikes=("spike", "sum"))
        print(f"\ntuned on the tuning half: {tuned} (regret {s.regret[tuned]:.4f}; default "
              f"{DEFAULT_CONFIG} {s.regret[DEFAULT_CONFIG]:.4f})")
        wins = c.regret[tuned] < c.regret[DEFAULT_CONFIG] and c.spikes[tuned] <= c.spikes[DEFAULT_CONFIG]
        print(f"confirmation half: tuned {c.regret[tuned]:.4f} ({c.spikes[tuned]} spikes), default "
              f"{c.regret[DEFAULT_CONFIG]:.4f} ({c.spikes[DEFAULT_CONFIG]} spikes) -> "
              f"{'change the default' if wins else 'keep the default'}")


ROUND2_TUNING_SEEDS, ROUND2_CONFIRMATION_SEEDS = range(0, 5), range(5, 10)
ROUND2_TUNING_OUT = "benchmarks/results/study_round2_tuning.csv"
ROUND2_OUT = "benchmarks/results/study_round2.csv"
ROUND2_FULL_OUT = "benchmarks/results/study_round2_full.csv"


def run_round2(phase: str, seeds=None, datasets_=None, out: str | None = None) -> None:
    """The second pre-registered round (docs/model_selection.md): Û's Case 1/3 rules, SVC, all ten sets.

    Tuning: the first round's cells (seeds 0-4) rescored with today's code (Û only, default T̃ law and
    M). Confirmation: fresh seeds 5-9, Û with every rule plus 10-fold, 5-fold CV and hold-out. Full:
    the confirmation half again at the paper's sizes (nothing subsampled; ``seeds``, ``datasets_`` and
    ``out`` split the run over processes, whose files ``--round2 report-full`` reads together).
    """
    names = TUNING + CONFIRMATION
    if phase == "full":
        run(datasets_ or names, ["svc"], seeds or ROUND2_CONFIRMATION_SEEDS, out or ROUND2_FULL_OUT,
            settings=SETTINGS[:1], full=True)
    elif phase == "tuning":
        run(names, ["svc"], ROUND2_TUNING_SEEDS, ROUND2_TUNING_OUT, settings=SETTINGS[:1], cv=False)
    else:
        run(names, ["svc"], ROUND2_CONFIRMATION_SEEDS, ROUND2_OUT, settings=SETTINGS[:1])


def cost_round2(seeds=(5,)) -> None:
    """Û's and 10-fold CV's cost on confirmation cells, timed one after the other in one process.

    Û = its fit + the 11 SVC fits + 11 evaluations (default configuration), as in the study; CV10 =
    every fold's fits and predictions. Run after the SVC is read through
    :func:`buviz.classifiers.svc_decision_function`; the study's own cost columns predate it.
    """
    rows = []
    for seed in seeds:
        for name in TUNING + CONFIRMATION:
            ds = load(name, seed)
            Xtr, ytr = ds.X_train, ds.y_train
            est, param, grid = CLASSIFIERS["svc"]
            c0 = time.process_time()
            fits = [_fit(est.set_params(**{param: v}), Xtr, ytr) for v in grid]
            bu = BoundaryUncertainty(M=40, n_jobs=1, random_state=seed).fit(Xtr, ytr)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                values = [bu.evaluate(m).value for m in fits]
            cost_u = time.process_time() - c0
            c0 = time.process_time()
            _cv_error(est, param, grid, Xtr, ytr, StratifiedKFold(10, shuffle=True, random_state=seed))
            cost_cv = time.process_time() - c0
            rows.append({"dataset": name, "seed": seed, "cost_U": cost_u, "cost_CV10": cost_cv,
                         "argmax_U": int(np.argmax(values))})
            print(f"{name:24s} seed {seed}: U {cost_u:.1f} s, CV10 {cost_cv:.1f} s", flush=True)
    t = pd.DataFrame(rows)
    print(t.round(2).to_markdown(index=False))
    print(f"total: U {t.cost_U.sum():.1f} s, CV10 {t.cost_CV10.sum():.1f} s, CV10 / U = "
          f"{t.cost_CV10.sum() / t.cost_U.sum():.2f}")


def report_round2() -> None:
    """The second round's tables and its pre-registered verdict."""
    tune = pd.read_csv(ROUND2_TUNING_OUT).fillna({"config": ""})
    tune = tune[tune.method == "U"]
    s = tune.groupby("config").agg(regret=("regret", "mean"), spikes=("spike", "sum"), cells=("seed", "size"))
    print(f"\n## tuning: the first round's cells rescored ({tune.groupby(KEY).ngroups} cells)\n")
    print(s.sort_values("regret").round(4).to_markdown())
    order = [f"{SETTINGS[0][0]}/{r}" for r, _, _ in RULES]  # ties: the earlier (simpler) rule
    tuned = min(order, key=lambda c: (round(s.regret[c], 10), order.index(c)))
    if not os.path.exists(ROUND2_OUT):
        return None
    conf = pd.read_csv(ROUND2_OUT).fillna({"config": ""})
    conf = conf.assign(label=np.where(conf.method == "U", "U " + conf.config, conf.method))
    c = conf.groupby("label").agg(regret=("regret", "mean"), argmin_steps=("argmin_steps", "mean"),
                                  spikes=("spike", "sum"), cost_s=("cost_s", "sum"), cells=("seed", "size"))
    print(f"\n## confirmation: seeds 5-9 ({conf.groupby(KEY).ngroups} cells)\n")
    print(c.sort_values("regret").round(4).to_markdown())
    for label, d in (("all ten sets", conf), ("without letter", conf[conf.dataset != "letter"])):
        r = d.groupby("label").regret.mean()
        print(f"{label}: threshold {r['U ' + DEFAULT_CONFIG]:.4f}, tuned {r['U ' + tuned]:.4f}, "
              f"CV10 {r['CV10']:.4f}, CV5 {r['CV5']:.4f}, HO {r['HO']:.4f}")
    print()
    print(_per_dataset(conf).to_markdown(index=False))
    ct, cd = c.loc["U " + tuned], c.loc["U " + DEFAULT_CONFIG]
    wins = tuned != DEFAULT_CONFIG and ct.regret < cd.regret and ct.spikes <= cd.spikes
    print(f"\ntuned on the first round: {tuned} (regret {s.regret[tuned]:.4f}; threshold "
          f"{s.regret[DEFAULT_CONFIG]:.4f})\nconfirmation: tuned {ct.regret:.4f} ({ct.spikes} spikes), "
          f"threshold {cd.regret:.4f} ({cd.spikes} spikes) -> {'change the default' if wins else 'keep the default'}")
    print(f"cost: CV10 / U = {c.cost_s['CV10'] / cd.cost_s:.2f}, CV5 / U = {c.cost_s['CV5'] / cd.cost_s:.2f}")


def report_round2_full() -> None:
    """The confirmation half at the paper's sizes beside the same half at N ≤ 1 500.

    Reads every ``study_round2_full*.csv`` (a run split over processes writes one file each). Per
    dataset, mean over seeds: regret of Û under the paper's rule (threshold, eq 39 as printed) and the
    default rule (shrinkage, n0 = 10), of 10-fold, 5-fold CV and hold-out, the cost (seconds) and the
    training size.
    """
    import glob
    files = [f for f in glob.glob(ROUND2_FULL_OUT.replace(".csv", "*.csv")) if not f.endswith("_curves.csv")]
    full = pd.concat([pd.read_csv(f) for f in sorted(files)]).fillna({"config": ""})
    # a cell computed twice (a rerun into another file) counts once: the last file's rows
    full = full.drop_duplicates(KEY + ["method", "config"], keep="last")
    small = pd.read_csv(ROUND2_OUT).fillna({"config": ""})
    thr, shr = f"U {DEFAULT_CONFIG}", f"U {SETTINGS[0][0]}/shrink10"
    cols = {thr: "U paper rule", shr: "U default rule", "CV10": "CV10", "CV5": "CV5", "HO": "HO"}

    def table(df: pd.DataFrame, what: str, agg: str = "mean") -> pd.DataFrame:
        df = df.assign(label=np.where(df.method == "U", "U " + df.config, df.method))
        df = df[df.label.isin(list(cols))]
        t = df.pivot_table(index="dataset", columns="label", values=what, aggfunc=agg)[list(cols)].astype(float)
        t = t.rename(columns=cols)
        t.loc["**mean**"] = t.mean()
        if what == "regret":
            t.loc["mean without letter"] = t.drop(index=["letter", "**mean**"], errors="ignore").mean()
        return t

    print(f"\n## confirmation at the paper's sizes ({full.groupby(KEY).ngroups} cells, seeds "
          f"{sorted(int(x) for x in full.seed.unique())})\n")
    t = table(full, "regret")
    n = full.groupby("dataset").agg(n_train=("n_train", "first"), n_test=("n_test", "first"),
                                    seeds=("seed", "nunique"))
    print(t.join(n).round(4).to_markdown())
    print("\nspikes (cells):", table(full, "spike", "sum").drop(index=["**mean**"]).sum().astype(int).to_dict())
    print("\n## cost per cell (seconds, mean over seeds; U = its fit + 11 SVC fits + 11 evaluations)\n")
    print(table(full, "cost_s").drop(columns=["U default rule"]).round(1).to_markdown())
    c = table(full, "cost_s").loc["**mean**"]
    print(f"CV10 / U = {c['CV10'] / c['U paper rule']:.2f}, CV5 / U = {c['CV5'] / c['U paper rule']:.2f}")
    print("\n## the same half at N <= 1 500 (study_round2.csv)\n")
    print(table(small, "regret").round(4).to_markdown())
    both = full.assign(label=np.where(full.method == "U", "U " + full.config, full.method))
    for label in (thr, shr):
        d = both[both.label == label].set_index(["dataset", "seed"]).argmin_steps
        print(f"{cols[label]}: argmax of U equals L_val's (10-fold CV) argmin in {int((d == 0).sum())} of "
              f"{len(d)} cells, within one step (2 in log2 γ) in {int((d <= 1).sum())}")


def spike_cell(name: str, seed: int) -> pd.DataFrame:
    """Spike check on a log₂ γ step of 1 (−10 … 10): does a rule of eq 39's Case 1/3 branch rank a
    near-chance status above the best one?

    Default T̃ law and M; the rules are applied to the same evaluations. Near-chance: test error within
    0.05 of the majority-class error; best: the smallest test error of the grid.
    """
    ds = load(name, seed)
    majority = 1.0 - np.bincount(ds.y_test).max() / len(ds.y_test)
    bu = BoundaryUncertainty(M=40, n_jobs=1, random_state=seed).fit(ds.X_train, ds.y_train)
    e3 = case3_error(bu.true_pairs_.pair_index, bu.y_, len(bu.true_pairs_.pairs))
    grid = [2.0**e for e in range(-10, 11)]
    test_err, u = [], {r: [] for r, _, _ in RULES}
    for g in grid:
        model = _fit(SVC(C=1.0, gamma=g), ds.X_train, ds.y_train)
        test_err.append(float(np.mean(model.predict(ds.X_test) != ds.y_test)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = bu.evaluate(model)
        for rname, v in rule_values(res, e3, bu.weight_tol).items():
            u[rname].append(v)
    test_err = np.array(test_err)
    best, chance = int(np.argmin(test_err)), test_err >= majority - 0.05
    rows = []
    for rname, _, _ in RULES:
        v = np.array(u[rname])
        c = int(np.argmax(v))
        rows.append(dict(dataset=name, seed=seed, rule=rname, choice_log2=int(np.log2(grid[c])),
                         regret=float(test_err[c] - test_err[best]), majority_error=majority,
                         best_test_error=float(test_err[best]), U_best=float(v[best]),
                         U_max_near_chance=float(v[chance].max()) if chance.any() else np.nan,
                         near_chance_above_best=bool(chance.any() and v[chance].max() > v[best] and not chance[best])))
    return pd.DataFrame(rows)


def letter_cost(seed: int = 0) -> None:
    """Û's evaluation cost against its SVC fits on Letter, with eq 36's pair at x and at x̃."""
    ds = datasets.load("letter", random_state=seed)
    grid = [2.0**e for e in (-6, -4, -2, 0)]
    fits, t_fit = [], 0.0
    for g in grid:
        t0 = time.perf_counter()
        fits.append(_fit(SVC(C=1.0, gamma=g), ds.X_train, ds.y_train))
        t_fit += time.perf_counter() - t0
    print(f"letter N={len(ds.y_train)}, {len(grid)} SVC fits: {t_fit:.1f} s")
    for pair_at in ("x", "x_tilde"):
        bu = BoundaryUncertainty(M=40, n_jobs=1, pair_at=pair_at, random_state=seed).fit(ds.X_train, ds.y_train)
        t_eval = t_clf = 0.0
        vals = []
        for m in fits:
            r = bu.evaluate(m)
            t_eval += r.evaluate_time
            t_clf += r.classifier_time
            vals.append(r.value)
        print(f"pair_at={pair_at!r}: Û fit {bu.fit_time_:.1f} s, evaluations {t_eval:.1f} s (classifier {t_clf:.1f} s),"
              f" evaluations/fits = {t_eval / t_fit:.2f}; Û = {np.round(vals, 4).tolist()}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--half", choices=("tuning", "confirmation", "both"), default="both")
    ap.add_argument("--classifiers", nargs="+", default=None, choices=list(CLASSIFIERS),
                    help="default: svc for a run, every classifier in the CSV for --report")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--datasets", nargs="+", default=None, help="restrict to these datasets (checks)")
    ap.add_argument("--out", default="benchmarks/results/study.csv")
    ap.add_argument("--report", action="store_true")
    ap.add_argument("--letter-cost", action="store_true")
    ap.add_argument("--spikes", action="store_true", help="Case 1/3 rules on a log2 step-1 γ grid (SVC)")
    ap.add_argument("--round2", choices=("tuning", "confirmation", "report", "cost", "full", "report-full"),
                    default=None, help="the second pre-registered round (docs/model_selection.md)")
    ap.add_argument("--seed-list", type=int, nargs="+", default=None, help="--round2 full: these seeds only")
    args = ap.parse_args()
    if args.round2:
        if args.round2 == "cost":
            return cost_round2()
        if args.round2 == "full":
            out = None if args.out == ap.get_default("out") else args.out
            return run_round2("full", args.seed_list, args.datasets, out)
        if args.round2 == "report-full":
            return report_round2_full()
        return report_round2() if args.round2 == "report" else run_round2(args.round2)
    if args.report:
        return report(args.out, args.classifiers)
    if args.letter_cost:
        return letter_cost()
    names = {"tuning": TUNING, "confirmation": CONFIRMATION, "both": TUNING + CONFIRMATION}[args.half]
    if args.datasets:
        names = [n for n in names if n in args.datasets]
    if args.spikes:
        out = args.out.replace(".csv", "_spikes.csv")
        done = set(map(tuple, pd.read_csv(out)[["dataset", "seed"]].itertuples(index=False))) \
            if os.path.exists(out) else set()
        for seed in range(args.seeds):
            for name in names:
                if (name, seed) not in done:
                    rows = spike_cell(name, seed)
                    _append(rows, out)
                    print(rows[["dataset", "seed", "rule", "choice_log2", "regret", "near_chance_above_best"]]
                          .to_string(index=False, header=False), flush=True)
        return None
    run(names, args.classifiers or ["svc"], range(args.seeds), args.out)


if __name__ == "__main__":
    main()
