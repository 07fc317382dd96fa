"""Figs 12 and 13 on every dataset: Û_tr of the M and K variants per (dataset, γ), without redoing the CV.

On the sets whose sweep cells already hold the variants (GMM and Wine Quality White for M; the four
multi-class sets for K: ``FIG12_DATASETS`` and ``MULTICLASS_DATASETS`` of :mod:`buviz.reproduce`),
the ``u_by_M`` and ``u_by_K`` tables are read off those cells. On the other sets they come from
*variant cells*, one per (dataset, log₂ γ): the RBF SVC trained once on T (it does not depend on the
seed) and evaluated by Û of every (seed, variant) asked for -- the 10-fold CV and the hold-out, about
80 % of a sweep cell, are not redone, since Û does not depend on them. A variant cell grows: a later run
that asks for another seed or another variant (Fig 13's K after Fig 12's M) adds its values to the same
file. The error columns L_tr, L_val and L_HO of these tables are those of the same seed in the
dataset's sweep cells when they are on disk, else in its shipped ``svm_gamma`` table (the same folds and
split: the CV is seeded by the seed alone), and the ``errors_from`` column says which; C is the one
recorded there too. The variant cells of one dataset run in parallel, as the sweep cells do; under
``buviz reproduce --all`` one pass computes both figures' variants, so each γ's SVC is trained once.

D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based Estimation for
Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021,
https://doi.org/10.1007/s11265-021-01671-1 (§6.4.3, Figs 12-13).

Nothing here imports :mod:`buviz.reproduce`; it passes in what the cells need.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Sequence
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd

from buviz._reproduce_cells import (
    EXTRA_READINGS,
    SEPARABILITY,
    _cell_path,
    _read_cell,
    _readings,
    _run_jobs,
    _Shared,
    _write,
    tables_dir,
)

__all__ = ["variant_specs", "fit_estimators", "variant_cell", "run_variant_cells", "variant_rows", "shipped_C"]

#: The columns of a sweep's errors copied into the variant tables.
ERROR_COLUMNS = ("L_tr", "L_val", "L_ho", "time_cv", "time_ho")


def variant_specs(column: str, values: Sequence, M: int, perturbation: float, y) -> dict[str, dict]:
    """The Û variants of a Fig 12 (``column`` "M") or Fig 13 ("K") table: ``base`` (M, K by AIC) and one per value.

    Parameters
    ----------
    column : str
        ``"M"`` or ``"K"``.
    values : sequence
        The M (or K) of the figure; the default M and ``"aic"`` are ``base``.
    M : int
        The default neighbourhood size.
    perturbation : float
        T̃'s amplitude.
    y : array-like of int
        The class labels of T: a K above the smallest class size is left out (K-means cannot place more
        prototypes).

    Returns
    -------
    dict
        Key (``base``, ``M20``, ``K3``...) -> ``M``, ``K``, ``perturbation`` and ``te`` (False: Û_te not read).
    """
    smallest = int(np.bincount(np.asarray(y)).min())
    out = {"base": dict(M=M, K="aic", perturbation=perturbation, te=False)}
    for v in values:
        if column == "M" and v != M:
            out[f"M{v}"] = dict(M=int(v), K="aic", perturbation=perturbation, te=False)
        elif column == "K" and v != "aic" and int(v) <= smallest:
            out[f"K{v}"] = dict(M=M, K=int(v), perturbation=perturbation, te=False)
    return out


def fit_estimators(ds, seed: int, variants: dict[str, dict], *, M: int, K_range, keys=None) -> dict[str, tuple]:
    """Û's estimators of every variant (or of ``keys``), fitted on T (and on the test set where it is read).

    Parameters
    ----------
    ds : buviz.datasets.Dataset
        The dataset.
    seed : int
        Seed of T̃ and K-means.
    variants : dict
        Key -> ``M``, ``K``, ``perturbation``, ``te``; the key ``noT`` reuses ``base``'s prototypes without T̃.
    M : int
        The default M (the test set is read only when it holds more samples and every class).
    K_range : sequence of int
        The K tried by AIC.
    keys : iterable of str, optional
        Only these variants.

    Returns
    -------
    dict
        Key -> (Û fitted on T, Û fitted on the test set or None).
    """
    from buviz.uncertainty import BoundaryUncertainty

    common = dict(K_range=K_range, separability=SEPARABILITY, random_state=seed, n_jobs=1)
    has_test = len(ds.y_test) > M and len(np.unique(ds.y_test)) == ds.n_classes
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wanted = None if keys is None else set(keys) | ({"base"} if "noT" in set(keys) else set())
        for key, v in variants.items():
            if wanted is not None and key not in wanted:
                continue
            if key == "noT":
                base_tr, base_te = out["base"]
                out[key] = (base_tr.with_perturbation(0.0),
                            base_te.with_perturbation(0.0) if base_te is not None else None)
                continue
            kw = dict(M=v["M"], K=v["K"], perturbation=v["perturbation"], **common)
            tr = BoundaryUncertainty(**kw).fit(ds.X_train, ds.y_train)
            te = BoundaryUncertainty(**kw).fit(ds.X_test, ds.y_test) if v["te"] and has_test else None
            out[key] = (tr, te)
    return out if keys is None else {k: out[k] for k in keys}


def variant_cell(load_dataset: Callable, name: str, log2_gamma: float, C: float, estimators: dict) -> dict:
    """One variant cell: the SVC at ``log2_gamma`` trained on T, Û_tr of every estimator (``"seed|key"`` -> Û).

    Returns
    -------
    dict
        ``log2_gamma``, ``gamma``, ``C``, ``L_te``, ``time_fit`` and ``values`` (``"seed|key"`` -> ``U_tr``,
        ``U_tr_<rule>`` of the other readings of eq 39, ``n_eff_tr``, ``time_u_tr``, ``time_u_fit``).
    """
    from buviz import sweep
    from buviz.classifiers import Discriminant, svm_status

    ds = load_dataset(name)
    gamma = 2.0 ** float(log2_gamma)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        disc = svm_status(ds.X_train, ds.y_train, gamma, C)
        t_fit = time.perf_counter() - t0
        status = Discriminant(_Shared(disc), disc.n_classes, name=disc.name)
        values = {}
        for key, bu in estimators.items():
            r = bu._evaluate(status, copy_discriminant=False)
            values[key] = {"U_tr": r.value, "n_eff_tr": float(np.dot(r.pair_probabilities, r.pair_effective_size)),
                           "time_u_tr": r.evaluate_time, "time_u_fit": bu.fit_time_,
                           **{f"U_tr_{rule}": u for rule, u in _readings(r).items()}}
        l_te = sweep.evaluate_on_test_set(status, ds.X_test, ds.y_test).L_te
    return {"log2_gamma": float(log2_gamma), "gamma": gamma, "C": C, "L_te": l_te, "time_fit": t_fit,
            "values": values, "separability": SEPARABILITY}


def _shipped_svm_gamma(name: str) -> pd.DataFrame | None:
    path = tables_dir() / f"svm_gamma_{name}.csv"
    if not path.is_file():
        return None
    with resources.as_file(path) as real:
        return pd.read_csv(real)


def shipped_C(name: str) -> dict | None:
    """C and C's rule as the shipped ``svm_gamma`` table of ``name`` records them (None without that table)."""
    if (t := _shipped_svm_gamma(name)) is None:
        return None
    return {"C": float(t["C"].iloc[0]), "C_rule": str(t["C_rule"].iloc[0]), "from": f"svm_gamma_{name}.csv"}


