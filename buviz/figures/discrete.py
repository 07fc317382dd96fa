"""Figures and tables of the discrete-case paper (exact moments, no simulation).

V. M. Nedel'ko, "Optimization of the misclassification probability estimate in the discrete case"
(in Russian), XVth International Conference Knowledge-Dialogue-Solution KDS 2009, Varna, Bulgaria, 2009.
"""

from __future__ import annotations

import holoviews as hv
import numpy as np
import pandas as pd
import param

from buviz import discrete
from buviz.figures._base import PaperFigure
from buviz.plots import discrete as dplots

__all__ = ["DiscreteTable1", "DiscreteTable2", "DiscreteFig1", "DiscreteFig2"]

_METHODS = ("resubstitution", "loo", "bootstrap632", "balanced_optimal")


def _N():
    return param.Integer(50, bounds=(2, 400), doc="sample size N")


def _k():
    return param.Integer(10, bounds=(1, 200), doc="number of cells k")


def _rows(default: int):
    return param.Integer(default, bounds=(1, 401), doc="rows n shown (at most N + 1)")


def _cols():
    return param.Integer(6, bounds=(1, 401), doc="columns m shown (at most N + 1)")


#: Why a cell of Tables 1-2 is empty (the frame's ``attrs["missing"]``, shown under the table).
_MISSING = ("a cell holding n training points has at most n of them in one class, so x[n, m] is undefined "
            "for m > n")


def printed_agreement(values, printed) -> tuple[int, int, float, float]:
    """How a table of N·x[n, m] (rows n = 0..8, columns m = 0..5) agrees with the paper's print
    (:data:`buviz.discrete.PAPER_TABLE1` or ``PAPER_TABLE2``): the printed cells reproduced to their
    printed digits (within half a unit of the last digit), the printed cells, the largest difference,
    and the largest difference on the row n = N/k = 5 (free of the gauge the paper leaves unstated)."""
    paper = np.full((len(printed), 6), np.nan)
    for i, row in enumerate(printed):
        paper[i, :len(row)] = row
    shown = np.isfinite(paper)
    digits = np.array([[len(f"{v}".split(".")[1]) if np.isfinite(v) else 2 for v in row] for row in paper])
    err = np.abs(np.asarray(values, dtype=float)[:len(printed), :6] - paper)
    within = (err <= 0.5 * 10.0 ** -digits + 1e-9) & shown
    return (int(within.sum()), int(shown.sum()), float(err[shown].max()), float(err[5][shown[5]].max()))


class DiscreteTable1(PaperFigure):
    """Table 1: N·x*_mn (N = 50, k = 10), 117 steps: the count closest to the print

    Balanced-optimal per-cell values by the paper's literal iteration stopped after 117 steps, a step
    count the paper does not give: it was chosen because it is the one closest to the printed table
    (:func:`buviz.discrete.balanced_optimal`, ``paper_iterations``).
    """

    key, alias, paper, number = "discrete_table1", "nedelko_table1", "discrete", "Table 1"
    kind, size = "table", (7.0, 3.5)
    accepts = {"n_rows": "integer in [1, N + 1]", "m_cols": "integer in [1, N + 1]"}
    N = _N()
    k = _k()
    n_rows = _rows(9)
    m_cols = _cols()

    def build(self) -> pd.DataFrame:
        x = discrete.cell_values("balanced_optimal", self.N, self.N, k=self.k)
        df = dplots.table_frame(x, self.N, n_rows=self.check("n_rows", self.n_rows, 1, self.N + 1),
                                m_cols=self.check("m_cols", self.m_cols, 1, self.N + 1)).reset_index()
        df.attrs["missing"] = _MISSING
        return df


class DiscreteTable2(PaperFigure):
    """Table 2: combined .632 bootstrap per-cell values N·ẍ_mn (N = 50)"""

    key, alias, paper, number = "discrete_table2", "nedelko_table2", "discrete", "Table 2"
    kind, size = "table", (7.0, 3.5)
    accepts = DiscreteTable1.accepts
    N = _N()
    n_rows = _rows(9)
    m_cols = _cols()

    def build(self) -> pd.DataFrame:
        n_rows = self.check("n_rows", self.n_rows, 1, self.N + 1)
        x = discrete.cell_values("bootstrap632", self.N, n_rows - 1)
        df = dplots.table_frame(x, self.N, n_rows=n_rows,
                                m_cols=self.check("m_cols", self.m_cols, 1, self.N + 1)).reset_index()
        df.attrs["missing"] = _MISSING
        return df


