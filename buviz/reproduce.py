"""The sweeps behind the real-data figures of Ha et al. (2021), run once and shipped as tables.

D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based Estimation for
Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021,
https://doi.org/10.1007/s11265-021-01671-1 (§6.4.2, Figs 7-9 and 11-13, Table 3), on the ten UCI
datasets of its Table 2 (:data:`buviz.datasets.UCI_NAMES`).

The sweeps take minutes on two cores, so they are computed once with::

    buviz reproduce --figure uncertainty_fig8_real --recompute

and their results are shipped in ``buviz/data/tables/`` as small CSV files (one per table and
dataset) that the figures of :mod:`buviz.figures.real_data` render from in seconds. Every row of a
table carries the settings that made it (sizes, folds, M, K, T̃ amplitude, C, seed) and the buviz
version, so :func:`compute` can redo any part of it and compare.

The settings are reduced from the paper's to fit two shared cores (they are in every row):

- log₂ γ from −10 to 10 in steps of 2 (11 statuses; the paper's step is finer);
- 5-fold stratified CV (the paper uses 10 to 40 folds);
- training and test sets capped at :data:`MAX_TRAIN` / :data:`MAX_TEST` samples by a stratified
  subsample (Letter Recognition: 2 000 of its 10 000 training and 2 000 of its 10 000 test
  samples; Satimage, Spambase, Abalone and Wine Quality White likewise);
- one seed (0) for the split, the subsample, the folds, T̃ and the K-means of Proposal 2.

This module computes and reads tables; it never imports plotting libraries.
"""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

import numpy as np
import pandas as pd

import buviz
from buviz._validation import InvalidParameterError
from buviz.uncertainty.proposal2 import PAPER_SEPARABILITY
from buviz.uncertainty.prototypes import PAPER_K_RANGE

__all__ = ["MAX_TRAIN", "MAX_TEST", "LOG2_GAMMAS", "CV", "M", "SEED", "P1_DATASETS", "MULTICLASS_DATASETS",
           "FIG12_MS", "FIG13_KS", "MLP_EPOCHS", "TABLES", "FIGURE_TABLES", "TableSpec", "table_names",
           "tables_dir", "load_table", "load_dataset", "minima", "svm_minima", "has_table", "compute", "reproduce",
           "VALUE_COLUMNS"]

#: Largest training set used (a stratified subsample of larger ones).
MAX_TRAIN = 2000
#: Largest test set used (a stratified subsample of larger ones).
MAX_TEST = 2000
#: log₂ γ of the RBF SVC statuses.
LOG2_GAMMAS = tuple(range(-10, 11, 2))
#: Folds of stratified cross-validation (L_tr, L_val).
CV = 5
#: Proposal 2's neighbourhood size (the paper's default).
M = 40
#: The one seed of the split, subsample, folds, T̃ and K-means.
SEED = 0
#: Amplitude of T̃ (0: "without T̃", Figs 7 and 11).
PERTURBATION = 0.5
#: The sets on which Fig 8 also shows Proposal 1.
P1_DATASETS = ("cardiotocography", "spambase", "winequality_red", "winequality_white")
#: The multi-class sets of Fig 13 (the paper shows the first two; Wine Quality Red is grouped into two classes).
MULTICLASS_DATASETS = ("satimage", "winequality_white", "abalone", "letter")
#: Cluster sizes of Fig 12 and its two datasets.
FIG12_MS = (20, 40, 80, 120, 160)
FIG12_DATASETS = ("gmm", "winequality_white")
#: Prototypes per class of Fig 13 ("aic": chosen by AIC).
FIG13_KS = (3, 10, 20, 40, "aic")
#: Epochs read off the MLP of Fig 9 and its layers.
MLP_EPOCHS = (1, 2, 5, 10, 20, 50, 100, 200)
MLP_HIDDEN = (128, 64)
#: The datasets of Table 3 (Landsat is the Statlog satimage set).
TABLE3_DATASETS = {"abalone": "Abalone", "cardiotocography": "Cardiotocography", "letter": "Letter Recognition",
                   "satimage": "Landsat", "spambase": "Spambase"}
