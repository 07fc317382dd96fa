"""Panel view: accuracy extrapolation through D̄(u).

After C. Zheng, R. Achanta and Y. Benjamini, Journal of Machine Learning Research 19, 2018.

``ExtrapolationView().__panel__()`` returns a layout with two tabs:

(a) *Toy model* -- the bivariate-normal example with a ρ slider: U_x(y) level sets, D̄(u), the
    k-class risk distribution with Theorem 4.1's average, polynomial approximation error of D̄.
(b) *Extrapolation* -- a population (synthetic Gaussian labels or ``load_digits``), a classifier, the
    number K of observed classes, the estimator and the moment method's basis; the curves show
    AverageTA_k (eq 3) on the K classes, each extrapolation and the ground truth. A button runs the
    Table-1-style comparison of classifiers (K = 20 -> k = 400).
"""

from __future__ import annotations

import pandas as pd
import panel as pn
import param

from buviz import extrapolation as ex
from buviz.app import tasks
from buviz.app.session import SessionLink
from buviz.plots import extrapolation as plots

__all__ = ["ExtrapolationView"]

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


class ExtrapolationView(pn.viewable.Viewer):
    """Toy model and accuracy-extrapolation dashboard (mount ``__panel__()`` as a tab)."""

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
    link = param.ClassSelector(class_=SessionLink, default=None, precedence=-1,
                               doc="Where background results are delivered (the session's)")

    def __init__(self, **params):
        super().__init__(**params)
        if self.link is None:
            self.link = SessionLink.for_current_session()
        self._table = pn.pane.Markdown("*Press the button to compare classifiers (K = 20 → k = 400).*")
        self._button = pn.widgets.Button(label="Compare classifiers (Table 1 style)", color="primary")
        self._button.on_click(self._run_table)
        self._table_holder = pn.Column(self._table)
        self.table: pd.DataFrame | None = None
        self.last_error: str | None = None

    # ------------------------------------------------------------------ data (no widgets; testable)
    def toy_data(self) -> dict:
        """Everything the toy tab draws, for the current ρ."""
        return tasks.toy_model(tasks.number_key(self.rho))

    def toy_plots(self):
        """HoloViews elements of the toy tab (Figs 6, 7a, 7b/8b, 8c)."""
        d = self.toy_data()
        return {
            "level_sets": plots.toy_level_sets(d["level_grid"], self.rho),
            "dbar": plots.dbar_curves(d["dbar"]),
            "risk": plots.risk_distribution(d["distribution"], self.rho, d["avrisk"]),
            "polynomial_error": plots.polynomial_error(d["polynomial_error"]),
        }

    def extrapolation_data(self) -> dict:
        """Observed AverageTA_k on K random classes, each estimator's curve, and the ground truth."""
        return tasks.extrapolation_curves(self.population, tasks.number_key(self.pop_rho), int(self.seed),
                                          self.classifier, int(self.K), self.method, self.basis)

    def extrapolation_plot(self):
        d = self.extrapolation_data()
        return plots.extrapolation_curves(d["observed"], d["estimates"], d["truth"], k_observed=d["K"])

    # ------------------------------------------------------------------ panes
    def _safe(self, fn):
        try:
            self.last_error = None
            return fn()
        except Exception as exc:  # shown to the user, never a crash
            self.last_error = f"{type(exc).__name__}: {exc}"
            return pn.pane.Alert(f"Could not compute: {self.last_error}", alert_type="danger")

    @param.depends("rho")
    def _toy_view(self):
        def build():
            p = self.toy_plots()
            return pn.Column(
                pn.Row(pn.pane.HoloViews(p["level_sets"].opts(width=420, height=360)),
                       pn.pane.HoloViews(p["dbar"].opts(width=420, height=360))),
                pn.Row(pn.pane.HoloViews(p["risk"].opts(width=420, height=360)),
                       pn.pane.HoloViews(p["polynomial_error"].opts(width=420, height=360))))
        return self._safe(build)

    @param.depends("population", "pop_rho", "classifier", "K", "method", "basis", "seed")
    def _ext_view(self):
        def build():
            d = self.extrapolation_data()
            el = plots.extrapolation_curves(d["observed"], d["estimates"], d["truth"], k_observed=d["K"])
            rows = [{"estimator": name, f"predicted at k={d['n_classes']}": float(a[-1]),
                     "truth": float(d["truth"][1][-1]), "error": float(a[-1] - d["truth"][1][-1])}
                    for name, (_, a) in d["estimates"].items()]
            items = [pn.pane.HoloViews(el.opts(width=760, height=420)),
                     pn.widgets.Tabulator(pd.DataFrame(rows), disabled=True, show_index=False)]
            fit = d["fits"].get(f"moment ({self.basis})")
            if fit is not None and fit.dbar_fit is not None:
                items.append(pn.pane.HoloViews(plots.dbar_fit_vs_true(fit.dbar_fit).opts(width=420,
                                                                                       height=300)))
            return pn.Column(*items)
        return self._safe(build)

    def peer_data(self) -> dict:
        """Each method's curve, the truth and the R package's predictions for one fixture instance."""
        return tasks.peer_comparison(int(self.fixture_index))

    @param.depends("fixture_index")
    def _peer_view(self):
        def build():
            d = self.peer_data()
            k_tot = d["k_total"]
            rows = [{"method": name, f"predicted at k={k_tot}": float(a[-1]),
                     "truth": float(d["truth"][1][-1]), "error": float(a[-1] - d["truth"][1][-1])}
                    for name, (_, a) in d["estimates"].items()]
            rows += [{"method": f"ClassEx (R): {name}", f"predicted at k={k_tot}": float(v),
                      "truth": float(d["truth"][1][-1]), "error": float(v - d["truth"][1][-1])}
                     for name, v in d["peer"].items()]
            return pn.Column(pn.pane.HoloViews(plots.peer_comparison(d).opts(width=760, height=420)),
                             pn.widgets.Tabulator(pd.DataFrame(rows).round(4), disabled=True, show_index=False))
        return self._safe(build)

    def _run_table(self, event=None, *, blocking: bool | None = None):
        """The Table-1-style comparison as a job of the one runner (heavy lane, latest wins)."""
        self._button.loading = True
        key = (tasks.number_key(self.pop_rho), int(self.seed))
        job = tasks.job_for(tasks.classifier_comparison, *key, lane="heavy", slot=("comparison", id(self)),
                            label="classifier comparison")
        self.link.watch(job, self._table_done)
        if (not self.link.served) if blocking is None else blocking:
            self.link.wait()

    def _table_done(self, job) -> None:
        self._button.loading = False
        if job.status == "done":
            self.table = job.result
            self._table_holder[:] = [pn.widgets.Tabulator(job.result.round(3), disabled=True, show_index=False)]
        elif job.status == "error":
            self._table_holder[:] = [pn.pane.Alert(f"Comparison failed: {job.error}", alert_type="danger")]

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

    def controls(self) -> pn.Column:
        """The view's controls (the explorer shows them in its sidebar while this tab is open)."""
        widgets = {k: {"name": v} for k, v in self.LABELS.items()}
        for k, kind in (("rho", pn.widgets.FloatSlider), ("pop_rho", pn.widgets.FloatSlider),
                        ("K", pn.widgets.IntSlider)):
            widgets[k].update(type=kind, throttled=True)
        toy = pn.Param(self.param, parameters=["rho"], widgets=widgets, show_name=False)
        ext = pn.Param(self.param, parameters=[k for k in self.LABELS if k not in ("rho", "fixture_index")],
                       widgets=widgets, show_name=False)
        peer = pn.Param(self.param, parameters=["fixture_index"], widgets=widgets, show_name=False)
        return pn.Column(pn.pane.Markdown("### Toy model (§4.1)"), toy,
                         pn.pane.Markdown("### Extrapolation to k classes"), ext,
                         pn.pane.Markdown("### Against the ClassEx R package"), peer, sizing_mode="stretch_width")

    def main(self) -> pn.Tabs:
        """The view's plots and formulas: the toy model and the extrapolation, as two tabs."""
        notes = {"styles": {"overflow-x": "auto"}, "sizing_mode": "stretch_width"}
        toy = pn.Column(pn.panel(self._toy_view, loading_indicator=True, defer_load=False),
                        pn.pane.Markdown(_TOY_MD, **notes))
        ext = pn.Column(pn.panel(self._ext_view, loading_indicator=True), self._button, self._table_holder,
                        pn.pane.Markdown(_EXT_MD, **notes))
        peer = pn.Column(pn.panel(self._peer_view, loading_indicator=True), pn.pane.Markdown(_PEER_MD, **notes))
        return pn.Tabs(("Toy model", toy), ("Extrapolation", ext), ("ClassEx comparison", peer), dynamic=True,
                       sizing_mode="stretch_width")

    def __panel__(self):
        return pn.Row(pn.Column(self.controls(), width=330), self.main())
