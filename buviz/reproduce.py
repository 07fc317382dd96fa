"""The real-data experiments of Ha et al. (2021) at the paper's settings, computed once and shipped as tables.

D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based Estimation for
Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021,
https://doi.org/10.1007/s11265-021-01671-1 (§6.2-§6.4, Figs 7-9 and 11-13, Table 3), on the ten UCI
datasets of its Table 2 (:data:`buviz.datasets.UCI_NAMES`).

The settings (module constants; every row of a table repeats them):

- **Data** (§6.2-6.3): for the nine UCI sets other than Letter Recognition the whole set is the
  training set T (the paper's Table 2 N; there is no test set, so L_te and Û_te are empty); Letter
  Recognition uses the paper's split, the first 10 000 rows for training and the other 10 000 for
  testing. Features are standardised on T. Fig 12's GMM set is sampled with :data:`GMM_SIZES`.
- **Classifier** (§6.1): RBF SVC (scikit-learn's ``SVC``, the paper's footnote 5). The paper
  "preliminarily selected the regularization coefficient using CV" without saying how; here C is
  chosen per dataset, before the γ sweep, by 10-fold stratified CV (folds seeded with
  :data:`C_SEED`) over :data:`C_GRID` at γ = 1/d (scikit-learn's ``gamma="scale"`` on standardised
  features), the smallest validation error winning (ties to the smaller C). The choice is recorded
  in the ``C`` and ``C_rule`` columns.
- **γ** (§6.1): log₂ γ from −15 to 15 in steps of 1 (:data:`LOG2_GAMMAS`), untrimmed.
- **CV and hold-out** (§6.4.1): 10-fold stratified CV for L_tr and L_val (the paper's range is
  10 to 40 folds); one stratified 75/25 split for L_HO.
- **Û** (§6.3): M = 40, K per class chosen by AIC over the paper's 1, 3, ..., 39
  (:data:`~buviz.uncertainty.PAPER_K_RANGE`), eq 39 as printed
  (:data:`~buviz.uncertainty.proposal2.PAPER_SEPARABILITY`: "w_kl = 0" read literally, with
  :data:`~buviz.uncertainty.proposal2.ZERO_WEIGHT` as the numerical zero) in the ``U_tr`` and
  ``U_te`` columns, T̃ with amplitude 0.5 (Algorithm 1; 0 is "without T̃", Figs 7 and 11). Without
  T̃ reuses the K-means prototypes Î* of the fit with T̃. The same evaluation read under buviz's
  tolerance (ω_kl < 0.05, :data:`~buviz.uncertainty.proposal2.TOLERANCE_SEPARABILITY`) fills
  ``U_tr_threshold`` and ``U_te_threshold`` (:data:`EXTRA_READINGS`); :func:`reading_column` finds
  a reading's column in any table.
- **Seeds** (:data:`SEEDS`): each seed draws T̃, the K-means of Î*, the CV folds and the hold-out
  split; the data and C are the same for every seed.
- **MLP of Fig 9** (§6.1): 128-64 ReLU, softmax cross-entropy, RMSProp (the paper used Keras,
  footnote 6): trained with PyTorch on the CPU (:func:`buviz.classifiers.rmsprop_mlp_statuses`) with
  Keras's RMSProp defaults (learning rate 10⁻³, ρ = 0.9, ε = 10⁻⁷) and mini-batches of 128 (the paper
  does not give its batch size; Keras's default of 32 costs four times more steps), read off at
  :data:`MLP_EPOCHS`; when PyTorch is not installed, scikit-learn's Adam MLP is used instead and the
  ``optimizer`` column says so.
- **Table 3**: operations counted while Proposal 1 and Proposal 2 evaluate one SVC status
  (log₂ γ = :data:`TABLE3_LOG2_GAMMA`, the dataset's C) on the whole training set.

The computation is split into *cells*: one per (dataset, seed, γ) for the SVC sweeps, holding the
10-fold CV, the hold-out and the SVC trained on T, evaluated by every Û variant the tables need
(with and without T̃, the M of Fig 12, the K of Fig 13) -- CV does not depend on them, so it is done
once; the classifier's discriminants on T, T̃ and the test set are computed once per cell and shared
by the variants. Proposal 1 (Fig 8), the MLP (Fig 9) and Table 3 have cells of their own. Cells run
in parallel (joblib's processes, or a Dask cluster with ``scheduler``), each written to disk as soon
as it is done, so an interrupted run resumes where it stopped::

    buviz reproduce --all --seeds 0 1 2 --work-dir ~/buviz-cells --out-dir tables/

This module computes and reads tables; it never imports plotting libraries. The MLP is trained by
:func:`buviz.classifiers.rmsprop_mlp_statuses`; where the tables' curves reach their minima (the
verdicts) is read by :mod:`buviz.verdicts` (:func:`minima`, :func:`seed_mean` and :func:`seeds_of` are
re-exported here; :func:`svm_minima` applies its ``sweep_minima`` to the shipped tables).
"""

from __future__ import annotations

import functools
import os
import time
import warnings
from collections.abc import Callable, Iterable, Sequence
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd

import buviz
from buviz._reproduce_cells import (  # re-exported: the rule, the cells on disk, the cells' helpers
    EXTRA_READINGS,
    SEPARABILITY,
    SETTINGS,
    TableSpec,
    _cell_path,
    _done,
    _error,
    _fold_error,
    _mlp_backend,
    _read_cell,
    _readings,
    _run_jobs,
    _Shared,
    _val_error,
    _write,
    default_work_dir,
    reading_values,
    tables_dir,
    write_readings,
)
from buviz._reproduce_variants import fit_estimators, run_variant_cells, shipped_C, variant_rows, variant_specs
from buviz._validation import InvalidParameterError
from buviz.uncertainty.prototypes import PAPER_K_RANGE
from buviz.verdicts import READINGS, minima, reading_column, seed_mean, seeds_of, sweep_minima

