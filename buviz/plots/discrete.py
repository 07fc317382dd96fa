"""Displays of the discrete case (Nedel'ko 2009): Tables 1-2 and Fig 1 (:class:`CellEstimatesDisplay`),
Fig 2 with a simulation's points (:class:`RmsDeviationDisplay`), and the table helpers they draw with;
no widgets, no panel.

V. M. Nedel'ko, "Optimization of the misclassification probability estimate in the discrete case"
(in Russian), XVth International Conference Knowledge-Dialogue-Solution KDS 2009, Varna, Bulgaria, 2009.
"""

from __future__ import annotations

from collections.abc import Mapping

import holoviews as hv
import numpy as np
import pandas as pd

from buviz.plots import style
from buviz.plots._display import Display

LABELS = {
    "resubstitution": "1: resubstitution",
    "loo": "2: leave-one-out",
    "bootstrap632": "3: .632 bootstrap",
    "balanced_optimal": "4: balanced-optimal x*",
}


def _color(method: str) -> str:
    return style.METHOD_COLORS.get(method, style.PALETTE[-1])


def table_frame(x: np.ndarray, N: int, *, units: str = "count", n_rows: int = 9, m_cols: int = 6) -> pd.DataFrame:
    """Table 1-2 layout: rows n, columns m; ``units="count"`` prints the paper's ``N * x``."""
    if units not in ("count", "probability"):
        raise ValueError(f"units must be 'count' or 'probability', got {units!r}")
    x = np.asarray(x, dtype=float)[:n_rows, :m_cols]
    vals = x * N if units == "count" else x
    df = pd.DataFrame(vals, index=pd.Index(range(x.shape[0]), name="n"), columns=[f"m={m}" for m in range(x.shape[1])])
    return df


def table_element(df: pd.DataFrame, *, decimals: int = 4) -> hv.Table:
    """hv.Table from :func:`table_frame`, its values printed with ``decimals`` (the empty cells m > n
    left blank: every column holds text, so a layout with the table computes its ranges)."""
    values = df.map(lambda v: "" if pd.isna(v) else f"{v:.{decimals}f}").reset_index()
    return hv.Table(values, kdims=["n"], vdims=[c for c in values.columns if c != "n"])


def _ylabel(units: str) -> str:
    return "N·x[n, m] (errors)" if units == "count" else "x[n, m] (probability)"


def _cell_curves(tables: Mapping[str, np.ndarray], n: int, N: int, units: str, methods, title=None) -> hv.Overlay:
    """Fig 1's layers: each estimator's ``x[n, m]`` against m at fixed n, a curve and its points per
    estimator of ``methods`` (empty for one that ``tables`` lacks); the y axis is named after ``units``."""
    scale = N if units == "count" else 1.0
    y_dim = hv.Dimension("x", label=_ylabel(units))
    empty = np.empty(0)
    elements = []
    for method in methods:
        x = tables.get(method)
        m, y = (np.arange(n + 1), np.asarray(x, dtype=float)[n, : n + 1] * scale) if x is not None else (empty, empty)
        label, color = LABELS.get(method, method), _color(method)
        elements.append(style.opts(hv.Curve((m, y), "m", y_dim, label=label), color=color, framewise=True))
        elements.append(style.opts(hv.Scatter((m, y), "m", y_dim, label=label), color=color, size=5, framewise=True))
    if title is not None:  # on an element: the live overlay takes its title from its layers' elements
        elements[0] = style.opts(elements[0], title=title)
    return hv.Overlay(elements)


def _table_title(method: str, units: str) -> str:
    name = LABELS.get(method, method)
    return f"{name} (N·x)" if units == "count" else name


def _estimate_frame(tables, method, N, units, n_rows, m_cols) -> pd.DataFrame:
    x = tables.get(method, np.empty((0, 0)))  # no tables yet: an empty table
    return table_frame(x, N, units=units, n_rows=n_rows, m_cols=m_cols)


def _estimate_table(tables, method, N, units, n_rows, m_cols) -> hv.Table:
    frame = _estimate_frame(tables, method, N, units, n_rows, m_cols)
    return table_element(frame).opts(title=_table_title(method, units))


