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
        return dplots.table_frame(x, self.N, n_rows=self.check("n_rows", self.n_rows, 1, self.N + 1),
                                  m_cols=self.check("m_cols", self.m_cols, 1, self.N + 1)).reset_index()


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
        return dplots.table_frame(x, self.N, n_rows=n_rows,
                                  m_cols=self.check("m_cols", self.m_cols, 1, self.N + 1)).reset_index()


class DiscreteFig1(PaperFigure):
    """Fig 1: the four estimators' per-cell values N·x[n, m] at n = 5"""

    key, alias, paper, number = "discrete_fig1", "nedelko_fig1", "discrete", "Fig 1"
    accepts = {"n": "integer in [0, N]"}
    N = _N()
    k = _k()
    n = param.Integer(5, bounds=(0, 400), doc="points n in the cell")

    def build(self) -> hv.Overlay:
        n = self.check("n", self.n, 0, self.N)
        return dplots.CellEstimatesDisplay.from_estimators(_METHODS, self.N, self.k, n=n).panels["fig1"].element()


class DiscreteFig2(PaperFigure):
    """Fig 2: exact RMS deviation S = sqrt(E(f − g)²) against p for the four estimators"""

    key, alias, paper, number = "discrete_fig2", "nedelko_fig2", "discrete", "Fig 2"
    N = _N()
    k = _k()
    n_p = param.Integer(101, bounds=(3, 2001), doc="values of p in [0, 1]")

    def build(self) -> hv.Overlay:
        return dplots.RmsDeviationDisplay.from_estimators(
            _METHODS, self.N, self.k, np.linspace(0, 1, self.n_p), title="Fig 2: RMS deviation S against p").element()