__all__ = ["LOG2_GAMMAS", "CV", "HOLDOUT", "M", "SEEDS", "C_GRID", "C_SEED", "PERTURBATION", "P1_DATASETS",
           "MULTICLASS_DATASETS", "FIG12_MS", "FIG12_DATASETS", "FIG13_KS", "MLP_EPOCHS", "MLP_HIDDEN",
           "SETTINGS", "TABLES", "FIGURE_TABLES", "TableSpec", "table_names", "tables_dir", "load_table",
           "load_dataset", "choose_C", "sweep_cell", "minima", "svm_minima", "seed_mean", "seeds_of", "has_table",
           "compute", "reproduce", "assemble", "default_work_dir", "VALUE_COLUMNS", "UCI_ORDER", "EXTRA_READINGS",
           "READINGS", "reading_column", "add_readings"]

#: log₂ γ of the RBF SVC statuses (the paper: 2⁻¹⁵, 2⁻¹⁴, ..., 2¹⁵).
LOG2_GAMMAS = tuple(range(-15, 16))
#: Folds of stratified cross-validation (L_tr, L_val); the paper: 10 to 40.
CV = 10
#: Share of T held out for L_HO (the paper's 75/25 split).
HOLDOUT = 0.25
#: Proposal 2's neighbourhood size (the paper's, §6.3).
M = 40
#: The seeds of T̃, K-means, CV folds and the hold-out split of the shipped tables.
SEEDS = (0, 1, 2)
#: The C tried by the preliminary 10-fold CV (powers of 2, as the paper's γ grid).
C_GRID = (0.25, 1.0, 4.0, 16.0, 64.0)
#: The seed of the folds of C's selection (one C per dataset, shared by all seeds).
C_SEED = 0
#: Amplitude of T̃ (0: "without T̃", Figs 7 and 11).
PERTURBATION = 0.5
#: The sets on which Fig 8 also shows Proposal 1.
P1_DATASETS = ("cardiotocography", "spambase", "winequality_red", "winequality_white")
#: The multi-class sets of Fig 13.
MULTICLASS_DATASETS = ("satimage", "winequality_white", "abalone", "letter")
#: Cluster sizes of Fig 12 and its two datasets.
FIG12_MS = (20, 40, 80, 120, 160)
FIG12_DATASETS = ("gmm", "winequality_white")
#: Prototypes per class of Fig 13 ("aic": chosen by AIC).
FIG13_KS = (3, 10, 20, 40, "aic")
#: Epochs read off the MLP of Fig 9, its layers and its training (Keras's RMSProp defaults, batch 128).
MLP_EPOCHS = (1, 2, 5, 10, 20, 50, 100, 200)
MLP_HIDDEN = (128, 64)
MLP_LEARNING_RATE, MLP_RHO, MLP_EPS, MLP_BATCH = 1e-3, 0.9, 1e-7, 128
#: The datasets of Table 3 (Landsat is the Statlog satimage set).
TABLE3_DATASETS = {"abalone": "Abalone", "cardiotocography": "Cardiotocography", "letter": "Letter Recognition",
                   "satimage": "Landsat", "spambase": "Spambase"}
#: log₂ γ of the SVC status whose Proposal 1 and 2 runs are counted in Table 3.
TABLE3_LOG2_GAMMA = 0.0
#: Sizes of the 2-D mixture of Fig 12 (the paper: 2 000 training samples), sampled with seed 0.
GMM_SIZES = (2000, 2000)
#: The K tried per class by AIC for Î* (the paper's 1, 3, ..., 39, §6.3).
K_RANGE = PAPER_K_RANGE
K_RANGE_NAME = "paper"
#: Result columns compared when a table is recomputed (times are not).
VALUE_COLUMNS = ("L_tr", "L_val", "L_ho", "L_te", "U_tr", "U_te", "U1_tr", "G_add", "G_mul", "G_comp", "G_CL",
                 *(f"U_{s}_{r}" for r in EXTRA_READINGS for s in ("tr", "te")))


def UCI_ORDER() -> tuple[str, ...]:  # noqa: N802 - kept callable so that it reads like the other orders
    """The ten UCI sets, cheapest first: the order in which a recompute fills the tables."""
    return ("breast_cancer_wisconsin", "banknote", "german", "winequality_red", "cardiotocography", "abalone",
            "winequality_white", "spambase", "satimage", "letter")