class CellEstimatesDisplay(Display):
    """Tables 1-2 and Fig 1 of Nedel'ko (2009): the per-cell values ``x[n, m]`` of the error estimators
    of a histogram classifier (the estimated error of a cell holding n of the N points, m of them of
    the minority class), live.

    Two panels: ``table`` (one estimator's ``x[n, m]``, rows n and columns m, as Tables 1-2 print
    them) and ``fig1`` (every estimator's ``x[n, m]`` against m at one n, Fig 1). Fig 1's layers
    are the same whatever the data: a curve and its points per estimator of :data:`LABELS`, empty
    for an estimator that :attr:`tables` lacks.

    Parameters
    ----------
    tables : dict of str to ndarray
        Estimator (``"resubstitution"``, ``"loo"``, ``"bootstrap632"``, ``"balanced_optimal"``) -> its
        cell values ``x[n, m]`` for ``0 <= m <= n <= N`` (:func:`buviz.discrete.cell_values`); empty
        draws an empty table and no curves.
    N : int
        The sample size.
    n : int, default=5
        The cell count of Fig 1, ``0 <= n <= N``.
    units : {"count", "probability"}, default="count"
        ``"count"`` draws the paper's ``N·x`` (expected errors), ``"probability"`` draws ``x``.
    table_method : str, default="bootstrap632"
        The estimator of the table (one of :attr:`tables`).
    n_rows, m_cols : int, default=9, 6
        The rows n and columns m the table shows.
    title : str, optional
        Fig 1's title (default: it names n).

    Raises
    ------
    ValueError
        If ``n`` is not in [0, N], ``units`` is unknown, or ``table_method`` is not one of ``tables``
        (at construction and at :meth:`update`).
    """

    _fields = ("tables", "N", "n", "units", "table_method")

    def __init__(self, *, tables: Mapping[str, np.ndarray], N: int, n: int = 5, units: str = "count",
                 table_method: str = "bootstrap632", n_rows: int = 9, m_cols: int = 6, title: str | None = None):
        super().__init__(title=title)
        self._check(dict(tables=tables, N=N, n=n, units=units, table_method=table_method))
        self.tables = {m: np.asarray(x, dtype=float) for m, x in tables.items()}
        self.N, self.n, self.units, self.table_method = int(N), int(n), units, table_method
        self.n_rows, self.m_cols = int(n_rows), int(m_cols)

    @classmethod
    def from_estimators(cls, methods, N: int, k: int, **kw) -> CellEstimatesDisplay:
        """Compute the cell values of each estimator in ``methods`` for ``N`` points in ``k`` cells
        (:func:`buviz.discrete.cell_values`); ``kw`` as for the constructor."""
        from buviz import discrete

        return cls(tables={m: discrete.cell_values(m, N, N, k=k) for m in methods}, N=N, **kw)

    @staticmethod
    def _check(data: dict) -> None:
        N, n, units = int(data["N"]), int(data["n"]), data["units"]
        if not 0 <= n <= N:
            raise ValueError(f"n must be in [0, N] = [0, {N}], got {n}")
        if units not in ("count", "probability"):
            raise ValueError(f"units must be 'count' or 'probability', got {units!r}")
        if data["tables"] and data["table_method"] not in data["tables"]:
            raise ValueError(f"table_method must be one of the tables {sorted(data['tables'])}, "
                             f"got {data['table_method']!r}")

    @property
    def table_title(self) -> str:
        """The title of the table: the estimator, and the units when they are the paper's counts."""
        return _table_title(self.table_method, self.units)

    def estimate_table(self) -> pd.DataFrame:
        """What the panel ``table`` draws, as a DataFrame: ``x[n, m]`` of :attr:`table_method` in
        :attr:`units` (:func:`table_frame`; rows n, columns m, NaN where m > n)."""
        return _estimate_frame(**self._table_args())

    def _table_args(self) -> dict:
        return {"tables": self.tables, "method": self.table_method, "N": self.N, "units": self.units,
                "n_rows": self.n_rows, "m_cols": self.m_cols}

    def update(self, **data) -> list[str]:
        """Show new data (:meth:`Display.update`); named attributes are checked together with the ones kept."""
        if "result" not in data:
            self._check({**{k: getattr(self, k) for k in self._fields}, **data})
        return super().update(**data)

    def _panels(self) -> dict:
        return {"table": dict(builders={"table": _estimate_table}),
                "fig1": dict(builders={"estimates": _cell_curves}, opts=dict(style.LEGEND_BELOW))}

    def _args(self) -> dict:
        title = self.title if self.title is not None else f"Fig 1: per-cell estimates at n = {self.n}"
        return {"table": {"table": self._table_args()},
                "fig1": {"estimates": {"tables": self.tables, "n": self.n, "N": self.N, "units": self.units,
                                       "methods": [*LABELS, *(m for m in self.tables if m not in LABELS)],
                                       "title": title}}}