class DiscreteFig1(PaperFigure):
    """Fig 1: the four estimators' per-cell values N·x[n, m] at n = 5"""

    key, alias, paper, number = "discrete_fig1", "nedelko_fig1", "discrete", "Fig 1"
    accepts = {"n": "integer in [0, N]"}
    N = _N()
    k = _k()
    n = param.Integer(5, bounds=(0, 400), doc="points n in the cell")

    def build(self) -> hv.Overlay:
        n = self.check("n", self.n, 0, self.N)
        return dplots.CellEstimatesDisplay.from_estimators(_METHODS, self.N, self.k, n=n).element(panel="fig1")


class DiscreteFig2(PaperFigure):
    """Fig 2: exact RMS deviation S = sqrt(E(f − g)²) against p for the four estimators"""

    key, alias, paper, number = "discrete_fig2", "nedelko_fig2", "discrete", "Fig 2"
    N = _N()
    k = _k()
    n_p = param.Integer(101, bounds=(3, 2001), doc="values of p in [0, 1]")

    def build(self) -> hv.Overlay:
        return dplots.RmsDeviationDisplay.from_estimators(
            _METHODS, self.N, self.k, np.linspace(0, 1, self.n_p), title="Fig 2: RMS deviation S against p").element()


#: How Tables 1-2 at the paper's N = 50, k = 10 agree with the print (:func:`printed_agreement`: cells
#: to their printed digits, printed cells, largest difference, largest on the row n = 5). Computing
#: Table 1 takes seconds, so the verdicts read these; ``buviz claims --check discrete_table1`` (and the
#: test of this module) recompute them.
AGREEMENT = {"discrete_table1": (30, 39, 0.0064, 0.0046), "discrete_table2": (39, 39, 0.0047, 0.0024)}


def _recompute_agreement(key: str) -> tuple[int, int, float, float]:
    if key == "discrete_table1":
        return printed_agreement(50 * discrete.cell_values("balanced_optimal", 50, 50, k=10), discrete.PAPER_TABLE1)
    return printed_agreement(50 * discrete.cell_values("bootstrap632", 50, 8), discrete.PAPER_TABLE2)


class _PrintedTable:
    """The claims-ledger entry of a table the paper prints: buviz's values against the print."""

    @classmethod
    def measured(cls) -> str:
        within, cells, most, row5 = AGREEMENT[cls.key]
        text = f"{within} of {cells} printed cells reproduced to their printed digits, every cell within {most:.4f}"
        if within < cells:
            text += (f"; the row n = N/k = 5, free of the gauge the paper leaves unstated, within {row5:.4f} (the "
                     "other rows depend on where the iteration stops, which the paper does not give)")
        return text

    @classmethod
    def check_claim(cls) -> tuple[bool, str]:
        """Table recomputed at N = 50, k = 10 and compared with the print again."""
        got = _recompute_agreement(cls.key)
        want = AGREEMENT[cls.key]
        holds = got[:2] == want[:2] and all(abs(a - b) < 5e-5 for a, b in zip(got[2:], want[2:], strict=True))
        return holds, (f"recomputed: {got[0]} of {got[1]} cells to the printed digits, largest difference "
                       f"{got[2]:.4f}, row n = 5 {got[3]:.4f}")


for _cls, _claim, _data in (
        (DiscreteTable1,
         "the balanced-optimal estimator's per-cell values N·x*_mn for N = 50, k = 10 are those printed",
         "buviz.discrete.cell_values('balanced_optimal', 50, 50, k=10): the paper's damped iteration (tau = 0.1) "
         "stopped after 117 steps, against the printed rows n = 0..8"),
        (DiscreteTable2, "the combined .632 bootstrap per-cell values N·ẍ_mn for N = 50 are those printed",
         "buviz.discrete.cell_values('bootstrap632', 50, 8), exact, against the printed rows n = 0..8")):
    _cls.claim, _cls.data_text = _claim, _data
    _cls.redo_command = f"buviz figure {_cls.key} --out {_cls.key}.csv"
    _cls.quick_check_text = "the table recomputed at N = 50, k = 10 and compared with the print"
    _cls.measured = classmethod(_PrintedTable.measured.__func__)
    _cls.check_claim = classmethod(_PrintedTable.check_claim.__func__)
    _cls.state_measured(_claim, _cls.measured())