# -- data --------------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=16)
def load_dataset(name: str):
    """The dataset ``name`` as the paper uses it (see the module docstring).

    Parameters
    ----------
    name : str
        A name of :data:`buviz.datasets.UCI_NAMES`, or ``"gmm"``.

    Returns
    -------
    buviz.datasets.Dataset
        Letter Recognition: the paper's 10 000 / 10 000 split; GMM: :data:`GMM_SIZES` drawn with seed
        0; the other sets: the whole set as training set, no test set.

    Raises
    ------
    InvalidParameterError
        An unknown name.
    """
    from buviz import datasets

    if name == "gmm":
        return datasets.load(name, n_train=GMM_SIZES[0], n_test=GMM_SIZES[1], random_state=0)
    if name not in datasets.UCI_NAMES:
        raise InvalidParameterError(f"name must be one of {datasets.UCI_NAMES} or 'gmm', got {name!r}")
    if name == "letter":
        return datasets.load(name)
    X, y, columns = datasets._read_uci(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", datasets.ConstantFeatureWarning)
        return datasets.from_arrays(X, y, test_size=0, name=name, feature_names=list(columns),
                                    description=f"{name}: the whole set as training set (Ha et al. 2021, Table 2)")


def _figure_variants(name: str, column: str) -> dict[str, dict]:
    """The Û variants of ``name``'s Fig 12 (``column`` "M") or Fig 13 ("K") table (a K above the smallest class
    is left out)."""
    return variant_specs(column, FIG12_MS if column == "M" else FIG13_KS, M, PERTURBATION, load_dataset(name).y_train)


def _variants(name: str) -> dict[str, dict]:
    """The Û variants of a dataset's sweep cells: key -> BoundaryUncertainty keywords (and whether Û_te is read)."""
    out = {"base": dict(M=M, K="aic", perturbation=PERTURBATION, te=True),
           "noT": dict(M=M, K="aic", perturbation=0.0, te=True)}
    for column, names in (("M", FIG12_DATASETS), ("K", MULTICLASS_DATASETS)):
        out.update({k: v for k, v in _figure_variants(name, column).items() if k != "base" and name in names})
    return out


def _fit_variants(name: str, seed: int, keys: Iterable[str] | None = None,
                  variants: dict[str, dict] | None = None) -> dict[str, tuple]:
    """Û's estimators of every variant of ``name`` (or of ``keys``; of ``variants`` instead of the sweep cells'),
    fitted on T (and on the test set where it is read): :func:`buviz._reproduce_variants.fit_estimators`."""
    return fit_estimators(load_dataset(name), seed, variants or _variants(name), M=M, K_range=K_RANGE, keys=keys)


# -- C, chosen before the sweep ---------------------------------------------------------------------
def choose_C(name: str, *, n_jobs: int = 2, scheduler=None) -> dict:
    """The C of ``name``'s sweeps: 10-fold stratified CV over :data:`C_GRID` at γ = 1/d.

    Parameters
    ----------
    name : str
        A dataset of :func:`load_dataset`.
    n_jobs : int, default=2
        joblib workers.
    scheduler : str or distributed.Client, optional
        A Dask scheduler (see :func:`buviz.sweep.svm_gamma_sweep`).

    Returns
    -------
    dict
        ``C``, ``C_rule`` (the rule in words) and ``C_val`` (the validation error of each C).
    """
    from joblib import delayed

    from buviz import sweep

    ds = load_dataset(name)
    X, y = ds.X_train, ds.y_train
    gamma = 1.0 / X.shape[1]
    folds = sweep._splits(y, CV, C_SEED)
    tasks = [delayed(_val_error)(X, y, tr, va, gamma, C) for C in C_GRID for tr, va in folds]
    out = [None] * len(tasks)
    with sweep._backend(scheduler):
        for t, res in sweep._run_tasks(tasks, n_jobs, {}):
            out[t] = res
    val = np.asarray(out).reshape(len(C_GRID), CV).mean(axis=1)
    best = int(np.argmin(val))
    rule = (f"{CV}-fold stratified CV (seed {C_SEED}) at gamma=1/d={gamma:.4g} over C in "
            f"{{{', '.join(f'{c:g}' for c in C_GRID)}}}: min L_val {val[best]:.4f}")
    return {"C": float(C_GRID[best]), "C_rule": rule, "C_val": [float(v) for v in val]}


# -- the cells --------------------------------------------------------------------------------------
def sweep_cell(name: str, seed: int, log2_gamma: float, C: float, estimators: dict[str, tuple]) -> dict:
    """One (dataset, seed, γ) cell of the SVC sweeps: CV, hold-out, L_te and Û of every variant.

    Parameters
    ----------
    name : str
        A dataset of :func:`load_dataset`.
    seed : int
        Seed of the CV folds and the hold-out split (the estimators carry T̃'s and K-means').
    log2_gamma : float
        log₂ γ of the status.
    C : float
        The SVC's C.
    estimators : dict
        Variant key -> (Û fitted on T, Û fitted on the test set or None), from the variants of ``name``.

    Returns
    -------
    dict
        ``common`` (the errors and times shared by the variants) and ``variants`` (key -> Û values).
    """
    from buviz import sweep
    from buviz.classifiers import svm_status

    ds = load_dataset(name)
    X, y = ds.X_train, ds.y_train
    gamma = 2.0 ** float(log2_gamma)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        folds = [_fold_error(X, y, tr, va, gamma, C) for tr, va in sweep._splits(y, CV, seed)]
        t_cv = time.perf_counter() - t0
        tr, va = sweep._holdout_split(y, seed)
        t1 = time.perf_counter()
        l_ho = _fold_error(X, y, tr, va, gamma, C)[1]
        t_ho = time.perf_counter() - t1
        t1 = time.perf_counter()
        disc = svm_status(X, y, gamma, C)
        t_fit = time.perf_counter() - t1
        shared = _Shared(disc)
        from buviz.classifiers import Discriminant

        status = Discriminant(shared, disc.n_classes, name=disc.name)
        variants = {}
        for key, (bu_tr, bu_te) in estimators.items():
            r = bu_tr._evaluate(status, copy_discriminant=False)
            v = {"U_tr": r.value, "n_eff_tr": float(np.dot(r.pair_probabilities, r.pair_effective_size)),
                 "time_u_tr": r.evaluate_time, "time_u_fit": bu_tr.fit_time_}
            r_te = bu_te._evaluate(status, copy_discriminant=False) if bu_te is not None else None
            v["U_te"] = r_te.value if r_te is not None else float("nan")
            extra_te = _readings(r_te) if r_te is not None else {}
            for rule, u in _readings(r).items():
                v[f"U_tr_{rule}"], v[f"U_te_{rule}"] = u, extra_te.get(rule, float("nan"))
            variants[key] = v
    common = {"log2_gamma": float(log2_gamma), "gamma": gamma, "C": C,
              "L_tr": float(np.mean([f[0] for f in folds])), "L_val": float(np.mean([f[1] for f in folds])),
              "L_ho": l_ho, "L_te": sweep.evaluate_on_test_set(status, ds.X_test, ds.y_test).L_te, "time_cv": t_cv,
              "time_ho": t_ho, "time_fit": t_fit, "time_cell": time.perf_counter() - t0}
    return {"common": common, "variants": variants, "separability": SEPARABILITY}


def _p1_cell(name: str, seed: int, log2_gamma: float, C: float, p1) -> dict:
    """Proposal 1's Û on T of one status (Fig 8)."""
    from buviz.classifiers import svm_status

    ds = load_dataset(name)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        disc = svm_status(ds.X_train, ds.y_train, 2.0 ** float(log2_gamma), C)
        value = p1.evaluate(disc).value
    return {"log2_gamma": float(log2_gamma), "U1_tr": value, "time_u1_tr": time.perf_counter() - t0}


def _mlp_statuses(X, y, n_classes: int, seed: int):
    from buviz.classifiers import mlp_statuses, rmsprop_mlp_statuses

    if _mlp_backend() == "torch-rmsprop":
        return rmsprop_mlp_statuses(X, y, MLP_EPOCHS, n_classes=n_classes, hidden_layer_sizes=MLP_HIDDEN,
                                    learning_rate=MLP_LEARNING_RATE, rho=MLP_RHO, eps=MLP_EPS,
                                    batch_size=MLP_BATCH, random_state=seed)

    return mlp_statuses(X, y, MLP_EPOCHS, hidden_layer_sizes=MLP_HIDDEN, random_state=seed)


def _mlp_cell(name: str, seed: int, part: str, estimators: dict[str, tuple] | None) -> dict:
    """One network of Fig 9: ``part`` is "full" (trained on T; L_te and Û), "ho" or a fold number."""
    from buviz import sweep

    ds = load_dataset(name)
    X, y = ds.X_train, ds.y_train
    t0 = time.perf_counter()
    if part == "full":
        tr, va = np.arange(len(y)), np.arange(0)
    elif part == "ho":
        tr, va = sweep._holdout_split(y, seed)
    else:
        tr, va = sweep._splits(y, CV, seed)[int(part)]
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for e, d in _mlp_statuses(X[tr], y[tr], ds.n_classes, seed):
            row = {"epoch": e, "err_tr": _error(d, X[tr], y[tr]), "err_va": _error(d, X[va], y[va])}
            if part == "full":
                row["L_te"] = sweep.evaluate_on_test_set(d, ds.X_test, ds.y_test).L_te
                for key, (bu_tr, bu_te) in (estimators or {}).items():
                    r = bu_tr._evaluate(d, copy_discriminant=False)
                    r_te = bu_te._evaluate(d, copy_discriminant=False) if bu_te is not None else None
                    row[f"U_tr:{key}"] = r.value
                    row[f"U_te:{key}"] = r_te.value if r_te is not None else float("nan")
                    extra_te = _readings(r_te) if r_te is not None else {}
                    for rule, u in _readings(r).items():
                        row[f"U_tr_{rule}:{key}"], row[f"U_te_{rule}:{key}"] = u, extra_te.get(rule, float("nan"))
            rows.append(row)
    return {"part": part, "rows": rows, "time": time.perf_counter() - t0, "separability": SEPARABILITY}


def _table3_cell(name: str, seed: int, C: float) -> dict:
    """Table 3: operations counted while Proposal 1 and Proposal 2 evaluate one SVC status on T."""
    from buviz.classifiers import svm_status
    from buviz.uncertainty import BoundaryUncertainty, Proposal1, costs

    ds = load_dataset(name)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        disc = svm_status(ds.X_train, ds.y_train, 2.0 ** TABLE3_LOG2_GAMMA, C)
        p1 = Proposal1(R_T=10, i_max=20, random_state=seed).fit(ds.X_train, ds.y_train).evaluate(disc)
        p2 = BoundaryUncertainty(M=M, K_range=K_RANGE, separability=SEPARABILITY, random_state=seed,
                                 n_jobs=1).fit(ds.X_train, ds.y_train).evaluate(disc)
    counted = costs.gains(costs.proposal1_costs(p1), costs.proposal2_costs(p2, mode="counted"))["gain"]
    N, d, J = ds.X_train.shape[0], ds.X_train.shape[1], ds.n_classes
    formula = costs.gains(costs.proposal1_costs(N=N, d=d, J=J), costs.proposal2_costs(N=N, M=M, J=J))["gain"]
    paper_name = TABLE3_DATASETS[name]
    row = {"R_T": 10, "i_max": 20, "log2_gamma": TABLE3_LOG2_GAMMA, "paper_dataset": paper_name,
           "paper_N": costs.TABLE2[paper_name][0], "d": d}
    for op, p in zip(("add", "mul", "comp", "CL"), costs.TABLE3_PRINTED[paper_name], strict=True):
        row[f"G_{op}"] = float(counted[op])
        row[f"formula_G_{op}"] = float(formula[op])
        row[f"printed_G_{op}"] = p
    row["U1"], row["U2"], row["time_cell"] = p1.value, p2.value, time.perf_counter() - t0
    row["separability"] = SEPARABILITY
    return row


# -- the cells on disk ------------------------------------------------------------------------------
def _C(name: str, work_dir: Path, n_jobs: int, scheduler, log) -> dict:
    path = _cell_path(work_dir, "C", name, None)
    if (got := _read_cell(path)) is None:
        t0 = time.perf_counter()
        got = choose_C(name, n_jobs=n_jobs, scheduler=scheduler)
        got["time"] = time.perf_counter() - t0
        _write(path, got)
        log(f"{name}: C = {got['C']:g} ({got['C_rule']}) in {got['time']:.0f} s")
    return got


def _run_sweep(name, seed, work_dir, n_jobs, scheduler, log) -> None:
    # the largest γ first: there nearly every training point is a support vector and a cell costs the most
    # (Letter Recognition: an SVC fit of 17 s at log₂ γ = 9 against 1 s at −10), so the cheap cells fill the
    # last minutes and no core waits idle on one long cell at the end (longest job first)
    paths = [_cell_path(work_dir, "sweep", name, seed, lg) for lg in LOG2_GAMMAS]
    if all(_done(p) for p in paths):
        return
    C = _C(name, work_dir, n_jobs, scheduler, log)["C"]
    t0 = time.perf_counter()
    est = _fit_variants(name, seed)
    log(f"{name} seed {seed}: {len(est)} Û variants fitted in {time.perf_counter() - t0:.0f} s")
    jobs = [(p, sweep_cell, (name, seed, lg, C, est)) for p, lg in zip(paths, LOG2_GAMMAS, strict=True)]
    _run_jobs(jobs[::-1], n_jobs=n_jobs, scheduler=scheduler, log=log, label=f"{name} seed {seed} sweep")
    log(f"{name} seed {seed}: sweep done in {time.perf_counter() - t0:.0f} s")


def _run_p1(name, seed, work_dir, n_jobs, scheduler, log) -> None:
    from buviz.uncertainty import Proposal1

    paths = [_cell_path(work_dir, "p1", name, seed, lg) for lg in LOG2_GAMMAS]
    if all(_done(p) for p in paths):
        return
    C = _C(name, work_dir, n_jobs, scheduler, log)["C"]
    ds = load_dataset(name)
    p1 = Proposal1(random_state=seed).fit(ds.X_train, ds.y_train)
    jobs = [(p, _p1_cell, (name, seed, lg, C, p1)) for p, lg in zip(paths, LOG2_GAMMAS, strict=True)]
    _run_jobs(jobs, n_jobs=n_jobs, scheduler=scheduler, log=log, label=f"{name} seed {seed} Proposal 1")


def _mlp_parts() -> list[str]:
    return ["full", "ho", *map(str, range(CV))]


def _run_mlp(name, seed, work_dir, n_jobs, scheduler, log) -> None:
    paths = [_cell_path(work_dir, "mlp", name, seed, part) for part in _mlp_parts()]
    if all(_done(p) for p in paths):
        return
    est = {"base": _fit_variants(name, seed)["base"]} if not _done(paths[0]) else None
    jobs = [(p, _mlp_cell, (name, seed, part, est if part == "full" else None))
            for p, part in zip(paths, _mlp_parts(), strict=True)]
    _run_jobs(jobs, n_jobs=n_jobs, scheduler=scheduler, log=log, label=f"{name} seed {seed} MLP")


def _run_table3(names, seed, work_dir, n_jobs, scheduler, log) -> None:
    jobs = [(_cell_path(work_dir, "table3", n, seed), _table3_cell,
             (n, seed, _C(n, work_dir, n_jobs, scheduler, log)["C"])) for n in names]
    _run_jobs(jobs, n_jobs=n_jobs, scheduler=scheduler, log=log, label=f"Table 3 seed {seed}")


# -- the tables -------------------------------------------------------------------------------------
def _settings(name: str, seed: int, work_dir: Path, *, c_from_shipped: bool = False, **extra) -> dict:
    ds = load_dataset(name)
    # a table whose cells need no C (the MLP's) still records the set's C; an SVC table without its C cell
    # says so (NaN) rather than guess
    c = _read_cell(_cell_path(work_dir, "C", name, None)) or (shipped_C(name) if c_from_shipped else None)
    c = c or {"C": float("nan"), "C_rule": ""}
    return {"dataset": name, "n_train": len(ds.y_train), "n_test": len(ds.y_test), "n_classes": ds.n_classes,
            "cv": CV, "holdout": HOLDOUT, "C": c["C"], "C_rule": c["C_rule"], **extra, "K_range": K_RANGE_NAME,
            "separability": SEPARABILITY, "seed": seed, "settings": SETTINGS, "buviz_version": buviz.__version__}


def _sweep_rows(name: str, seed: int, work_dir: Path, keys: Iterable[str], column: str | None) -> list[dict] | None:
    """Rows of the complete sweep of (name, seed) for the variants ``keys``, or None when a cell is missing."""
    cells = [_read_cell(_cell_path(work_dir, "sweep", name, seed, lg)) for lg in LOG2_GAMMAS]
    if any(c is None for c in cells):
        return None
    variants = _variants(name)
    p1 = {lg: _read_cell(_cell_path(work_dir, "p1", name, seed, lg)) for lg in LOG2_GAMMAS}
    rows = []
    for key in keys:
        v = variants[key]
        for lg, cell in zip(LOG2_GAMMAS, cells, strict=True):
            K = "aic" if v["K"] == "aic" else int(v["K"])
            row = _settings(name, seed, work_dir, M=v["M"], K=K, perturbation=v["perturbation"])
            row.update({"variant": key, "status": "gamma", **{k: x for k, x in cell["common"].items() if k != "C"}})
            row.update(cell["variants"][key])
            if column is None:  # svm_gamma: Proposal 1 on the rows with T̃
                got = p1[lg] if key == "base" and name in P1_DATASETS else None
                row["U1_tr"] = got["U1_tr"] if got else float("nan")
                row["time_u1_tr"] = got["time_u1_tr"] if got else float("nan")
            rows.append(row)
    return rows


def _svm_gamma(name, seeds, work_dir) -> list[dict]:
    return [r for s in seeds for r in (_sweep_rows(name, s, work_dir, ("base", "noT"), None) or [])]


def _u_by(column: str):
    """The rows of ``u_by_M`` (``column`` "M") or ``u_by_K``: from the sweep cells where they hold the variants,
    else from the variant cells (:mod:`buviz._reproduce_variants`)."""
    def rows(name, seeds, work_dir) -> list[dict]:
        if name not in _IN_SWEEP[column]:
            return variant_rows(name, seeds, work_dir, _figure_variants(name, column), LOG2_GAMMAS, _settings)
        keys = [k for k in _variants(name) if k == "base" or k.startswith(column)]
        return [r for s in seeds for r in (_sweep_rows(name, s, work_dir, keys, column) or [])]
    return rows


def _mlp_epoch(name, seeds, work_dir) -> list[dict]:
    rows = []
    for s in seeds:
        cells = {p: _read_cell(_cell_path(work_dir, "mlp", name, s, p)) for p in _mlp_parts()}
        if any(c is None for c in cells.values()):
            continue
        folds = [cells[str(f)]["rows"] for f in range(CV)]
        for n, e in enumerate(MLP_EPOCHS):
            full = cells["full"]["rows"][n]
            rows.append({**_settings(name, s, work_dir, c_from_shipped=True, M=M, K="aic", perturbation=PERTURBATION,
                                     hidden_layer_sizes=str(MLP_HIDDEN), optimizer=_mlp_backend(),
                                     batch_size=MLP_BATCH, learning_rate=MLP_LEARNING_RATE),
                         "status": "epoch", "epoch": e,
                         "L_tr": float(np.mean([f[n]["err_tr"] for f in folds])),
                         "L_val": float(np.mean([f[n]["err_va"] for f in folds])),
                         "L_ho": cells["ho"]["rows"][n]["err_va"], "L_te": full["L_te"],
                         "U_tr": full["U_tr:base"], "U_te": full["U_te:base"],
                         **{f"U_{s}_{r}": full.get(f"U_{s}_{r}:base", float("nan"))
                            for r in EXTRA_READINGS for s in ("tr", "te")},
                         "time_fit": cells["full"]["time"],
                         "time_cv": float(sum(cells[str(f)]["time"] for f in range(CV))),
                         "time_ho": cells["ho"]["time"]})
    return rows


def _table3(name, seeds, work_dir) -> list[dict]:
    out = []
    for s in seeds:
        if (cell := _read_cell(_cell_path(work_dir, "table3", name, s))) is not None:
            out.append({**_settings(name, s, work_dir, M=M), **cell})
    return out


#: The shipped tables, by name.
TABLES: dict[str, TableSpec] = {
    "svm_gamma": TableSpec("svm_gamma", ("sweep", "p1"), _svm_gamma, UCI_ORDER(),
                           "γ sweep with and without T̃, Proposal 1 on four sets (Figs 7, 8, 11)"),
    "mlp_epoch": TableSpec("mlp_epoch", ("mlp",), _mlp_epoch, ("letter",), "MLP by epoch (Fig 9)"),
    "u_by_M": TableSpec("u_by_M", ("sweep", "uvar"), _u_by("M"), ("gmm", *UCI_ORDER()), "γ sweep for each M (Fig 12)"),
    "u_by_K": TableSpec("u_by_K", ("sweep", "uvar"), _u_by("K"), UCI_ORDER(), "γ sweep for each K (Fig 13)"),
    "table3": TableSpec("table3", ("table3",), _table3, tuple(TABLE3_DATASETS), "counted operations (Table 3)"),
}

#: The tables (and datasets) each real-data figure renders from.
FIGURE_TABLES: dict[str, tuple[str, tuple[str, ...]]] = {
    "uncertainty_fig7": ("svm_gamma", ("letter",)),
    "uncertainty_fig8": ("svm_gamma", UCI_ORDER()),
    "uncertainty_fig9": ("mlp_epoch", ("letter",)),
    "uncertainty_fig11": ("svm_gamma", UCI_ORDER()),
    "uncertainty_fig12": ("u_by_M", ("gmm", *UCI_ORDER())),
    "uncertainty_fig13": ("u_by_K", UCI_ORDER()),
    "uncertainty_table3": ("table3", tuple(TABLE3_DATASETS)),
}


def table_names() -> list[str]:
    """The file stems of every shipped table (``svm_gamma_letter``, ...)."""
    return [f"{s.name}_{d}" for s in TABLES.values() for d in s.datasets]


def _check(table: str, dataset: str) -> TableSpec:
    if table not in TABLES:
        raise InvalidParameterError(f"table must be one of {sorted(TABLES)}, got {table!r}")
    spec = TABLES[table]
    if dataset not in spec.datasets:
        raise InvalidParameterError(f"dataset must be one of {spec.datasets} for table {table!r}, got {dataset!r}")
    return spec


def has_table(table: str, dataset: str, directory: str | os.PathLike | None = None) -> bool:
    """Whether the table of ``dataset`` is shipped (or present in ``directory``).

    Parameters
    ----------
    table : str
        A key of :data:`TABLES`.
    dataset : str
        One of the table's datasets.
    directory : str or path-like, optional
        Look there instead of the package's ``data/tables``.

    Returns
    -------
    bool
        True when the table's CSV file exists.

    Raises
    ------
    InvalidParameterError
        Unknown table or dataset.
    """
    _check(table, dataset)
    root = tables_dir() if directory is None else Path(directory)
    return (root / f"{table}_{dataset}.csv").is_file()


def load_table(table: str, dataset: str, directory: str | os.PathLike | None = None) -> pd.DataFrame:
    """Read a shipped table.

    Parameters
    ----------
    table : str
        A key of :data:`TABLES`.
    dataset : str
        One of the table's datasets.
    directory : path, optional
        Read from there instead of the package's ``data/tables``.

    Returns
    -------
    pandas.DataFrame
        One row per seed, status and variant, the settings in the first columns.

    Raises
    ------
    InvalidParameterError
        Unknown table or dataset.
    FileNotFoundError
        If the table was not computed (see :func:`reproduce`).
    """
    _check(table, dataset)
    root = tables_dir() if directory is None else Path(directory)
    path = root / f"{table}_{dataset}.csv"
    if not path.is_file():
        raise FileNotFoundError(f"table {table}_{dataset} is not shipped; compute it with "
                                f"`buviz reproduce --table {table} --recompute` (see `buviz reproduce --list`)")
    with resources.as_file(path) as real:  # the file itself, or a temporary copy out of a zipped install
        return _read(str(real), real.stat().st_mtime_ns).copy()


@functools.lru_cache(maxsize=64)
def _read(path: str, mtime_ns: int) -> pd.DataFrame:
    """A table file read once per process (and again when it changes)."""
    return pd.read_csv(path)


_RUNNERS = {"sweep": _run_sweep, "p1": _run_p1, "mlp": _run_mlp}
#: The sets whose sweep cells hold the variants of u_by_M and u_by_K (the others' come from variant cells).
_IN_SWEEP = {"M": FIG12_DATASETS, "K": MULTICLASS_DATASETS}


def _compute_cells(table: str, names: Sequence[str], seeds: Sequence[int], work_dir: Path, n_jobs: int,
                   scheduler, log, kinds: Sequence[str] | None = None) -> None:
    spec = TABLES[table]
    for kind in spec.kinds:
        if kinds is not None and kind not in kinds:
            continue
        if kind == "uvar":
            _run_uvar([(table, names)], seeds, work_dir, n_jobs, scheduler, log)
            continue
        for seed in seeds:
            if kind == "table3":
                _run_table3(names, seed, work_dir, n_jobs, scheduler, log)
                continue
            for name in names:
                if (kind == "p1" and name not in P1_DATASETS) or (
                        kind == "sweep" and table.startswith("u_by") and name not in _IN_SWEEP[table[-1]]):
                    continue  # u_by_M, u_by_K: only the sets whose sweep cells hold the variants
                _RUNNERS[kind](name, seed, work_dir, n_jobs, scheduler, log)


def _run_uvar(plan: Sequence[tuple[str, Sequence[str]]], seeds: Sequence[int], work_dir: Path, n_jobs: int,
              scheduler, log) -> None:
    """The variant cells of the ``u_by_M`` / ``u_by_K`` tables in ``plan``, one pass per dataset (all seeds,
    and the union of Fig 12's and Fig 13's variants: one SVC per γ serves both)."""
    specs: dict[str, dict[str, dict]] = {}
    for table, name in ((t, n) for t, names in plan if "uvar" in TABLES[t].kinds for n in names):
        if name not in _IN_SWEEP[table[-1]]:
            specs.setdefault(name, {}).update(_figure_variants(name, table[-1]))
    for name, union in specs.items():
        run_variant_cells(name, seeds, union, work_dir, LOG2_GAMMAS, fit=_fit_variants, load_dataset=load_dataset,
                          choose_C=lambda n=name: _C(n, work_dir, n_jobs, scheduler, log), log=log, n_jobs=n_jobs,
                          scheduler=scheduler)


def compute(table: str, dataset: str, *, seeds: Sequence[int] = SEEDS, work_dir=None, n_jobs: int = 2,
            scheduler=None, log: Callable[[str], None] = print) -> pd.DataFrame:
    """Compute the table of ``dataset`` at the module's settings (cells on disk are reused).

    Parameters
    ----------
    table : str
        A key of :data:`TABLES`.
    dataset : str
        One of its datasets.
    seeds : sequence of int, default=SEEDS
        The seeds of T̃, K-means, CV folds and hold-out split.
    work_dir : path, optional
        Where cells are kept (default :func:`default_work_dir`).
    n_jobs : int, default=2
        Parallel cells.
    scheduler : str or distributed.Client, optional
        Run the cells on a Dask cluster.
    log : callable
        Receives a line per finished cell.

    Returns
    -------
    pandas.DataFrame
    """
    _check(table, dataset)
    work_dir = Path(work_dir) if work_dir is not None else default_work_dir()
    _compute_cells(table, [dataset], seeds, work_dir, n_jobs, scheduler, log)
    return pd.DataFrame(TABLES[table].assemble(dataset, seeds, work_dir))


def assemble(directory, *, work_dir=None, seeds: Sequence[int] = SEEDS,
             tables: Iterable[str] | None = None, datasets: Iterable[str] | None = None) -> list[Path]:
    """Write every table whose cells are on disk for at least one seed (only the complete seeds).

    Parameters
    ----------
    directory : path
        Where to write the CSV files.
    work_dir : path, optional
        The cells (default :func:`default_work_dir`).
    seeds : sequence of int, default=SEEDS
        The seeds to gather.
    tables : iterable of str, optional
        Keys of :data:`TABLES` (default all).
    datasets : iterable of str, optional
        Only these datasets' tables (default every dataset of each table).

    Returns
    -------
    list of pathlib.Path
        The files written.
    """
    work_dir = Path(work_dir) if work_dir is not None else default_work_dir()
    root = Path(os.fspath(directory))
    root.mkdir(parents=True, exist_ok=True)
    written = []
    keep = None if datasets is None else set(datasets)
    for key in tables or TABLES:
        spec = TABLES[key]
        for name in spec.datasets:
            if keep is not None and name not in keep:
                continue
            rows = spec.assemble(name, seeds, work_dir)
            if not rows:
                continue
            path = root / f"{key}_{name}.csv"
            tmp = path.with_suffix(".tmp")
            pd.DataFrame(rows).to_csv(tmp, index=False)
            os.replace(tmp, path)
            written.append(path)
    return written


def reproduce(figure: str | None = None, *, table: str | None = None, all_tables: bool = False,
              datasets: Sequence[str] | None = None,
              seeds: Sequence[int] = SEEDS, recompute: bool = False, directory=None, work_dir=None,
              n_jobs: int = 2, scheduler=None, kinds: Sequence[str] | None = None,
              log: Callable[[str], None] = print) -> list[Path]:
    """Compute the cells of a figure, a table or all tables (resuming from those on disk) and write the tables.

    Parameters
    ----------
    figure : str, optional
        A key of :data:`FIGURE_TABLES` (``uncertainty_fig8``, ...).
    table : str, optional
        A key of :data:`TABLES` instead (all its datasets).
    all_tables : bool, default=False
        Every table (give neither ``figure`` nor ``table``): the sweeps of every seed first, then the
        MLP, Table 3 and Proposal 1.
    datasets : sequence of str, optional
        Only the cells and tables of these datasets (of the figure's, table's or all tables'
        datasets; default all of them). With ``seeds`` this selects cells: e.g. ``table="svm_gamma",
        datasets=["banknote"], seeds=[0]`` computes Banknote's 31 cells of seed 0 and writes
        ``svm_gamma_banknote.csv`` with that seed's rows.
    seeds : sequence of int, default=SEEDS
        Seeds of T̃, K-means, CV folds and hold-out split.
    recompute : bool, default=False
        Compute even when the tables are present in ``directory`` (cells on disk are still reused;
        delete ``work_dir`` to redo them).
    directory : path, optional
        Where to write the tables; default the package's ``data/tables`` (a source checkout).
    work_dir : path, optional
        Where the cells are kept (default :func:`default_work_dir`).
    n_jobs : int, default=2
        Cells run in parallel.
    scheduler : str or distributed.Client, optional
        A Dask scheduler address or client: the cells run on its workers.
    kinds : sequence of str, optional
        Only these kinds of cells (``sweep``, ``p1``, ``mlp``, ``table3``).
    log : callable
        Receives one line per finished cell (with the elapsed time) and per table written.

    Returns
    -------
    list of pathlib.Path
        The files written.
    """
    if sum(x is not None for x in (figure, table)) + bool(all_tables) != 1:
        raise InvalidParameterError("give exactly one of figure, table or all_tables")
    if figure is not None:
        if figure not in FIGURE_TABLES:
            raise InvalidParameterError(f"figure must be one of {sorted(FIGURE_TABLES)}, got {figure!r}")
        plan = [FIGURE_TABLES[figure]]
    elif table is not None:
        if table not in TABLES:
            raise InvalidParameterError(f"table must be one of {sorted(TABLES)}, got {table!r}")
        plan = [(table, TABLES[table].datasets)]
    else:
        plan = [(t, s.datasets) for t, s in TABLES.items()]
    if datasets is not None:
        datasets = list(datasets)
        known = sorted({n for _, names in plan for n in names})
        unknown = [n for n in datasets if n not in known]
        if unknown or not datasets:
            raise InvalidParameterError(f"datasets must be among {known} here, got {unknown or datasets!r}")
        plan = [(t, kept) for t, names in plan if (kept := tuple(n for n in names if n in datasets))]
    seeds = [int(s) for s in seeds]
    root = Path(os.fspath(directory)) if directory is not None else Path(str(tables_dir()))
    work_dir = Path(work_dir) if work_dir is not None else default_work_dir()
    if not recompute and all(has_table(t, n, root) for t, names in plan for n in names):
        log("all tables present (--recompute to redo them)")
        return []
    t0 = time.perf_counter()
    order = ("sweep", "uvar", "mlp", "table3", "p1")
    for kind in order:  # the cheap and central cells first, for every table, then the next kind
        if kind == "uvar":  # one pass per set over all the variant tables of the plan
            _run_uvar(plan if kinds is None or kind in kinds else [], seeds, work_dir, n_jobs, scheduler, log)
            continue
        for t, names in plan:
            if kind in TABLES[t].kinds and (kinds is None or kind in kinds):
                _compute_cells(t, names, seeds, work_dir, n_jobs, scheduler, log, kinds=[kind])
    written = assemble(root, work_dir=work_dir, seeds=seeds, tables=dict.fromkeys(t for t, _ in plan),
                       datasets=None if datasets is None else {n for _, names in plan for n in names})
    for p in written:
        log(f"wrote {p}")
    log(f"done in {time.perf_counter() - t0:.0f} s")
    return written


#: The tables whose rows are (seed, variant, γ) sweeps that :func:`add_readings` can complete.
_SWEEP_TABLES = ("svm_gamma", "u_by_M", "u_by_K")


def add_readings(name: str, *, tables: Sequence[str] = _SWEEP_TABLES, directory=None, out_dir=None,
                 n_jobs: int = 1, log: Callable[[str], None] = print) -> dict[str, float]:
    """Complete ``name``'s sweep tables with the readings of eq 39 they lack, recomputing Û only.

    Û does not depend on the CV folds: for each γ the SVC is trained once on T (it does not depend on
    the seed) and every seed's variants are fitted as :func:`sweep_cell`'s, so this costs the fits and
    Û's evaluations, not the 10-fold CV (about 80 % of a cell). Each table gains ``U_tr_<rule>`` and
    ``U_te_<rule>`` for every rule of :data:`READINGS` its ``U_tr`` is not; the rule it holds is
    recomputed too, as a check.

    Parameters
    ----------
    name : str
        A dataset of the tables.
    tables : sequence of str
        Which of ``svm_gamma``, ``u_by_M``, ``u_by_K`` (those not computed for ``name`` are skipped).
    directory : path, optional
        Read the tables from there (default the package's ``data/tables``).
    out_dir : path, optional
        Write the completed tables there (default ``directory``).
    n_jobs : int, default=1
        γ computed in parallel (joblib processes).
    log : callable
        Receives a line per γ and per table written.

    Returns
    -------
    dict
        Table name -> the largest ∣Û recomputed − Û shipped∣ of the rule the table held (the check).
    """
    from joblib import Parallel, delayed

    root = Path(os.fspath(directory)) if directory is not None else Path(str(tables_dir()))
    out_root = Path(os.fspath(out_dir)) if out_dir is not None else root
    present = {t: load_table(t, name, root) for t in tables
               if t in _SWEEP_TABLES and name in TABLES[t].datasets and has_table(t, name, root)}
    if not present:
        return {}
    keys = list(dict.fromkeys(k for t in present.values() for k in t["variant"].unique()))
    seeds = sorted({int(s) for t in present.values() for s in t["seed"].unique()})
    C = float(next(iter(present.values()))["C"].iloc[0])
    gammas = sorted({float(g) for t in present.values() for g in t["log2_gamma"].unique()})
    est = {s: _fit_variants(name, s, keys) for s in seeds}
    log(f"{name}: {len(keys)} variants x {len(seeds)} seeds fitted; {len(gammas)} γ to evaluate")
    t0 = time.perf_counter()
    merged = {f"{s}|{k}": e for s, ek in est.items() for k, e in ek.items()}
    jobs = (delayed(reading_values)(load_dataset, name, g, C, merged, READINGS) for g in gammas)
    got = {}
    for g, values in zip(gammas, Parallel(n_jobs=n_jobs, return_as="generator")(jobs), strict=True):
        got[g] = values
        log(f"{name}: log2 gamma {g:+.0f} done ({time.perf_counter() - t0:.0f} s)")
    return write_readings(present, got, name, READINGS, out_root, log)


def svm_minima(names: Sequence[str] | None = None, *, perturbation: float = PERTURBATION, error: str = "L_val",
               u: str = "U_tr", directory: str | os.PathLike | None = None,
               reading: str | None = None) -> pd.DataFrame:
    """Per dataset and seed of the shipped ``svm_gamma`` tables: :func:`minima` of ``error`` and −``u`` over log₂ γ.

    Parameters
    ----------
    names : sequence of str, optional
        The datasets (default: every dataset of the ``svm_gamma`` table).
    perturbation : float
        The rows of this T̃ amplitude (0 for Fig 11's Û without T̃).
    error : str
        The error column (``L_val``, ``L_ho``, ``L_te``...).
    u : str
        The Û column (``U_tr``, ``U_te``, ``U1_tr``).
    directory : str or path-like, optional
        Read the tables from there instead of the package's ``data/tables``.
    reading : str, optional
        A key of :data:`READINGS` (``"literal"``, eq 39 as printed; ``"threshold"``, buviz's
        tolerance): ``u`` under that reading; the tables that do not hold it are left out.

    Returns
    -------
    pandas.DataFrame
        :func:`buviz.verdicts.sweep_minima` of the tables, in grid steps of :data:`LOG2_GAMMAS`.

    Raises
    ------
    InvalidParameterError
        An unknown dataset.
    FileNotFoundError
        If a dataset's table was not computed.
    """
    tables = {n: load_table("svm_gamma", n, directory) for n in names or TABLES["svm_gamma"].datasets}
    return sweep_minima(tables, perturbation=perturbation, error=error, u=u, step=LOG2_GAMMAS[1] - LOG2_GAMMAS[0],
                        reading=reading)