class RmsDeviationDisplay(Display):
    """Fig 2 of Nedel'ko (2009), live: the exact RMS deviation S = sqrt(E(f − g)²) of each error
    estimator against the error probability p, for N samples over k cells, and a simulation's S ± 2 se
    at some p over it.

    V. M. Nedel'ko, "Estimating a quality of decision function by empirical risk", 2009 (see
    :mod:`buviz.discrete`).

    The layers are the same whatever the data, so a live figure keeps them: a curve and a set of
    simulated points per estimator of :data:`LABELS` (an estimator without data draws nothing and
    leaves the legend), and the line at ``p_mark``.

    Parameters
    ----------
    p : ndarray
        The error probabilities on the x axis.
    S : dict of str to ndarray
        Estimator (``"resubstitution"``, ``"loo"``, ``"bootstrap632"``, ``"balanced_optimal"``) -> S at ``p``.
    p_mark : float, optional
        A dashed vertical line at this p.
    monte_carlo : DataFrame, optional
        Simulated S: columns ``method``, ``p``, ``S`` and ``se`` (its standard error), one row per
        estimator and p (:func:`buviz.discrete.simulate_rms_deviation_curve`); points with ±2 se bars.
    title : str, optional
    """

    _fields = ("p", "S", "p_mark", "monte_carlo")

    def __init__(self, *, p, S: Mapping[str, np.ndarray], p_mark: float | None = None,
                 monte_carlo: pd.DataFrame | None = None, title: str | None = "Fig 2: RMS deviation S against p"):
        super().__init__(title=title)
        self.p = np.asarray(p, dtype=float)
        self.S = {k: np.asarray(v, dtype=float) for k, v in S.items()}
        self.p_mark = p_mark
        self.monte_carlo = monte_carlo

    @classmethod
    def from_estimators(cls, methods, N: int, k: int, p=None, *, p_mark: float | None = None,
                        monte_carlo: pd.DataFrame | None = None, title: str | None = None) -> RmsDeviationDisplay:
        """Compute S of each estimator in ``methods`` for ``N`` samples and ``k`` cells at ``p``
        (51 points on [0, 1] by default) with :func:`buviz.discrete.rms_deviation`."""
        from buviz import discrete

        p = np.linspace(0.0, 1.0, 51) if p is None else np.asarray(p, dtype=float)
        S = {m: discrete.rms_deviation(m, N, k, p) for m in methods}
        return cls(p=p, S=S, p_mark=p_mark, monte_carlo=monte_carlo,
                   title=title if title is not None else f"S against p, N = {N}, k = {k}")

    @classmethod
    def from_table(cls, table, *, p_mark: float | None = None, title: str | None = None) -> RmsDeviationDisplay:
        """A display of a table of S against p in long form: columns ``method``, ``p`` and ``S`` (one row
        per estimator and p; e.g. a simulation's, from
        :func:`buviz.discrete.simulate_rms_deviation_curve`). Every estimator must have the same p.

        Raises
        ------
        ValueError
            If a column is missing or the estimators' p differ.
        """
        missing = {"method", "p", "S"} - set(table.columns)
        if missing:
            raise ValueError(f"table must have the columns method, p and S; missing {sorted(missing)}")
        groups = {m: sub.sort_values("p") for m, sub in table.groupby("method", sort=False)}
        if not groups:
            raise ValueError("table must have at least one row")
        p = next(iter(groups.values()))["p"].to_numpy(dtype=float)
        if any(not np.array_equal(sub["p"].to_numpy(dtype=float), p) for sub in groups.values()):
            raise ValueError("table must give every method the same values of p")
        S = {m: sub["S"].to_numpy(dtype=float) for m, sub in groups.items()}
        return cls(p=p, S=S, p_mark=p_mark, title=title if title is not None else "S against p")

    def _methods(self) -> list[str]:
        return [*LABELS, *(m for m in self.S if m not in LABELS)]

    def _panels(self) -> dict:
        return {"rms": dict(builders={"curves": _rms_curves, "monte_carlo": _mc_layers, "mark": _p_mark},
                            opts={"framewise": True, **style.LEGEND_BELOW})}

    def _args(self) -> dict:
        methods = self._methods()
        return {"rms": {"curves": {"p": self.p, "S": self.S, "methods": methods, "title": self.title},
                        "monte_carlo": {"table": self.monte_carlo, "methods": methods},
                        "mark": {"p_mark": self.p_mark}}}


def _rms_curves(p, S, methods, title=None) -> hv.Overlay:
    """A curve of S against p per estimator of ``methods``, empty for one that ``S`` lacks."""
    empty = np.empty(0)
    curves = [style.opts(hv.Curve((p if m in S else empty, S.get(m, empty)), "p", "S", label=LABELS.get(m, m)),
                         color=_color(m), framewise=True) for m in methods]
    if title is not None:  # on an element: the live overlay takes its title from its layers' elements
        curves[0] = style.opts(curves[0], title=title)
    return hv.Overlay(curves)


def _mc_layers(table, methods) -> hv.Overlay:
    """The simulated S of ``table`` (columns method, p, S, se): points with ±2 se bars, a point set and
    its bars for every estimator of ``methods`` (empty where the table has none)."""
    cols = ["method", "p", "S", "se"]
    table = pd.DataFrame(columns=cols) if table is None else table
    elements = []
    for m in methods:
        sub = table[table["method"] == m]
        p, S, se = (sub[c].to_numpy(dtype=float) for c in ("p", "S", "se"))
        elements.append(style.opts(hv.Scatter((p, S), "p", "S", label=LABELS.get(m, m) + " (MC)"),
                                   color=_color(m), size=6, framewise=True))
        elements.append(style.opts(hv.ErrorBars((p, S, 2 * se), "p", ["S", "yerr"]), color=_color(m),
                                   framewise=True))
    return hv.Overlay(elements)


def _p_mark(p_mark) -> hv.VLine:
    return style.opts(hv.VLine(np.nan if p_mark is None else float(p_mark), kdims=["p", "S"]), color="#777777",
                      line_dash="dashed")
