"""Panel view: optimal error estimates in the discrete case (Nedelko 2009)."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pandas as pd
import panel as pn
import param

from buviz import discrete
from buviz.app.mathmd import math_markdown
from buviz.plots import discrete as dplots

BALANCED_MAX_N = 80  # the balanced-optimal iteration over n <= N costs seconds per (N, k) beyond this

FORMULAS = r"""
**Histogram classifier, k cells, N points.** Per cell ``x[n, m]``; estimate $f = \sum_j x_{m_j n_j}$,
true risk $g = \sum_j \alpha_j\,[q_j I(m_j > n_j - m_j) + p_j I(m_j < n_j - m_j) + \tfrac12 I(\text{tie})]$.

$\Delta = E(f-g)^2 = E f^2 - 2E fg + E g^2$, $S = \sqrt{\Delta}$, with
$E f = \sum_j \mu_\varphi(c_j)$, $E f^2 = \sum_j \sigma_\varphi(c_j) + \sum_{i\ne j}\omega_\varphi(c_i, c_j)$.

$\tilde x_{mn} = \min(m, n-m)/N$; $\ddot x = e^{-1}\tilde x + (1-e^{-1})\hat x$;
$x^*$: $\max_p \partial\Delta/\partial x_{mn} = -\min_p \partial\Delta/\partial x_{mn}$
(damped iteration, $\tau = 0.1$).
"""


@lru_cache(maxsize=32)
def _tables(N: int, k: int) -> dict[str, np.ndarray]:
    methods = [m for m in discrete.METHODS if m != "balanced_optimal" or N <= BALANCED_MAX_N]
    return {m: discrete.cell_values(m, N, N, k=k) for m in methods}


@lru_cache(maxsize=32)
def _curves(N: int, k: int, n_p: int = 101) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    p = np.linspace(0, 1, n_p)
    return p, {m: discrete.moments(x, N, k, p).S for m, x in _tables(N, k).items()}


class DiscreteEstimatorsView(pn.viewable.Viewer):
    """Tables 1-2, Fig 1 and Fig 2 of Nedelko (2009) for chosen N, k, p."""

    N = param.Integer(default=50, bounds=(2, 300), doc="sample size N")
    k = param.Integer(default=10, bounds=(1, 100), doc="number of cells k")
    p = param.Number(default=0.3, bounds=(0.0, 1.0), step=0.01, doc="P(y = 1 | x)")
    units = param.Selector(default="count", objects=["count", "probability"], doc="table units")
    n = param.Integer(default=5, bounds=(0, 300), doc="n for Fig 1")
    table_method = param.Selector(default="bootstrap632", objects=list(discrete.METHODS))
    mc_samples = param.Integer(default=4000, bounds=(100, 100_000))
    mc = param.DataFrame(default=None, allow_None=True, precedence=-1)

    def __init__(self, **params):
        super().__init__(**params)
        self.message = pn.pane.Alert("", alert_type="warning", visible=False)
        self.table_pane = pn.pane.HoloViews(sizing_mode="stretch_width")
        self.fig1_pane = pn.pane.HoloViews(sizing_mode="stretch_width")
        self.fig2_pane = pn.pane.HoloViews(sizing_mode="stretch_width")
        self.readout = pn.pane.DataFrame(sizing_mode="stretch_width")
        self.mc_button = pn.widgets.Button(label="Monte Carlo")
        self.mc_button.on_click(lambda event: self.run_monte_carlo())
        self.param.watch(self._clear_mc, ["N", "k"])
        self.param.watch(self._refresh, ["N", "k", "p", "units", "n", "table_method", "mc"])
        self._refresh()

    # ---------------------------------------------------------------- data
    def _clear_mc(self, *events):
        self.mc = None

    def data(self) -> dict:
        """Everything the elements are built from (raises ValueError on bad input)."""
        N, k = int(self.N), int(self.k)
        tables = _tables(N, k)
        p, S = _curves(N, k)
        if self.n > N:
            raise ValueError(f"n for Fig 1 must be <= N = {N}")
        at_p = {m: float(discrete.moments(x, N, k, float(self.p)).S) for m, x in tables.items()}
        return {"tables": tables, "p": p, "S": S, "S_at_p": at_p}

    def run_monte_carlo(self, n_points: int = 11, random_state: int = 0) -> pd.DataFrame | None:
        """Simulated S at a grid of p (and at the chosen p), overlaid on Fig 2."""
        try:
            N, k = int(self.N), int(self.k)
            rows = []
            grid = np.unique(np.r_[np.linspace(0, 1, n_points), self.p])
            for method, x in _tables(N, k).items():
                for i, pv in enumerate(grid):
                    f, g = discrete.simulate(x, N, k, float(pv), self.mc_samples, random_state=random_state + i)
                    sq = (f - g) ** 2
                    S = float(np.sqrt(sq.mean()))
                    se = float(sq.std(ddof=1) / np.sqrt(sq.size) / (2 * S)) if S > 0 else 0.0
                    rows.append({"method": method, "p": float(pv), "S": S, "se": se})
            self.mc = pd.DataFrame(rows)
        except ValueError as exc:
            self._show(str(exc))
        return self.mc

    # ---------------------------------------------------------------- views
    def _show(self, text: str):
        self.message.object = text
        self.message.visible = bool(text)

    def _refresh(self, *events):
        try:
            data = self.data()
        except ValueError as exc:
            self._show(f"Cannot compute: {exc}")
            return
        notes = []
        if "balanced_optimal" not in data["tables"]:
            notes.append(f"balanced-optimal x* is computed for N <= {BALANCED_MAX_N} only")
        self._show("; ".join(notes))
        method = self.table_method if self.table_method in data["tables"] else "bootstrap632"
        df = dplots.table_frame(data["tables"][method], self.N, units=self.units)
        self.table_pane.object = dplots.table_element(df).opts(title=f"{method} (N·x)" if self.units == "count"
                                                                else method)
        self.fig1_pane.object = dplots.fig1_estimates(data["tables"], int(self.n), self.N, units=self.units)
        fig2 = dplots.fig2_rms(data["p"], data["S"], p_mark=self.p)
        if self.mc is not None and len(self.mc):
            fig2 = fig2 * dplots.mc_points(self.mc)
        self.fig2_pane.object = fig2
        self.readout.object = pd.DataFrame({"S at p": data["S_at_p"]})

    #: Sidebar labels (what each control means, with units).
    LABELS = {
        "N": "Sample size N (training points)",
        "k": "Number of cells k (values of the discrete feature)",
        "p": "Class-1 probability p = P(y = 1 | x) in each cell",
        "units": "Table units: errors (N·x) or probability (x)",
        "n": "Fig 1: points n in one cell (0 … N)",
        "table_method": "Estimator shown in the table",
        "mc_samples": "Monte Carlo samples per p (simulated training sets)",
    }

    def controls(self) -> pn.Column:
        """The view's controls (the explorer shows them in its sidebar while this tab is open)."""
        widgets = pn.Param(
            self.param, parameters=list(self.LABELS), show_name=False,
            widgets={"N": {"type": pn.widgets.IntSlider, "throttled": True, "name": self.LABELS["N"]},
                     "k": {"type": pn.widgets.IntSlider, "throttled": True, "name": self.LABELS["k"]},
                     "p": {"type": pn.widgets.FloatSlider, "throttled": True, "name": self.LABELS["p"]},
                     "units": {"type": pn.widgets.RadioButtonGroup, "name": self.LABELS["units"]},
                     **{k: {"name": self.LABELS[k]} for k in ("n", "table_method", "mc_samples")}},
        )
        return pn.Column(pn.pane.Markdown("### Discrete case (Nedelko 2009)"), widgets, self.mc_button,
                         sizing_mode="stretch_width")

    def main(self) -> pn.Column:
        """The view's tables, figures and formulas."""
        return pn.Column(self.message, self.table_pane, pn.Row(self.fig1_pane, self.fig2_pane), self.readout,
                         math_markdown(FORMULAS, sizing_mode="stretch_width", styles={"overflow-x": "auto"}),
                         sizing_mode="stretch_width")

    def __panel__(self):
        return pn.Row(pn.Column(self.controls(), width=330), self.main())