#: Sizes of the 2-D mixture of Fig 12 (the paper: 2 000 training samples; its 18 000 test samples capped like the rest).
GMM_SIZES = (2000, 2000)
#: Result columns compared when a table is recomputed (times are not).
VALUE_COLUMNS = ("L_tr", "L_val", "L_ho", "L_te", "U_tr", "U_te", "U1_tr", "G_add", "G_mul", "G_comp", "G_CL")


# -- data --------------------------------------------------------------------------------------------
def load_dataset(name: str, max_train: int = MAX_TRAIN, max_test: int = MAX_TEST, seed: int = SEED):
    """The dataset ``name`` with its training and test parts capped at ``max_train`` / ``max_test``.

    Parameters
    ----------
    name : str
        A name of :data:`buviz.datasets.UCI_NAMES`, or ``"gmm"`` (sampled with :data:`GMM_SIZES`).
    max_train, max_test : int
        Larger parts are subsampled (stratified, with ``seed``) to this size; a table's ``n_train``
        and ``n_test`` columns give back the data it was computed on.
    seed : int
        ``random_state`` of the split and the subsample.

    Returns
    -------
    buviz.datasets.Dataset
    """
    from buviz import datasets

    if name == "gmm":
        return datasets.load(name, n_train=GMM_SIZES[0], n_test=GMM_SIZES[1], random_state=seed)
    full = datasets.load(name, random_state=seed)
    n_train = max_train if len(full.y_train) > max_train else None
    n_test = max_test if len(full.y_test) > max_test else None
    if n_train is None and n_test is None:
        return full
    return datasets.load(name, n_train=n_train, n_test=n_test, random_state=seed)


#: The K tried per class by AIC for Î*: the paper's 1, 3, ..., 39 (Ha et al. 2021, §6.3), which the tables
#: were computed with (the package's default is the growing range "auto" since).
K_RANGE = PAPER_K_RANGE
K_RANGE_NAME = "paper"
#: Eq 39's Case 1/3 branch as printed (the threshold on ω_kl), which the tables were computed with (the
#: package's default is the shrinkage rule since the second pre-registered study).
SEPARABILITY = PAPER_SEPARABILITY


def _settings(ds, name: str, **extra) -> dict:
    return {"dataset": name, "n_train": len(ds.y_train), "n_test": len(ds.y_test), "n_classes": ds.n_classes,
            "cv": CV, **extra, "K_range": K_RANGE_NAME, "separability": SEPARABILITY, "seed": SEED,
            "buviz_version": buviz.__version__}


def _gamma_sweep(ds, name: str, *, M: int = M, K="aic", perturbation: float = PERTURBATION,
                 proposal1: bool = False, n_jobs: int = 2, cache=False) -> pd.DataFrame:
    from buviz import sweep

    t = sweep.svm_gamma_sweep(ds, 2.0 ** np.asarray(LOG2_GAMMAS, dtype=float), C=1.0, cv=CV, M=M, K=K,
                              K_range=K_RANGE, separability=SEPARABILITY, perturbation=perturbation,
                              proposal1=proposal1, random_state=SEED,
                              n_jobs=n_jobs, cache=cache)
    if "U1_tr" not in t:
        t["U1_tr"] = np.nan
    settings = _settings(ds, name, M=M, K=str(K), perturbation=perturbation)  # C is a column of the sweep
    return pd.concat([pd.DataFrame([settings] * len(t)), t.reset_index(drop=True)], axis=1)


# -- the tables -------------------------------------------------------------------------------------
def _svm_gamma(name: str, n_jobs: int, cache) -> pd.DataFrame:
    """Figs 7, 8 and 11: the γ sweep with T̃ (and Proposal 1 on P1_DATASETS) and without T̃."""
    ds = load_dataset(name)
    with_t = _gamma_sweep(ds, name, proposal1=name in P1_DATASETS, n_jobs=n_jobs, cache=cache)
    without = _gamma_sweep(ds, name, perturbation=0.0, n_jobs=n_jobs, cache=cache)
    return pd.concat([with_t, without], ignore_index=True)


def _u_by_M(name: str, n_jobs: int, cache) -> pd.DataFrame:
    """Fig 12: the γ sweep for each cluster size M of FIG12_MS."""
    ds = load_dataset(name)
    return pd.concat([_gamma_sweep(ds, name, M=m, n_jobs=n_jobs, cache=cache) for m in FIG12_MS], ignore_index=True)