def _C(name: str, work_dir: Path, choose: Callable[[], dict]) -> float:
    """C of ``name``: its C cell, else the one the shipped ``svm_gamma`` table records (written as its C cell),
    else ``choose()`` (the CV over the C grid)."""
    path = _cell_path(work_dir, "C", name, None)
    if (got := _read_cell(path)) is None and (got := shipped_C(name)) is not None:
        _write(path, got)
    return float((got or choose())["C"])


def run_variant_cells(name: str, seeds: Sequence[int], specs: dict[str, dict], work_dir: Path,
                      log2_gammas: Sequence[float], *, fit: Callable, load_dataset: Callable,
                      choose_C: Callable[[], dict], log: Callable[[str], None], n_jobs: int = 1,
                      scheduler=None) -> None:
    """Compute (or complete) the variant cells of ``name`` for ``seeds`` × ``specs``, ``n_jobs`` γ at a time.

    The estimators of each seed are fitted once here; each γ's cell then trains the SVC once and
    evaluates every (seed, variant) it lacks. The values do not depend on ``n_jobs`` or on the order
    in which the cells finish.

    Parameters
    ----------
    name : str
        The dataset.
    seeds : sequence of int
        Seeds of T̃ and K-means.
    specs : dict
        Variant key -> keywords (:func:`variant_specs`); :func:`buviz.reproduce.reproduce` passes the
        union of Fig 12's and Fig 13's, so that one SVC per γ serves both tables.
    work_dir : path
        Where the cells are kept.
    log2_gammas : sequence of float
        The statuses.
    fit : callable
        ``fit(name, seed, variants=specs, keys=keys)`` -> key -> (Û fitted on T, unused), for the keys
        some cell lacks.
    load_dataset : callable
        Name -> dataset.
    choose_C : callable
        Returns ``{"C": ...}`` when neither a C cell nor a shipped table gives C.
    log : callable
        Receives a line per cell.
    n_jobs : int, default=1
        Cells computed in parallel (joblib's processes).
    scheduler : str or distributed.Client, optional
        A Dask scheduler: the cells run on its workers.
    """
    C = _C(name, work_dir, choose_C)
    todo = {}
    for lg in log2_gammas:
        have = _read_cell(_cell_path(work_dir, "uvar", name, None, lg)) or {"values": {}}
        missing = [(s, k) for s in seeds for k in specs if f"{s}|{k}" not in have["values"]]
        if missing:
            todo[lg] = missing
    if not todo:
        return
    est: dict[int, dict] = {}
    for s in sorted({s for missing in todo.values() for s, _ in missing}):
        keys = [k for k in specs if any((s, k) in missing for missing in todo.values())]  # only what a cell lacks
        t1 = time.perf_counter()
        est[s] = fit(name, s, variants=specs, keys=keys)
        log(f"{name} seed {s}: {len(keys)} Û variants fitted in {time.perf_counter() - t1:.0f} s")
    jobs = [(_cell_path(work_dir, "uvar", name, None, lg), variant_cell,
             (load_dataset, name, lg, C, {f"{s}|{k}": est[s][k][0] for s, k in missing}))
            for lg, missing in todo.items()]
    # the largest γ (the costliest SVC) first, as the sweep cells: no core waits on one long cell at the end
    _run_jobs(jobs[::-1], n_jobs=n_jobs, scheduler=scheduler, log=log, label=f"{name} variants", merge=_merged)


