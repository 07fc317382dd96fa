"""Panel view: optimal error estimates in the discrete case (V. M. Nedelko, "Estimating the Quality
of Classifiers in the Discrete Case", 2009). The tables, curves and Monte Carlo are computed by
:mod:`buviz.app.tasks` (one cache) on the session's job bus, each in a result store of its own
(:attr:`DiscreteEstimatorsView.tables`, :attr:`DiscreteEstimatorsView.monte_carlo`, both
:class:`~buviz.app.bus.Requested`); the view asks for them and updates displays
created once: the table and Fig 1 are a :class:`~buviz.plots.discrete.CellEstimatesDisplay`, Fig 2
with its Monte Carlo points a :class:`~buviz.plots.discrete.RmsDeviationDisplay`."""

from __future__ import annotations

import numpy as np
import pandas as pd
import panel as pn
import param

from buviz import discrete
from buviz.app import tasks
from buviz.app._panel_compat import WrappingRow
from buviz.app.bus import JobBus, Requested
from buviz.app.mathmd import math_markdown
from buviz.plots import discrete as dplots

BALANCED_MAX_N = tasks.BALANCED_MAX_N

FORMULAS = r"""
**Histogram classifier, k cells, N points.** Per cell ``x[n, m]``; estimate $f = \sum_j x_{m_j n_j}$,
true risk $g = \sum_j \alpha_j\,[q_j I(m_j > n_j - m_j) + p_j I(m_j < n_j - m_j) + \tfrac12 I(\text{tie})]$.

$\Delta = E(f-g)^2 = E f^2 - 2E fg + E g^2$, $S = \sqrt{\Delta}$, with
$E f = \sum_j \mu_\varphi(c_j)$, $E f^2 = \sum_j \sigma_\varphi(c_j) + \sum_{i\ne j}\omega_\varphi(c_i, c_j)$.

$\tilde x_{mn} = \min(m, n-m)/N$; $\ddot x = e^{-1}\tilde x + (1-e^{-1})\hat x$;
$x^*$: $\max_p \partial\Delta/\partial x_{mn} = -\min_p \partial\Delta/\partial x_{mn}$
(damped iteration, $\tau = 0.1$).
"""


#: What the short sidebar labels leave out (a label wider than the sidebar is clipped).
_CONTROLS_NOTE = ("<small>k: the values of the discrete feature (the histogram's cells). Monte Carlo: "
                  "simulated training sets per p, drawn as points on Fig 2.</small>")


class DiscreteControls(param.Parameterized):
    """What the user chose on the Discrete tab (the *State* role, as the explorer's
    :class:`~buviz.app.controls.Controls`): the case (N, k, p) and how its results are shown. Nothing
    else writes them: the view reads them, asks its result stores and draws what they deliver."""

    N = param.Integer(default=50, bounds=(2, 300), doc="sample size N")
    k = param.Integer(default=10, bounds=(1, 100), doc="number of cells k")
    p = param.Number(default=0.3, bounds=(0.0, 1.0), step=0.01, doc="P(y = 1 | x)")
    units = param.Selector(default="count", objects=["count", "probability"], doc="table units")
    n = param.Integer(default=5, bounds=(0, 300), doc="n for Fig 1")
    table_method = param.Selector(default="bootstrap632", objects=list(discrete.METHODS))
    mc_samples = param.Integer(default=4000, bounds=(100, 100_000))


