"""Panel view: accuracy extrapolation through D̄(u).

After C. Zheng, R. Achanta and Y. Benjamini, Journal of Machine Learning Research 19, 2018.

``ExtrapolationView().__panel__()`` returns a layout with four tabs:

(a) *Toy model* -- the bivariate-normal example with a ρ slider: U_x(y) level sets, D̄(u), the
    k-class risk distribution with Theorem 4.1's average, polynomial approximation error of D̄.
(b) *Extrapolation* -- a population (synthetic Gaussian labels or ``load_digits``), a classifier, the
    number K of observed classes, the estimator and the moment method's basis; the curves show
    AverageTA_k (eq 3) on the K classes, each extrapolation and the ground truth. A button runs the
    Table-1-style comparison of classifiers (K = 20 -> k = 400).
(c) *ClassEx comparison* -- each method against the ClassEx R package's predictions on its fixture.
(d) *Schematics* -- the paper's schematic figures (Figs 1-4, 9, 10), each drawn from a real computation
    (:data:`buviz.app.gallery.ZHENG_SCHEMATICS`), the first one when the sub-tab first opens.
"""

from __future__ import annotations

import pandas as pd
import panel as pn
import param

from buviz import extrapolation as ex
from buviz.app import tasks
from buviz.app._panel_compat import WrappingRow
from buviz.app.bus import JobBus, Requested
from buviz.app.gallery import ZHENG_SCHEMATICS, FigureGallery
from buviz.plots.extrapolation_displays import ExtrapolationDisplay, ToyModelDisplay

__all__ = ["ExtrapolationView", "ExtrapolationControls"]

_POPULATIONS = ("gaussian", "digits")
_N_CLASSES = tasks.N_POPULATION_CLASSES

_TOY_MD = r"""
**Toy model (§4.1).** $Y \sim N(0,1)$, $X \mid Y=y \sim N(\rho y, 1-\rho^2)$, Bayes rule.
Conditional accuracy (the paper prints its complement, the error):
$U_x(y) = 1 - [\Phi(\tfrac{x+|\rho y-x|}{\rho}) - \Phi(\tfrac{x-|\rho y-x|}{\rho})]$,
$\bar D(u) = P(U \le u)$ and (Theorem 4.1, sign of eq 10-12 corrected)
$\mathrm{AvRisk}_k = 1 - \mathrm{AGA}_k = (k-1)\int_0^1 \bar D(u)\,u^{k-2}\,du$.
"""

_EXT_MD = r"""
**Extrapolation.** Exact subsampled accuracy (eq 3):
$\mathrm{AverageTA}_k = \binom{k_1}{k}^{-1} \frac{1}{r_2 k}\sum_{i,j}\binom{R_{iji}-1}{k-1}$.
Moment method: $\bar D = \sum_\ell \beta_\ell h_\ell$,
$\widehat{\mathrm{AGA}}_k = 1-\sum_\ell \hat\beta_\ell H_{\ell k}$ (eq 14).
ClassExReg regresses $\mathrm{AverageTA}_k$ on $E[\Phi(Z)^{k-1}]$, $Z\sim N(t_\ell,h^2)$; KDE uses
$\widehat{\mathrm{AGA}}_k = \overline{a^{k-1}}$.
*Measured (see benchmarks/bench_extrapolation.py):* the seed's plain linear-spline moment method is far
less accurate than ClassExReg on the peers' 1-NN benchmark, and no estimator is reliable for a
20x extrapolation from K = 20 classes -- treat the curves as indications, not guarantees.
"""


_PEER_MD = """
**Against the reference implementation.** One instance of the 1-NN Gaussian benchmark of the ClassEx R
package (500 observed of 2000 classes, its own simulation and predictions): the observed AverageTA_k,
each method's extrapolation, the exact 2000-class accuracy (star) and the R package's ClassExReg, KDE-UCV
and KDE-BCV predictions (markers). Over the 30 instances (`benchmarks/bench_extrapolation.py`), max RMSE:
R ClassExReg 0.043, KDE-UCV 0.065; buviz `best` 0.038.
"""