def _merged(path: Path, got: dict) -> dict:
    """A variant cell's new values added to those already in its file (another seed's, another figure's)."""
    have = _read_cell(path) or {"values": {}}
    return {**got, "values": {**have["values"], **got["values"]}}


def _errors(name: str, seed: int, work_dir: Path, log2_gammas: Sequence[float]) -> tuple[dict, str]:
    """L_tr, L_val, L_HO (and their times) of ``seed`` per log₂ γ: from the sweep cells, else the shipped table."""
    cells = [_read_cell(_cell_path(work_dir, "sweep", name, seed, lg)) for lg in log2_gammas]
    if all(c is not None for c in cells):
        return {float(c["common"]["log2_gamma"]): {k: c["common"][k] for k in ERROR_COLUMNS} for c in cells}, "sweep"
    t = _shipped_svm_gamma(name)
    if t is not None:
        t = t[(t["seed"] == seed) & (t["variant"] == "base")]
        if len(t) == len(log2_gammas):
            return {float(r["log2_gamma"]): {k: float(r[k]) for k in ERROR_COLUMNS} for _, r in t.iterrows()}, \
                "svm_gamma"
    return {}, ""


def variant_rows(name: str, seeds: Sequence[int], work_dir: Path, specs: dict[str, dict],
                 log2_gammas: Sequence[float], settings: Callable[..., dict]) -> list[dict]:
    """The rows of a ``u_by_M`` or ``u_by_K`` table read off the variant cells (only the seeds every cell holds).

    ``settings(name, seed, work_dir, **extra)`` gives the leading columns every table repeats.
    """
    cells = [_read_cell(_cell_path(work_dir, "uvar", name, None, lg)) for lg in log2_gammas]
    if any(c is None for c in cells):
        return []
    rows = []
    for s in seeds:
        if any(f"{s}|{k}" not in c["values"] for c in cells for k in specs):
            continue
        errors, source = _errors(name, s, work_dir, log2_gammas)
        nan = dict.fromkeys(ERROR_COLUMNS, float("nan"))
        for key, v in specs.items():
            for c in cells:
                row = settings(name, s, work_dir, M=v["M"], K=v["K"], perturbation=v["perturbation"])
                row.update({"variant": key, "status": "gamma", "log2_gamma": c["log2_gamma"], "gamma": c["gamma"],
                            **errors.get(float(c["log2_gamma"]), nan), "L_te": c["L_te"], "time_fit": c["time_fit"],
                            **c["values"][f"{s}|{key}"], "U_te": float("nan"),
                            **{f"U_te_{r}": float("nan") for r in EXTRA_READINGS}, "errors_from": source})
                rows.append(row)
    return rows
