"""Shared helpers of the real-data extrapolation benchmarks (Telugu Table 1, Omniglot Figs 11-12).

Not part of the package: the data are fetched by :mod:`buviz.datasets` (never shipped); these helpers
cut sub-problems out of margin matrices, run every estimator of :func:`buviz.extrapolation.extrapolate`
on one, and append result rows to a resumable CSV checkpoint.
"""

from __future__ import annotations

import csv
import os
from pathlib import Path

import numpy as np
import pandas as pd

from buviz import extrapolation as ex

METHODS = ("moment", "classexreg", "kde", "best")
ROOT = Path(__file__).resolve().parents[1]
TABLES = ROOT / "buviz" / "data" / "tables"
CACHE = Path(os.environ.get("BUVIZ_BENCH_CACHE", "/tmp/buviz-realdata-cache"))


def subproblem(M: np.ndarray, y: np.ndarray, classes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The margins of the test points of ``classes`` on the columns of ``classes``, labels recoded 0..k-1."""
    classes = np.sort(np.asarray(classes))
    sel = np.isin(y, classes)
    code = np.full(M.shape[1], -1)
    code[classes] = np.arange(len(classes))
    return M[np.ix_(sel, classes)], code[y[sel]]


def eq3(M: np.ndarray, y: np.ndarray, ks, *, ties: str = "random", seed: int = 0) -> np.ndarray:
    """AverageTA_k (eq 3) at ``ks`` on the whole matrix, classes weighted equally."""
    r = ex.ranks_from_margins(M, y, ties=ties, random_state=seed)
    return ex.average_accuracy_from_ranks(r, ks, k1=M.shape[1], groups=y)


def predict_all(M: np.ndarray, y: np.ndarray, k_target: int, *, ties: str = "random", seed: int = 0,
                methods=METHODS) -> dict[str, float]:
    """Every estimator's predicted accuracy at ``k_target``; NaN where an estimator fails."""
    out = {}
    for m in methods:
        try:
            out[m] = float(ex.extrapolate(M, y, k_target, method=m, random_state=seed, ties=ties))
        except (ValueError, np.linalg.LinAlgError, RuntimeError):
            out[m] = float("nan")
    return out


def summarize(rep: pd.DataFrame, by: list[str], methods=METHODS) -> pd.DataFrame:
    """Per group of ``by`` (ending with ``K``) and estimator: mean, median, sd, bias, RMSE, mean absolute
    error and 10 % / 90 % quantiles of the predictions ``pred_<method>`` against ``acc_true``; failures
    (NaN predictions) counted and left out."""
    rows = []
    for key, g in rep.groupby(by, sort=True):
        truth = float(g.acc_true.iloc[0])
        for m in methods:
            p = g[f"pred_{m}"].to_numpy(float)
            ok = p[np.isfinite(p)]
            rows.append({**dict(zip(by, key, strict=True)), "method": m, "n_reps": len(p),
                         "n_failed": int(len(p) - len(ok)),
                         "acc_true": truth, "accK_observed_mean": g.accK_observed.mean(), "mean_pred": ok.mean(),
                         "median_pred": np.median(ok), "sd_pred": ok.std(ddof=1), "bias": ok.mean() - truth,
                         "rmse": float(np.sqrt(np.mean((ok - truth) ** 2))), "mae": float(np.mean(np.abs(ok - truth))),
                         "q10": np.quantile(ok, 0.1), "q90": np.quantile(ok, 0.9), "data": g.data.iloc[0],
                         "buviz_version": g.buviz_version.iloc[0]})
    return pd.DataFrame(rows).round(6)


class Checkpoint:
    """Rows appended to a CSV as they are computed, so that an interrupted run resumes where it stopped."""

    def __init__(self, path: Path, fields: list[str], key: tuple[str, ...]):
        self.path, self.fields, self.key = Path(path), list(fields), key
        self.done: set = set()
        if self.path.exists():
            with self.path.open() as fh:
                for row in csv.DictReader(fh):
                    self.done.add(tuple(row[k] for k in key))

    def has(self, **values) -> bool:
        return tuple(str(values[k]) for k in self.key) in self.done

    def add(self, rows: list[dict]) -> None:
        new = not self.path.exists()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=self.fields)
            if new:
                w.writeheader()
            for r in rows:
                w.writerow({k: r.get(k, "") for k in self.fields})
                self.done.add(tuple(str(r[k]) for k in self.key))