class ExtrapolationControls(param.Parameterized):
    """What the user chose on the Extrapolation tab (the *State* role, as the explorer's
    :class:`~buviz.app.controls.Controls`). Nothing else writes them: the view reads them, asks its
    result stores and draws what they deliver."""

    rho = param.Number(default=0.7, bounds=(0.0, 0.95), step=0.05, doc="Toy-model correlation ρ")
    population = param.Selector(default="gaussian", objects=list(_POPULATIONS))
    pop_rho = param.Number(default=0.8, bounds=(0.3, 0.95), step=0.05,
                           doc="ρ of the synthetic Gaussian label population")
    classifier = param.Selector(default="nearest_centroid", objects=list(ex.CLASSIFIERS))
    K = param.Integer(default=20, bounds=(2, 200), doc="Number K of observed classes")
    method = param.Selector(default="all", objects=["all", *ex.METHODS])
    basis = param.Selector(default="linear_spline", objects=list(ex.BASES))
    seed = param.Integer(default=0, bounds=(0, 10_000))
    fixture_index = param.Integer(default=0, bounds=(0, 29), doc="Instance of the ClassEx fixture")


class ExtrapolationView(pn.viewable.Viewer):
    """Toy model and accuracy-extrapolation dashboard (mount ``__panel__()`` as a tab), for the choices
    in :attr:`controls`."""

    controls = param.ClassSelector(class_=ExtrapolationControls, constant=True, doc=(
        "What the user chose (the toy model's ρ, the population, classifier, K and estimator, the fixture); "
        "by default new ones from the keywords"))
    bus = param.ClassSelector(class_=JobBus, default=None, precedence=-1, constant=True,
                              doc="The session's job bus, which computes the curves and tables in the background")

    _SIZE = dict(width=420, height=360)
    #: The size of the extrapolation and ClassEx plots: within the main area beside the sidebar at 1024 px.
    _WIDE = dict(width=640, height=420)

    def __init__(self, **params):
        if params.get("bus") is None:
            params["bus"] = JobBus()
        values = {k: params.pop(k) for k in list(params) if k in ExtrapolationControls.param and k != "name"}
        if params.get("controls") is None:
            params["controls"] = ExtrapolationControls(**values)
        super().__init__(**params)
        # one result store per part (the results' own outputs: key, value, state), all on the session's bus
        #: the toy model of the current ρ
        self.toy_model = Requested(self.bus, "extrapolation-toy", tasks.toy_model)
        #: AverageTA_k on the K observed classes, each estimator's curve and the truth
        self.curves = Requested(self.bus, "extrapolation-curves", tasks.extrapolation_curves)
        #: each method against the ClassEx R package on one fixture instance
        self.classex = Requested(self.bus, "extrapolation-classex", tasks.peer_comparison)
        #: the interval for AGA at the population's class count, with its truth
        self.interval = Requested(self.bus, "extrapolation-interval", tasks.extrapolation_interval)
        #: the Table-1-style comparison of classifiers (heavy lane: a button asks for it)
        self.comparison = Requested(self.bus, "extrapolation-comparison", tasks.classifier_comparison, lane="heavy",
                                    label="classifier comparison")
        self._button = pn.widgets.Button(label="Compare classifiers (Table 1 style)", color="primary")
        self._button.on_click(self._run_table)
        self._table_note = pn.pane.Markdown("*Press the button to compare classifiers (K = 20 → k = 400).*")
        # tables as HTML (pn.pane.DataFrame): a Tabulator widget needs its JavaScript extension loaded with
        # the page, which a view built when its tab first opens cannot ask for ("Tabulator is not defined",
        # and the browser page hung)
        self._table = pn.pane.DataFrame(None, index=False, visible=False, sizing_mode="stretch_width")
        self.last_error: str | None = None
        self._requested: tasks.PopulationKey | None = None  # the key of the last comparison asked for
        # every pane created once; each shows a display's live figure, created from the first data the
        # store delivers and fed by its update() after that (the figures keep their glyphs)
        self.toy: ToyModelDisplay | None = None
        self.ext: ExtrapolationDisplay | None = None
        self.peer: ExtrapolationDisplay | None = None
        self.toy_panes = {k: pn.pane.HoloViews(None, linked_axes=False) for k in ToyModelDisplay.NAMES}
        self.ext_pane = pn.pane.HoloViews(None, linked_axes=False)
        self.ext_table = pn.pane.DataFrame(None, index=False, sizing_mode="stretch_width")
        self.fit_pane = pn.pane.HoloViews(None, linked_axes=False, visible=False)
        self.peer_pane = pn.pane.HoloViews(None, linked_axes=False)
        self.peer_table = pn.pane.DataFrame(None, index=False, sizing_mode="stretch_width")
        self.interval_note = pn.pane.Markdown("", sizing_mode="stretch_width", css_classes=["buviz-interval"])
        self.alerts = {k: pn.pane.Alert("", alert_type="danger", visible=False)
                       for k in ("toy", "ext", "peer", "interval")}
        #: Zheng et al.'s schematic figures (the Schematics sub-tab), drawn within the plots' width
        self.schematics = FigureGallery(bus=self.bus, keys=list(ZHENG_SCHEMATICS), result="schematic",
                                        screen_width=self._WIDE["width"])
        for part, (attr, _) in self.PARTS.items():
            getattr(self, attr).param.watch(lambda *events, part=part: self._show(part), ["key", "value", "state"])
        self.comparison.param.watch(lambda *events: self._show_table(), ["key", "value", "state"])
        for part in self.PARTS:  # served, the first pictures arrive from the runner
            self._request(part)

    # ------------------------------------------------------------------ data (the result stores' outputs)
    #: What each part of the view shows: (its result store, the task's key from the view's controls).
    #: The stores compute them (cached steps of :mod:`buviz.app.tasks`).
    PARTS = {
        "toy": ("toy_model", lambda v: float(v.rho)),
        "ext": ("curves", lambda v: tasks.CurvesKey(tasks.PopulationKey(v.population, v.pop_rho, v.seed), v.classifier,
                                                    v.K, v.method, v.basis)),
        "peer": ("classex", lambda v: int(v.fixture_index)),
        "interval": ("interval", lambda v: ExtrapolationView.PARTS["ext"][1](v)),
    }

    def _key(self, part: str):
        return self.PARTS[part][1](self.controls)

    def _result(self, part: str) -> Requested:
        return getattr(self, self.PARTS[part][0])

    def _request(self, part: str) -> None:
        self._result(part).request(self._key(part))

    def _data(self, part: str) -> dict | None:
        return self._result(part).value_for(self._key(part))

    def toy_data(self) -> dict | None:
        """Everything the toy tab draws, for the current ρ (the store's output; None while computed)."""
        return self._data("toy")

    def extrapolation_data(self) -> ex.ExtrapolationCurves | None:
        """Observed AverageTA_k on K random classes, each estimator's curve, and the ground truth (the
        store's output for the current controls; None while computed)."""
        return self._data("ext")

    def peer_data(self) -> dict | None:
        """Each method's curve, the truth and the R package's predictions for one fixture instance (the
        store's output; None while computed)."""
        return self._data("peer")

    # ------------------------------------------------------------------ panes (created once)
    def _show(self, part: str) -> None:
        """Draw ``part`` from its result store (it delivered, or failed); a failure is shown in its alert,
        never raised, and the last good figures stay."""
        alert, error = self.alerts[part], self._result(part).error
        d = self._data(part)
        if error is None and d is not None:
            try:
                getattr(self, f"_draw_{part}")(d)
            except Exception as exc:  # shown to the user, never a crash
                error = f"{type(exc).__name__}: {exc}"
        self.last_error = error
        if error is not None or alert.visible:
            alert.object, alert.visible = f"Could not compute: {error}", error is not None

    @param.depends("controls.rho", watch=True)
    def _toy_view(self) -> None:
        self._request("toy")

    def _live(self, attr: str, panes: dict, make, data, style: dict, **kw):
        """The display held as ``attr``: created by ``make()`` from the first data, its panels drawn with
        ``style`` (panel name -> plot options) in ``panes`` (panel name -> pane); later data updates it
        in place (the figures keep their glyphs)."""
        display = getattr(self, attr)
        if display is None:
            display = make()
            setattr(self, attr, display)
            for name, pane in panes.items():
                pane.object = display.plot(panel=name, **style.get(name, {}))
        else:
            display.update(result=data, **kw)
        return display

    def _draw_toy(self, d: dict) -> None:
        self._live("toy", self.toy_panes, lambda: ToyModelDisplay(**d), d, dict.fromkeys(self.toy_panes, self._SIZE))

    @staticmethod
    def _rows(estimates: dict, truth: float, name: str, k_total: int, basis: str | None = None) -> list[dict]:
        def label(m):
            return f"moment ({basis})" if m == "moment" and basis else m

        return [{name: label(n), f"predicted at k={k_total}": float(a[-1]), "truth": truth,
                 "error": float(a[-1]) - truth} for n, (_, a) in estimates.items()]

    @param.depends(*(f"controls.{name}" for name in ("population", "pop_rho", "classifier", "K", "method", "basis",
                                                     "seed")), watch=True)
    def _ext_view(self) -> None:
        self._request("ext")
        self._request("interval")

    def interval_data(self) -> dict | None:
        """The interval for AGA at the population's class count, with its truth (the store's output for
        the current controls; None while computed): see :func:`buviz.app.tasks.extrapolation_interval`."""
        return self._data("interval")

    def _draw_interval(self, d: dict) -> None:
        iv, truth = d["interval"], d["truth"]
        inside = "inside" if iv.lower <= truth <= iv.upper else "**outside**"
        self.interval_note.object = (
            f"**{tasks.INTERVAL_LEVEL:.0%} interval for AGA at k = {d['k']}** from K = {d['K']} classes: "
            f"[{iv.lower:.3f}, {iv.upper:.3f}] around the moment method's {iv.estimate:.3f}; the truth "
            f"{truth:.3f} is {inside}. The moment model's identifiability range alone is "
            f"[{iv.range_low:.3f}, {iv.range_high:.3f}]; the interval widens it by a simultaneous band of "
            f"the delete-one-class jackknife errors of the observed accuracies "
            f"(`extrapolate(..., interval={tasks.INTERVAL_LEVEL})`; measured coverage on Telugu and Omniglot: "
            f"the docs' extrapolation page).")

    def _draw_ext(self, c: ex.ExtrapolationCurves) -> None:
        basis = self.controls.basis
        ext = self._live("ext", {"curves": self.ext_pane, "dbar": self.fit_pane},
                         lambda: ExtrapolationDisplay.from_curves(c, basis=basis, show_dbar=True), c,
                         {"curves": self._WIDE, "dbar": dict(width=420, height=300)}, basis=basis)
        rows = self._rows(ext.estimates, float(c.truth[-1]), "estimator", c.n_classes, basis)
        self.ext_table.object = pd.DataFrame(rows).round(4)
        self.fit_pane.visible = ext.dbar_fit is not None

    @param.depends("controls.fixture_index", watch=True)
    def _peer_view(self) -> None:
        self._request("peer")

    def _draw_peer(self, d: dict) -> None:
        peer = self._live("peer", {"curves": self.peer_pane},
                          lambda: ExtrapolationDisplay.from_peer_comparison(d), d, {"curves": self._WIDE})
        k_tot, truth = d["k_total"], float(d["truth"][1][-1])
        # the R package's predictions as the display names them, beside the estimators
        shown = {**peer.estimates, **{n: ([k], [v]) for n, (k, v) in peer.references.items()}}
        self.peer_table.object = pd.DataFrame(self._rows(shown, truth, "method", k_tot)).round(4)

    @property
    def table(self) -> pd.DataFrame | None:
        """The Table-1-style comparison of classifiers (:attr:`comparison`'s value for the current ρ and seed)."""
        return self.comparison.value_for(self._comparison_key())

    def _comparison_key(self) -> tasks.PopulationKey:
        return tasks.PopulationKey("gaussian", self.controls.pop_rho, self.controls.seed)

    def _run_table(self, event=None) -> None:
        """The Table-1-style comparison, computed in the background (:attr:`comparison`, heavy lane, latest
        wins); the view shows its value and state for the current ρ and seed (:meth:`_show_table`)."""
        key = self._requested = self._comparison_key()
        self.comparison.request(key)
        self._show_table()

    @param.depends("controls.pop_rho", "controls.seed", watch=True)
    def _show_table(self) -> None:
        """The comparison for the current ρ and seed, or what its job is doing (the job's state counts only
        when it was asked for the current ρ and seed)."""
        state = self.comparison.state
        if self._requested != self._comparison_key():
            state = ""
        self._button.loading = state == "running"
        table = self.table
        if table is not None:
            self._table.object = table.round(3)
        self._table.visible = table is not None
        if state.startswith("error: "):
            self._table_note.object = f"**Comparison failed:** {state.removeprefix('error: ')}"
        elif table is None:
            self._table_note.object = ("*Press the button to compare classifiers (K = 20 → k = 400).*"
                                       if state != "running" else "*Comparing classifiers…*")
        self._table_note.visible = table is None or state.startswith("error: ")

    #: Sidebar labels (what each control means, with units).
    LABELS = {
        "rho": "Toy model: correlation ρ of X and Y",
        "population": "Label population (synthetic Gaussian or digits)",
        "pop_rho": "Synthetic population: signal correlation ρ",
        "classifier": "Classifier (margins of the test points)",
        "K": "Observed classes K (extrapolated to all classes)",
        "method": "Extrapolation estimator",
        "basis": "Moment method: basis of D̄(u)",
        "seed": "Random seed (class subset, training draws)",
        "fixture_index": "ClassEx comparison: fixture instance (0 … 29)",
    }

    def sidebar(self) -> pn.Column:
        """The widgets of :attr:`controls` (the explorer shows them in its sidebar while this tab is open)."""
        widgets = {k: {"name": v} for k, v in self.LABELS.items()}
        for k, kind in (("rho", pn.widgets.FloatSlider), ("pop_rho", pn.widgets.FloatSlider),
                        ("K", pn.widgets.IntSlider)):
            widgets[k].update(type=kind, throttled=True)
        toy = pn.Param(self.controls.param, parameters=["rho"], widgets=widgets, show_name=False)
        ext = pn.Param(self.controls.param, parameters=[k for k in self.LABELS if k not in ("rho", "fixture_index")],
                       widgets=widgets, show_name=False)
        peer = pn.Param(self.controls.param, parameters=["fixture_index"], widgets=widgets, show_name=False)
        return pn.Column(pn.pane.Markdown("### Toy model (§4.1)"), toy,
                         pn.pane.Markdown("### Extrapolation to k classes"), ext,
                         pn.pane.Markdown("### Against the ClassEx R package"), peer, sizing_mode="stretch_width")

    def main(self) -> pn.Tabs:
        """The view's plots and formulas as sub-tabs: the toy model, the extrapolation, the ClassEx
        comparison and the paper's schematic figures."""
        notes = {"styles": {"overflow-x": "auto"}, "sizing_mode": "stretch_width"}
        t = self.toy_panes
        # rows that wrap: two plots side by side from 1280 px, one below the other at 1024 px
        toy = pn.Column(self.alerts["toy"], WrappingRow(t["level_sets"], t["dbar"]),
                        WrappingRow(t["risk"], t["polynomial_error"]), pn.pane.Markdown(_TOY_MD, **notes))
        ext = pn.Column(self.alerts["ext"], self.ext_pane, self.ext_table, self.alerts["interval"], self.interval_note,
                        self.fit_pane, self._button,
                        self._table_note, self._table, pn.pane.Markdown(_EXT_MD, **notes))
        peer = pn.Column(self.alerts["peer"], self.peer_pane, self.peer_table,
                         pn.pane.Markdown(_PEER_MD, **notes))
        # the Schematics sub-tab draws its first figure when it first opens (under a second to three)
        return self.schematics.schematics_tabs(("Toy model", toy), ("Extrapolation", ext), ("ClassEx comparison", peer))

    def __panel__(self):
        return pn.Row(pn.Column(self.sidebar(), width=330), self.main())