def _u_by_K(name: str, n_jobs: int, cache) -> pd.DataFrame:
    """Fig 13: the γ sweep for each number K of prototypes per class of FIG13_KS."""
    ds = load_dataset(name)
    smallest = int(np.bincount(ds.y_train).min())
    Ks = [K for K in FIG13_KS if K == "aic" or K <= smallest]
    return pd.concat([_gamma_sweep(ds, name, K=K, n_jobs=n_jobs, cache=cache) for K in Ks], ignore_index=True)


def _mlp_epoch(name: str, n_jobs: int, cache) -> pd.DataFrame:
    """Fig 9: one MLP per fold read off at MLP_EPOCHS."""
    from buviz import sweep

    ds = load_dataset(name)
    t = sweep.mlp_epoch_sweep(ds, MLP_EPOCHS, cv=CV, M=M, K_range=K_RANGE, separability=SEPARABILITY,
                              hidden_layer_sizes=MLP_HIDDEN,
                              random_state=SEED, n_jobs=n_jobs, cache=cache)
    settings = _settings(ds, name, M=M, K="aic", hidden_layer_sizes=str(MLP_HIDDEN), perturbation=PERTURBATION)
    return pd.concat([pd.DataFrame([settings] * len(t)), t.reset_index(drop=True)], axis=1)


#: log₂ γ of the SVC status whose Proposal 1 run is counted in Table 3.
TABLE3_LOG2_GAMMA = 0.0


def _table3(name: str, n_jobs: int, cache) -> pd.DataFrame:
    """Table 3: operations counted by running Proposal 1 and Proposal 2 on one SVC status."""
    from buviz.classifiers import svm_status
    from buviz.uncertainty import BoundaryUncertainty, Proposal1, costs

    ds = load_dataset(name)
    disc = svm_status(ds.X_train, ds.y_train, 2.0 ** TABLE3_LOG2_GAMMA, 1.0)
    p1 = Proposal1(R_T=10, i_max=20, random_state=SEED).fit(ds.X_train, ds.y_train).evaluate(disc)
    p2 = BoundaryUncertainty(M=M, K_range=K_RANGE, separability=SEPARABILITY,
                             random_state=SEED).fit(ds.X_train, ds.y_train).evaluate(disc)
    counted = costs.gains(costs.proposal1_costs(p1), costs.proposal2_costs(p2, mode="counted"))["gain"]
    N, d, J = ds.X_train.shape[0], ds.X_train.shape[1], ds.n_classes
    formula = costs.gains(costs.proposal1_costs(N=N, d=d, J=J), costs.proposal2_costs(N=N, M=M, J=J))["gain"]
    paper_name = TABLE3_DATASETS[name]
    printed = costs.TABLE3_PRINTED[paper_name]
    row = {**_settings(ds, name, M=M, R_T=10, i_max=20, log2_gamma=TABLE3_LOG2_GAMMA), "paper_dataset": paper_name,
           "paper_N": costs.TABLE2[paper_name][0], "d": d}
    for op, p in zip(("add", "mul", "comp", "CL"), printed, strict=True):
        row[f"G_{op}"] = counted[op]
        row[f"formula_G_{op}"] = formula[op]
        row[f"printed_G_{op}"] = p
    row["U1"], row["U2"] = p1.value, p2.value
    return pd.DataFrame([row])


@dataclass(frozen=True)
class TableSpec:
    """One shipped table: how it is computed and on which datasets.

    Attributes
    ----------
    name : str
        File stem prefix (``svm_gamma`` gives ``svm_gamma_<dataset>.csv``).
    compute : callable
        ``compute(dataset, n_jobs, cache)`` returns the table of one dataset.
    datasets : tuple of str
        The datasets it is computed on, cheapest first.
    doc : str
        What it holds, in a few words.
    """

    name: str
    compute: Callable[[str, int, object], pd.DataFrame]
    datasets: tuple[str, ...]
    doc: str


def _uci() -> tuple[str, ...]:
    # cheapest first: the order in which a full recompute fills the tables
    return ("breast_cancer_wisconsin", "banknote", "german", "cardiotocography", "winequality_red", "abalone",
            "winequality_white", "spambase", "satimage", "letter")


