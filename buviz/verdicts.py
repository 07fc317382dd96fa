"""Where the error curves and −Û reach their minima in the real-data tables (the numbers behind the verdicts).

The shipped tables of :mod:`buviz.reproduce` hold, per dataset, seed and status (log₂ γ of an RBF SVC,
an MLP's epoch), the errors L_tr, L_val, L_HO, L_te and the boundary uncertainty Û of D. Ha, S. Katagiri,
H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based Estimation for Classifier Evaluation",
*Journal of Signal Processing Systems*, Springer, 2021, https://doi.org/10.1007/s11265-021-01671-1
(§6.4, Figs 7-13). The paper's Goal (b) is that the minimum of −Û falls on the minimum of the
validation error; these functions read where both minima are, how far apart, what the pick of −Û
costs in error, and the curves' mean over seeds (what the figures draw). ``buviz.reproduce``
re-exports them.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np
import pandas as pd

__all__ = ["seeds_of", "seed_mean", "minima", "svm_minima"]


def _steps(a: float, b: float, step: float) -> int:
    """Distance in grid steps (of size ``step``) between two log₂ γ."""
    return int(round(abs(a - b) / step))


def seeds_of(t: pd.DataFrame) -> list[int]:
    """The seeds a table holds (``[0]`` for a table without a ``seed`` column)."""
    return sorted(int(s) for s in t["seed"].unique()) if "seed" in t else [0]


def seed_mean(t: pd.DataFrame, x: str = "log2_gamma") -> pd.DataFrame:
    """The mean over seeds of every numeric column, one row per status ``x`` (the curves the figures draw).

    Parameters
    ----------
    t : pandas.DataFrame
        One sweep per seed (one variant).
    x : str
        The status column.

    Returns
    -------
    pandas.DataFrame
        One row per status, sorted by ``x``.
    """
    num = t.select_dtypes("number").drop(columns=["seed"], errors="ignore")
    return num.groupby(t[x]).mean().drop(columns=[x], errors="ignore").reset_index().sort_values(x)


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


def svm_minima(names: Sequence[str] | None = None, *, perturbation: float | None = None, error: str = "L_val",
               u: str = "U_tr", directory: str | os.PathLike | None = None) -> pd.DataFrame:
    """Per dataset and seed of the shipped ``svm_gamma`` tables: :func:`minima` of ``error`` and −``u`` over log₂ γ.

    Parameters
    ----------
    names : sequence of str, optional
        The datasets (default: every dataset of the ``svm_gamma`` table).
    perturbation : float, optional
        The rows of this T̃ amplitude (default :data:`buviz.reproduce.PERTURBATION`; 0 for Fig 11's Û
        without T̃).
    error : str
        The error column (``L_val``, ``L_ho``, ``L_te``...).
    u : str
        The Û column (``U_tr``, ``U_te``, ``U1_tr``).
    directory : str or path-like, optional
        Read the tables from there instead of the package's ``data/tables``.

    Returns
    -------
    pandas.DataFrame
        Indexed by (dataset, seed); the columns of :func:`minima` (``x_error``, ``x_u``, ``error_at_u``,
        ``error_min``, ``rho``) and ``steps`` (the distance between the two argmins in grid steps of
        :data:`buviz.reproduce.LOG2_GAMMAS`).

    Raises
    ------
    InvalidParameterError
        An unknown dataset.
    FileNotFoundError
        If a dataset's table was not computed.
    """
    from buviz import reproduce

    perturbation = reproduce.PERTURBATION if perturbation is None else perturbation
    step = reproduce.LOG2_GAMMAS[1] - reproduce.LOG2_GAMMAS[0]
    rows = {}
    for name in names or reproduce.TABLES["svm_gamma"].datasets:
        t = reproduce.load_table("svm_gamma", name, directory)
        t = t[t["perturbation"] == perturbation]
        for seed in seeds_of(t):
            m = minima(t[t["seed"] == seed], error=error, u=u)
            rows[(name, seed)] = {**m, "steps": _steps(m["x_error"], m["x_u"], step)}
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index = pd.MultiIndex.from_tuples(out.index, names=["dataset", "seed"])
    return out
