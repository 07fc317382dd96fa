"""Where the error curves and −Û reach their minima in the real-data tables (the numbers behind the verdicts).

The shipped tables of :mod:`buviz.reproduce` hold, per dataset, seed and status (log₂ γ of an RBF SVC,
an MLP's epoch), the errors L_tr, L_val, L_HO, L_te and the boundary uncertainty Û of D. Ha, S. Katagiri,
H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based Estimation for Classifier Evaluation",
*Journal of Signal Processing Systems*, Springer, 2021, https://doi.org/10.1007/s11265-021-01671-1
(§6.4, Figs 7-13). The paper's Goal (b) is that the minimum of −Û falls on the minimum of the
validation error; these functions read where both minima are, how far apart, what the pick of −Û
costs in error, and the curves' mean over seeds (what the figures draw). ``buviz.reproduce``
re-exports them and reads the shipped tables for :func:`sweep_minima` (``buviz.reproduce.svm_minima``).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

__all__ = ["seeds_of", "seed_mean", "minima", "sweep_minima", "READINGS", "reading_column", "TIE_ATOL",
           "CLOSE_GAP", "SHARP_WITHIN", "near_top"]

#: "Û_tr ≈ Û_te" (Goal (a), Figs 7 and 9) is read as max ∣Û_tr − Û_te∣ over the statuses at most this
#: (buviz's criterion; the paper says "strikingly close" without a number).
CLOSE_GAP = 0.05
#: A minimum of −Û is the sharper when fewer statuses have Û within this of Û's largest value (buviz's
#: measure of Fig 8's "sharper"; the paper gives none).
SHARP_WITHIN = 0.02

#: Two error rates closer than this are the same minimum (a tie). L_val is a mean of fold error rates:
#: two γ that misclassify the same number of samples in every fold give values equal up to rounding
#: (≤ 1e-15), while one sample more in one fold of the smallest set (683 samples, 10 folds) changes
#: L_val by more than 1e-3. Without it, only the first of tied minima (the smallest γ) counted as the
#: minimum, and −Û's pick of another tied γ counted as a miss.
TIE_ATOL = 1e-12

#: The readings of eq 39's "w_kl = 0" a table may hold (the ``separability`` rule of
#: :class:`~buviz.uncertainty.BoundaryUncertainty`) and the words captions and verdicts name them by:
#: ``"literal"`` is eq 39 as printed (the paper rule of the tables' ``U_tr`` and ``U_te``),
#: ``"threshold"`` buviz's tolerance ω_kl < 0.05 (``U_tr_threshold``, ``U_te_threshold``).
READINGS = {"literal": "eq 39 as printed (w_kl = 0)", "threshold": "buviz tolerance (ω_kl < 0.05)"}


def reading_column(t: pd.DataFrame, reading: str, u: str = "U_tr") -> str | None:
    """The column of table ``t`` that holds Û (``u``: ``U_tr`` or ``U_te``) under a reading of eq 39.

    ``U_tr`` holds the rule the table's ``separability`` column names (a table without that column:
    ``"threshold"``); ``U_tr_<rule>`` holds another rule computed from the same evaluations.

    Parameters
    ----------
    t : pandas.DataFrame
        A table of :mod:`buviz.reproduce`.
    reading : str
        A key of :data:`READINGS`.
    u : str, default="U_tr"
        ``U_tr`` or ``U_te``.

    Returns
    -------
    str or None
        The column name, or None when the table does not hold that reading.
    """
    rules = set(t["separability"].astype(str)) if "separability" in t else {"threshold"}
    if rules == {reading}:
        return u
    col = f"{u}_{reading}"
    return col if col in t.columns else None


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
        ``x_error`` and ``x_u`` (the argmins, the smallest status on ties), ``x_error_ties`` (every
        status whose error is within :data:`TIE_ATOL` of the minimum), ``error_at_u`` (the error at
        −Û's argmin), ``error_min``, ``on_min`` (−Û's argmin is one of the error's tied minima) and
        ``rho`` (Spearman's rank correlation between −Û and the error).
    """
    t = t.sort_values(x).reset_index(drop=True)
    err = t[error].to_numpy(float)
    negu = -t[u].to_numpy(float)
    i_e, i_u = int(np.nanargmin(err)), int(np.nanargmin(negu))
    ties = tuple(float(v) for v in t[x].to_numpy(float)[err <= err[i_e] + TIE_ATOL])
    ranks = pd.DataFrame({"e": err, "u": negu}).rank()
    rho = float(np.corrcoef(ranks["e"], ranks["u"])[0, 1]) if ranks["u"].nunique() > 1 else float("nan")
    return {"x_error": float(t[x].iloc[i_e]), "x_u": float(t[x].iloc[i_u]), "x_error_ties": ties,
            "error_at_u": float(err[i_u]), "error_min": float(err[i_e]),
            "on_min": bool(err[i_u] <= err[i_e] + TIE_ATOL), "rho": rho}


def sweep_minima(tables: Mapping[str, pd.DataFrame], *, perturbation: float, error: str = "L_val",
                 u: str = "U_tr", step: float = 1.0, reading: str | None = None) -> pd.DataFrame:
    """Per dataset and seed of γ-sweep tables: :func:`minima` of ``error`` and −``u`` over log₂ γ.

    Parameters
    ----------
    tables : mapping of str to pandas.DataFrame
        Dataset name -> its ``svm_gamma`` table (every seed, both T̃ amplitudes).
    perturbation : float
        The rows of this T̃ amplitude (0 for Fig 11's Û without T̃).
    error : str
        The error column (``L_val``, ``L_ho``, ``L_te``...).
    u : str
        The Û column (``U_tr``, ``U_te``, ``U1_tr``).
    step : float, default=1.0
        The grid step of log₂ γ.
    reading : str, optional
        A key of :data:`READINGS`: read ``u`` under that reading of eq 39 (:func:`reading_column`);
        the tables that do not hold it are left out.

    Returns
    -------
    pandas.DataFrame
        Indexed by (dataset, seed); the columns of :func:`minima` (``x_error``, ``x_u``,
        ``x_error_ties``, ``error_at_u``, ``error_min``, ``on_min``, ``rho``) and ``steps`` (the
        distance in grid steps from −Û's argmin to the nearest of the error's tied minima).
    """
    rows = {}
    for name, t in tables.items():
        col = u if reading is None else reading_column(t, reading, u)
        if col is None:
            continue
        t = t[t["perturbation"] == perturbation]
        for seed in seeds_of(t):
            m = minima(t[t["seed"] == seed], error=error, u=col)
            rows[(name, seed)] = {**m, "steps": min(_steps(x, m["x_u"], step) for x in m["x_error_ties"])}
    out = pd.DataFrame.from_dict(rows, orient="index")
    if out.empty:
        return pd.DataFrame(index=pd.MultiIndex.from_tuples([], names=["dataset", "seed"]))
    out.index = pd.MultiIndex.from_tuples(out.index, names=["dataset", "seed"])
    return out


def near_top(values, within: float = SHARP_WITHIN) -> int:
    """How many values lie within ``within`` of the largest (the width of −Û's minimum, in statuses).

    Parameters
    ----------
    values : array-like
        Û over the statuses of one sweep.
    within : float, default=SHARP_WITHIN
        The distance from the largest value.

    Returns
    -------
    int
        The number of statuses whose value is at least ``max − within``.
    """
    v = np.asarray(values, dtype=float)
    return int(np.sum(v >= np.nanmax(v) - within))