class DiscreteEstimatorsView(pn.viewable.Viewer):
    """Tables 1-2, Fig 1 and Fig 2 of Nedelko (2009) for chosen N, k, p (:attr:`controls`)."""

    controls = param.ClassSelector(class_=DiscreteControls, constant=True, doc=(
        "What the user chose (N, k, p and how the results are shown); by default new ones from the keywords"))
    bus = param.ClassSelector(class_=JobBus, default=None, precedence=-1, constant=True,
                              doc="The session's job bus, which computes the tables, curves and Monte Carlo")

    #: The size of Fig 1 and Fig 2 (px, the legend below the frame included): side by side at 1600 px,
    #: one below the other at 1280 px, where their row wraps.
    _SIZE = dict(width=460, height=400)

    def __init__(self, **params):
        if params.get("bus") is None:
            params["bus"] = JobBus()
        values = {k: params.pop(k) for k in list(params) if k in DiscreteControls.param and k != "name"}
        if params.get("controls") is None:
            params["controls"] = DiscreteControls(**values)
        super().__init__(**params)
        c = self.controls
        #: the tables, Fig 1's estimates and Fig 2's curves of the current (N, k, p)
        self.tables = Requested(self.bus, "discrete", tasks.discrete_view, label="discrete tables")
        #: the latest Monte Carlo asked for (drawn on Fig 2 when it answers the current N and k)
        self.monte_carlo = Requested(self.bus, "monte-carlo", tasks.discrete_monte_carlo, label="Monte Carlo")
        self.message = pn.pane.Alert("", alert_type="warning", visible=False)
        # displays created once, fed by update(): the live figures keep their glyphs. Fig 1 and Fig 2 at a
        # fixed size (_SIZE): a live plot stretched to its pane is laid out again at each update
        self.estimates = dplots.CellEstimatesDisplay(tables={}, N=c.N, n=min(c.n, c.N), units=c.units,
                                                     table_method=c.table_method)
        # the table as HTML: a Bokeh DataTable fed by a stream keeps the first data it drew in the browser
        # (its source changes on the server, the page shows the first table: measured in Chromium)
        self.table_title = pn.pane.Markdown("", margin=(0, 10))
        self.table_pane = pn.pane.DataFrame(None, na_rep="", float_format="{:.4f}".format, sizing_mode="stretch_width")
        self.fig1_pane = pn.pane.HoloViews(self.estimates.plot(panel="fig1", **self._SIZE), linked_axes=False)
        self.fig2 = dplots.RmsDeviationDisplay(p=np.empty(0), S={})
        self.fig2_pane = pn.pane.HoloViews(self.fig2.plot(**self._SIZE), linked_axes=False)
        self.readout = pn.pane.DataFrame(sizing_mode="stretch_width")
        self.mc_button = pn.widgets.Button(label="Monte Carlo")
        self.mc_button.on_click(lambda event: self.run_monte_carlo())
        c.param.watch(self._request, ["N", "k", "p"])
        c.param.watch(self._refresh, ["units", "n", "table_method"])
        for result in (self.tables, self.monte_carlo):
            result.param.watch(self._on_result, ["key", "value", "state"])
        self._request()  # served, the first picture arrives from the runner (never on the event loop)

    # ---------------------------------------------------------------- data (the result stores' outputs)
    def _key(self) -> tasks.DiscreteKey:
        c = self.controls
        return tasks.DiscreteKey(c.N, c.k, c.p)

    def _request(self, *events) -> None:
        self.tables.request(self._key())

    def data(self) -> dict | None:
        """Everything the elements are built from, for the current N, k and p (None while the store
        computes it)."""
        return self.tables.value_for(self._key())

    @property
    def mc(self) -> pd.DataFrame | None:
        """The Monte Carlo of the current N and k (:attr:`monte_carlo`'s value), or None."""
        got = self.monte_carlo
        c = self.controls
        return got.value if got.key is not None and (got.key.N, got.key.k) == (int(c.N), int(c.k)) else None

    @property
    def mc_state(self) -> str:
        """What the Monte Carlo job is doing ('' before the first)."""
        return self.monte_carlo.state

    def _on_result(self, *events) -> None:
        """Redraw for a new result, or for a job of this view that failed or recovered (not for one that
        merely started)."""
        if any(e.name != "state" or "error" in f"{e.old}{e.new}" for e in events):
            self._refresh()

    def run_monte_carlo(self, n_points: int = 11, random_state: int = 0) -> pd.DataFrame | None:
        """Simulated S at a grid of p (and at the chosen p), overlaid on Fig 2, computed in the background
        (:attr:`monte_carlo`, latest wins); returns the Monte Carlo for the current N and k (:attr:`mc`):
        this one when it is there at once (from the cache), else the previous one (or
        None) until it arrives and the figure follows."""
        c = self.controls
        self.monte_carlo.request(tasks.MonteCarloKey(c.N, c.k, c.p, c.mc_samples, n_points, random_state))
        return self.mc

    # ---------------------------------------------------------------- views
    def _show(self, text: str):
        self.message.object = text
        self.message.visible = bool(text)

    def _refresh(self, *events):
        notes, state, c = [], self.tables.state, self.controls
        if state.startswith("error: "):
            notes.append(f"Cannot compute: {state.removeprefix('error: ')}")
        if c.n > c.N:
            notes.append(f"Cannot compute: n for Fig 1 must be <= N = {int(c.N)}")
        if self.mc_state.startswith("error: "):  # shown, but the exact figures are still drawn
            notes.append(f"Monte Carlo failed: {self.mc_state.removeprefix('error: ')}")
        data = self.data()
        if any(n.startswith("Cannot") for n in notes) or data is None:  # the last good figures stay
            self._show("; ".join(notes))
            return
        if "balanced_optimal" not in data["tables"]:
            notes.append(f"balanced-optimal x* is computed for N <= {BALANCED_MAX_N} only")
        self._show("; ".join(notes))
        method = c.table_method if c.table_method in data["tables"] else "bootstrap632"
        self.estimates.update(tables=data["tables"], N=c.N, n=c.n, units=c.units, table_method=method)
        self.table_title.object = f"**Table: {self.estimates.table_title}**"
        self.table_pane.object = self.estimates.estimate_table()
        self.fig2.update(p=data["p"], S=data["S"], p_mark=c.p, monte_carlo=self.mc)
        self.readout.object = pd.DataFrame({"S at p": data["S_at_p"]})

    #: Sidebar labels (what each control means, with units).
    LABELS = {
        "N": "Sample size N (training points)",
        "k": "Number of cells k",
        "p": "Class-1 probability p = P(y = 1 | x) in each cell",
        "units": "Table units: errors (N·x) or probability (x)",
        "n": "Fig 1: points n in one cell (0 … N)",
        "table_method": "Estimator shown in the table",
        "mc_samples": "Monte Carlo samples per p",
    }

    def sidebar(self) -> pn.Column:
        """The widgets of :attr:`controls` (the explorer shows them in its sidebar while this tab is open)."""
        widgets = pn.Param(
            self.controls.param, parameters=list(self.LABELS), show_name=False,
            widgets={"N": {"type": pn.widgets.IntSlider, "throttled": True, "name": self.LABELS["N"]},
                     "k": {"type": pn.widgets.IntSlider, "throttled": True, "name": self.LABELS["k"]},
                     "p": {"type": pn.widgets.FloatSlider, "throttled": True, "name": self.LABELS["p"]},
                     "units": {"type": pn.widgets.RadioButtonGroup, "name": self.LABELS["units"]},
                     **{k: {"name": self.LABELS[k]} for k in ("n", "table_method", "mc_samples")}},
        )
        return pn.Column(pn.pane.Markdown("### Discrete case (Nedelko 2009)"), widgets,
                         pn.pane.Markdown(_CONTROLS_NOTE, margin=(0, 10)), self.mc_button,
                         sizing_mode="stretch_width")

    def main(self) -> pn.Column:
        """The view's tables, figures and formulas."""
        return pn.Column(self.message, self.table_title, self.table_pane, WrappingRow(self.fig1_pane, self.fig2_pane),
                         self.readout,
                         math_markdown(FORMULAS, sizing_mode="stretch_width", styles={"overflow-x": "auto"}),
                         sizing_mode="stretch_width")

    def __panel__(self):
        return pn.Row(pn.Column(self.sidebar(), width=330), self.main())