#: The shipped tables, by name.
TABLES: dict[str, TableSpec] = {
    "svm_gamma": TableSpec("svm_gamma", _svm_gamma, _uci(), "γ sweep with and without T̃ (Figs 7, 8, 11)"),
    "mlp_epoch": TableSpec("mlp_epoch", _mlp_epoch, ("letter",), "MLP by epoch (Fig 9)"),
    "u_by_M": TableSpec("u_by_M", _u_by_M, FIG12_DATASETS, "γ sweep for each M (Fig 12)"),
    "u_by_K": TableSpec("u_by_K", _u_by_K, MULTICLASS_DATASETS, "γ sweep for each K (Fig 13)"),
    "table3": TableSpec("table3", _table3, tuple(TABLE3_DATASETS), "counted operations (Table 3)"),
}

#: The tables (and datasets) each real-data figure renders from.
FIGURE_TABLES: dict[str, tuple[str, tuple[str, ...]]] = {
    "uncertainty_fig7_real": ("svm_gamma", ("letter",)),
    "uncertainty_fig8_real": ("svm_gamma", _uci()),
    "uncertainty_fig11_real": ("svm_gamma", _uci()),
    "uncertainty_fig9_real": ("mlp_epoch", ("letter",)),
    "uncertainty_fig12_real": ("u_by_M", FIG12_DATASETS),
    "uncertainty_fig13_real": ("u_by_K", MULTICLASS_DATASETS),
    "uncertainty_table3_real": ("table3", tuple(TABLE3_DATASETS)),
}


def table_names() -> list[str]:
    """The file stems of every shipped table (``svm_gamma_letter``, ...)."""
    return [f"{s.name}_{d}" for s in TABLES.values() for d in s.datasets]


def tables_dir() -> Traversable:
    """The folder of the shipped tables (``buviz/data/tables``), as an importlib resource."""
    return resources.files("buviz") / "data" / "tables"


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
        One row per status (and variant), the settings in the first columns.

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
                                f"`buviz reproduce --figure KEY --recompute` (see `buviz reproduce --list`)")
    with resources.as_file(path) as real:  # the file itself, or a temporary copy out of a zipped install
        return _read(str(real), real.stat().st_mtime_ns).copy()


@functools.lru_cache(maxsize=64)
def _read(path: str, mtime_ns: int) -> pd.DataFrame:
    """A table file read once per process (and again when it changes)."""
    return pd.read_csv(path)


def compute(table: str, dataset: str, *, n_jobs: int = 2, cache=False) -> pd.DataFrame:
    """Compute the table of ``dataset`` with the module's settings (minutes for the largest sets).

    Parameters
    ----------
    table : str
        A key of :data:`TABLES`.
    dataset : str
        One of its datasets.
    n_jobs : int, default=2
        joblib workers of the sweeps.
    cache : bool, path or RowCache, default=False
        The sweeps' row cache (see :func:`buviz.sweep.svm_gamma_sweep`).

    Returns
    -------
    pandas.DataFrame
    """
    return _check(table, dataset).compute(dataset, n_jobs, cache)


def reproduce(figure: str | None = None, *, table: str | None = None, recompute: bool = False,
              directory=None, n_jobs: int = 2, cache=False,
              log: Callable[[str], None] = print) -> list[Path]:
    """Compute the missing (or, with ``recompute``, all) tables of a figure or a table, and write them.

    Parameters
    ----------
    figure : str, optional
        A key of :data:`FIGURE_TABLES` (``uncertainty_fig8_real``, ...).
    table : str, optional
        A key of :data:`TABLES` instead (all its datasets).
    recompute : bool, default=False
        Redo the tables that exist too.
    directory : path, optional
        Where to write; default the package's ``data/tables`` (a source checkout).
    n_jobs : int, default=2
        joblib workers.
    cache : bool, path or RowCache, default=False
        The sweeps' row cache.
    log : callable
        Receives one line per table.

    Returns
    -------
    list of pathlib.Path
        The files written.
    """
    if (figure is None) == (table is None):
        raise InvalidParameterError("give exactly one of figure or table")
    if figure is not None:
        if figure not in FIGURE_TABLES:
            raise InvalidParameterError(f"figure must be one of {sorted(FIGURE_TABLES)}, got {figure!r}")
        table, names = FIGURE_TABLES[figure]
    else:
        if table not in TABLES:
            raise InvalidParameterError(f"table must be one of {sorted(TABLES)}, got {table!r}")
        names = TABLES[table].datasets
    root = Path(os.fspath(directory)) if directory is not None else Path(str(tables_dir()))
    root.mkdir(parents=True, exist_ok=True)
    written = []
    for name in names:
        path = root / f"{table}_{name}.csv"
        if path.is_file() and not recompute:
            log(f"{path.name}: present (--recompute to redo it)")
            continue
        t0 = time.perf_counter()
        df = compute(table, name, n_jobs=n_jobs, cache=cache)
        tmp = path.with_suffix(".tmp")
        df.to_csv(tmp, index=False)
        os.replace(tmp, path)
        written.append(path)
        log(f"{path.name}: {len(df)} rows in {time.perf_counter() - t0:.0f} s")
    return written


# -- what the tables show against the paper's claims ------------------------------------------------
def _steps(a: float, b: float) -> int:
    """Distance in grid steps between two log₂ γ of :data:`LOG2_GAMMAS`."""
    return int(round(abs(a - b) / (LOG2_GAMMAS[1] - LOG2_GAMMAS[0])))


def minima(t: pd.DataFrame, x: str = "log2_gamma", error: str = "L_val", u: str = "U_tr") -> dict:
    """Where an error curve and −Û (``u``) reach their minimum over the statuses of one sweep table.

    Parameters
    ----------
    t : pandas.DataFrame
        One sweep (one row per status).
    x : str
        The status column (``log2_gamma`` or ``epoch``).
    error, u : str
        The error column and the Û column (the argmin of −Û is the argmax of Û).

    Returns
    -------
    dict
        ``x_error`` and ``x_u`` (the argmins, first one on ties), ``error_at_u`` (the error at −Û's
        argmin), ``error_min`` and ``rho`` (Spearman's rank correlation between −Û and the error).
    """
    t = t.sort_values(x).reset_index(drop=True)
    err = t[error].to_numpy(float)
    negu = -t[u].to_numpy(float)
    i_e, i_u = int(np.nanargmin(err)), int(np.nanargmin(negu))
    ranks = pd.DataFrame({"e": err, "u": negu}).rank()
    rho = float(np.corrcoef(ranks["e"], ranks["u"])[0, 1]) if ranks["u"].nunique() > 1 else float("nan")
    return {"x_error": float(t[x].iloc[i_e]), "x_u": float(t[x].iloc[i_u]), "error_at_u": float(err[i_u]),
            "error_min": float(err[i_e]), "rho": rho}


def svm_minima(names: Sequence[str] | None = None, *, perturbation: float = PERTURBATION, error: str = "L_val",
               u: str = "U_tr", directory: str | os.PathLike | None = None) -> pd.DataFrame:
    """Per dataset of the shipped ``svm_gamma`` tables: :func:`minima` of ``error`` and −``u`` over log₂ γ.

    Parameters
    ----------
    names : sequence of str, optional
        The datasets (default: every dataset of the ``svm_gamma`` table).
    perturbation : float
        The rows of this T̃ amplitude (0 for Fig 11's Û without T̃).
    error : str
        The error column (``L_val``, ``L_HO``, ``L_te``...).
    u : str
        The Û column (``U_tr``, ``U_te``, ``U1_tr``).
    directory : str or path-like, optional
        Read the tables from there instead of the package's ``data/tables``.

    Returns
    -------
    pandas.DataFrame
        Indexed by dataset; the columns of :func:`minima` (``x_error``, ``x_u``, ``error_at_u``,
        ``error_min``, ``rho``) and ``steps`` (the distance between the two argmins in grid steps of
        :data:`LOG2_GAMMAS`).

    Raises
    ------
    InvalidParameterError
        An unknown dataset.
    FileNotFoundError
        If a dataset's table was not computed.
    """
    rows = {}
    for name in names or TABLES["svm_gamma"].datasets:
        t = load_table("svm_gamma", name, directory)
        m = minima(t[t["perturbation"] == perturbation], error=error, u=u)
        rows[name] = {**m, "steps": _steps(m["x_error"], m["x_u"])}
    return pd.DataFrame.from_dict(rows, orient="index")
