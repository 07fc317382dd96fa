"""Panel views of the boundary-uncertainty explorer's sample-space tabs (Sample space, Weights k̂/w,
Covariate shift): one :class:`pn.viewable.Viewer` per tab; the One sample tab is :mod:`buviz.app.sample`.

Each view reads the session's :class:`~buviz.app.store.SessionStore` (its ``snapshot``, ``cv_sweep.table``,
``proposal1.result`` ...) and hosts the Display objects of :mod:`buviz.plots.displays` built from its results.
A display is built once per dataset (and per choice of overlay or projection) and shown in a pane
created once; a status step calls the display's ``update``, which sends new data down the streams of
the layers that changed, so the browser patches data sources in place and the taps stay attached.
Nothing here fits a model, recomputes what a result already holds, or touches Bokeh models.

Data with more than two features is shown in a plane fitted on T (PCA, or LDA), with f(x;Λ) and the
weights computed in the full space.
"""

from __future__ import annotations

import holoviews as hv
import numpy as np
import panel as pn
import param

from buviz.app.export import export_buttons
from buviz.app.mathmd import math_markdown
from buviz.app.store import SessionStore
from buviz.app.viewbase import _XY, PlaneView, TabView, _with_tap, math_dollars
from buviz.plots import cases as pcases
from buviz.plots import displays as pd_
from buviz.plots import style
from buviz.plots import uncertainty as pb
from buviz.uncertainty import DEFAULT_SEPARABILITY, DEFAULT_SEPARABILITY_N0

__all__ = ["SampleSpaceView", "WeightsView", "ShiftView", "numbers_markdown"]


_W = style.COLOR_WORDS
_MAP_OPTS = dict(width=640, height=480, tools=["tap", "hover"], active_tools=["wheel_zoom"],
                 toolbar="right", legend_position="right")

SAMPLE_SPACE_MD = math_dollars(r"""
**B(Λ)** is the zero contour of the near-boundary-ness $f(x;\Lambda) = g_{i}(x;\Lambda) - g_{j}(x;\Lambda)$
of the top-2 classes $i \lt j$ at $x$ (eq 12), drawn on a 160 × 160 grid; **B\*** (dashed) is where the two
largest exact posteriors are equal. Shading: the predicted class. With more than two features the
samples are drawn in a plane fitted on $\mathcal T$ (PCA or LDA), the near-boundary samples
($\hat k(x) \gt 0$) of each pair as rings (hover: the pair); B(Λ) is a surface of the full space and is not drawn.

Proposal 2 (eq 40): $\hat U^{(3)} = \sum_{\{k,l\}\in\hat{\mathcal I}^{\ast}} \hat P(C_{kl})\,\hat U_{kl}^{(3)}$,
$\hat U_{kl}^{(3)} = \sum_{x\in \hat B^{\ast}(k,l)} \frac{\hat k(x)}{w_{kl}}\,\hat U(x)$; plots show $-\hat U$
(best $-1$). *Tap a sample to see it up close.*
""")

WEIGHTS_MD = math_dollars(rf"""
**Probability weights** (Fig 14) $\hat k(x;\Lambda)/w_{{kl}}(\Lambda)$ with
$\hat k = \hat k^i + \hat k^j$, $\hat k^m(x) = \sum_{{x'\in\mathcal N^M(x),\,y(x')=m}}
\varphi\!\left(\frac{{0 - f(\tilde x';\Lambda)}}{{h_x}}\right)$ (eq 27-28) and
$w_{{kl}} = \sum_{{x\in\hat B^{{\ast}}(k,l)}} \hat k(x)$ (eq 29).
Colour bar {_W["weight_low"]} → {_W["weight_high"]}: small → large weight (closer to B(Λ));
samples with zero weight keep their class colour.
A boundary through an empty band leaves every weight at zero (eq 39's first branch).
""")

SHIFT_MD = math_dollars(rf"""
**Covariate shift in $f$** (Fig 10): $f(\mathcal T;\Lambda)$ on the training samples is biased by
training (the classifier has seen them), $f(\tilde{{\mathcal T}};\Lambda)$ on the perturbed set
$\tilde x = x + r_x \odot \lVert x - x^{{(1)}}\rVert$ (Alg 1) should look like $f(\mathcal X^{{te}};\Lambda)$.
The distributions work at every dimension; for two features the maps share one colour scale:
{_W["f_negative"]} $f \lt 0$ (class $j$ side), {_W["f_positive"]} $f \gt 0$ (class $i$ side). KS = two-sample
Kolmogorov–Smirnov statistic against $f(\mathcal X^{{te}};\Lambda)$ (smaller = closer).
""")


def _title(s) -> str:
    return f"{s.ds.name}: {s.status.label}" if s is not None else "Sample space"


class SampleSpaceView(PlaneView):
    """Tab 1: training points, B(Λ), B*, predicted regions (d = 2) or the plane of T (d > 2), and the
    key numbers; a :class:`~buviz.plots.displays.SampleSpaceDisplay`."""

    proposal1 = param.Boolean(default=False, doc="Overlay Proposal 1's anchors, N_B and TDC clusters")
    color_by = param.Selector(default="class", objects=["class", "f"],
                              doc="Colour the samples of d > 2 data by class or by f(x;Λ)")
    def __init__(self, **params):
        super().__init__(**params)
        self.display: pd_.SampleSpaceDisplay | None = None
        self._key = None
        self.map_pane = pn.pane.HoloViews(None, linked_axes=False)
        self.p1_toggle = pn.widgets.Checkbox.from_param(self.param.proposal1,
                                                        name="Proposal 1 (anchors, N_B, clusters)")
        self.color_widget = pn.widgets.RadioButtonGroup.from_param(
            self.param.color_by, options={"by class": "class", "by f(x;Λ)": "f"}, color="light", width=180,
            visible=self.store.param.snapshot.rx().rx.pipe(lambda s: s is not None and not s.is_2d))
        #: what the status's numbers rest on when it is degenerate (``store.status_notice``), beside them
        self.status_notice_pane = self._pane(
            pn.pane.Alert(alert_type="warning", width=300, css_classes=["buviz-status-notice"]),
            lambda: self.store.status_notice, (self.store, "status_notice"))
        self.status_notice_pane.visible = self.store.param.status_notice.rx().rx.pipe(bool)
        self.numbers_pane = self._pane(pn.pane.Markdown(width=300), self.numbers_text,
                                       (self.store, "snapshot"), (self.store.cv_sweep, "table"),
                                       (self.store.cv_sweep, "state"), (self, "proposal1"),
                                       (self.store.proposal1, "result"))
        self._follow_when_open(self._follow, "snapshot", (self.store.proposal1, "result"),
                               own=("proposal1", "projection", "color_by"))

    @param.depends("proposal1", watch=True, on_init=True)
    def _want_proposal1(self) -> None:
        """The overlay on: the store computes Proposal 1 for every status shown
        (:class:`~buviz.app.stores.Proposal1Overlay`)."""
        self.store.proposal1.wanted = self.proposal1

    @staticmethod
    def _display_args(s, p1) -> dict:
        """The display's arguments for snapshot ``s`` with Proposal 1's result ``p1`` (or None)."""
        return dict(grid=s.status if s.is_2d else None, bayes_fields=s.bayes_fields, proposal1=p1, title=_title(s))

    def _follow(self) -> None:
        s = self._snap()
        if s is None:
            return
        answered, p1 = self.store.proposal1.for_snapshot(s) if self.proposal1 else (True, None)
        if not answered and self.display is not None:
            # the overlay is being computed: its delivery calls this again, and the status and the
            # overlay are then drawn together (never this status with another status's overlay)
            return
        args = self._display_args(s, p1)
        key = (id(s.ds), p1 is not None, self.projection, self.color_by)
        if key != self._key or self.display is None:
            # a new dataset, overlay or plane: new glyphs (and legend entries); a status step only updates
            self.display = pd_.SampleSpaceDisplay.from_result(s.result, s.ds, projection=self.projection,
                                                              color_by=self.color_by, **args)
            shown, self.tap = _with_tap(self.display, _XY, self._tapped, **_MAP_OPTS)
            self._key = key
            self.map_pane.object = shown
        else:
            self.display.update(result=s.result, dataset=s.ds, **args)

    def proposal1_result(self, snapshot=None):
        """Proposal 1's result for the shown status when the overlay is on and the store has it, else None."""
        s = snapshot if snapshot is not None else self._snap()
        return self.store.proposal1.for_snapshot(s)[1] if self.proposal1 and s is not None else None

    def plot(self, snapshot=None, proposal1=None):
        """The map of ``snapshot`` as a static overlay (export, tests): the same display, drawn once."""
        s = snapshot if snapshot is not None else self._snap()
        p1 = self.store.proposal1.for_snapshot(s)[1] if (self.proposal1 if proposal1 is None else proposal1) else None
        d = pd_.SampleSpaceDisplay.from_result(s.result, s.ds, projection=self.projection, color_by=self.color_by,
                                               **self._display_args(s, p1))
        return d.element().opts(**_MAP_OPTS)

    def figure(self):
        """What the map shows now, for the static export."""
        return self.display.element().opts(**_MAP_OPTS) if self.display is not None else self.plot()

    def numbers_text(self) -> str:
        text = numbers_markdown(self.store)
        r = self.proposal1_result()
        if r is not None:
            n_cl = len(r.cluster_sizes[0])
            text += (f"\n\n**Proposal 1** (overlay): Û⁽¹⁾ = {r.value:.4f}, {int(r.anchor_valid.sum())} anchors, "
                     f"|N_B| = {len(r.near_boundary)}, {n_cl} TDC clusters in run 1 "
                     f"({1000 * r.evaluate_time:.0f} ms)")
        return text

    def __panel__(self):  # a FlexBox: the numbers go under the map where the page is narrow
        return pn.FlexBox(
            pn.Column(pn.Row(self._plane_widget(), self.color_widget), self.map_pane,
                      pn.Row(self.p1_toggle, export_buttons(self, "sample_space"))),
            pn.Column(self.numbers_pane, self.status_notice_pane, math_markdown(SAMPLE_SPACE_MD, width=320)),
            sizing_mode="stretch_width",
        )


def _fmt(v, digits: int = 4) -> str:
    if v is None or (isinstance(v, float) and not np.isfinite(v)):
        return "—"
    text = f"{float(v):.{digits}f}"
    return text.lstrip("-") if float(text) == 0 else text  # never "−0.0000"


def numbers_markdown(store: SessionStore) -> str:
    """The numbers shown beside the sample space (Bayes error, L_te, L_val, Û ...)."""
    state = store
    s = store.snapshot
    if s is None:
        return "*No valid settings yet.*"
    row = state.cv_sweep.current_row() or {}
    pending = {"running": "*(sweep running)*", "idle": "*(open Error vs −Û)*"}.get(state.cv_sweep.state, "—")

    def from_row(col, neg=False):
        if col not in row:
            return pending
        return _fmt(-row[col] if neg else row[col])

    r = s.result
    lines = [
        f"**Status Λ**: {s.status.label}",
        "",
        "| quantity | value |",
        "|---|---|",
        f"| Bayes error | {_fmt(s.bayes_error)} |",
        f"| L_te (test, n = {len(s.ds.X_test)}) | {_fmt(s.status.L_te)} |",
        f"| L_val ({store.controls.cv}-fold CV) | {from_row('L_val')} |",
        f"| L_HO (75/25) | {from_row('L_ho')} |",
        f"| Û_tr (Proposal 2) | {_fmt(r.value)} |",
        f"| −Û_tr | {_fmt(-r.value)} |",
        f"| −Û_te | {from_row('U_te', neg=True)} |",
    ]
    if "U1_tr" in row:
        lines.append(f"| −Û1_tr (Proposal 1) | {_fmt(-row['U1_tr'])} |")
    st = s.settings
    tilde = f"T̃ a = {float(st['perturbation']):g} ({st['perturbation_mode']})" if st["tilde"] else "T̃ off"
    lines += [
        f"| estimator | M = {int(st['M'])}, K = {st['K']}, {tilde} |",
        f"| Case 1/3 rule (eq 39) | {DEFAULT_SEPARABILITY}, n0 = {DEFAULT_SEPARABILITY_N0:g} (paper: threshold) |",
        f"| N (train), J | {len(s.ds.X_train)}, {s.ds.n_classes} |",
        f"| Î* pairs | {pcases.pairs_text(r.pairs, pd_.class_names(s.ds))} |",
        "",
        f"<small>computed in {1000 * s.elapsed:.0f} ms (classifier fit {1000 * s.status.fit_time:.0f} ms)</small>",
    ]
    return "\n".join(lines)


class WeightsView(PlaneView):
    """Tab 2: probability weights k̂/w on the training samples (Fig 14); a
    :class:`~buviz.plots.displays.WeightsDisplay`, at every d."""

    def __init__(self, **params):
        super().__init__(**params)
        self.display: pd_.WeightsDisplay | None = None
        self._key = None
        self.map_pane = pn.pane.HoloViews(None, linked_axes=False)
        self._follow_when_open(self._follow, "snapshot", own=("projection",))

    def _follow(self) -> None:
        s = self._snap()
        if s is None:
            return
        args = dict(grid=s.status if s.is_2d else None, title=f"Probability weights, {s.status.label}")
        key = (id(s.ds), self.projection)
        if key != self._key or self.display is None:
            self.display = pd_.WeightsDisplay.from_result(s.result, s.ds, projection=self.projection, **args)
            shown, self.tap = _with_tap(self.display, _XY, self._tapped, **_MAP_OPTS)
            self._key = key
            self.map_pane.object = shown
        else:
            self.display.update(result=s.result, dataset=s.ds, **args)

    def plot(self, snapshot=None):
        """The weights map of ``snapshot`` as a static overlay (export, tests)."""
        s = snapshot if snapshot is not None else self._snap()
        d = pd_.WeightsDisplay.from_result(s.result, s.ds, projection=self.projection,
                                           grid=s.status if s.is_2d else None,
                                           title=f"Probability weights, {s.status.label}")
        return d.element().opts(**_MAP_OPTS)

    def figure(self):
        return self.display.element().opts(**_MAP_OPTS) if self.display is not None else self.plot()

    def pair_text(self) -> str:
        s = self._snap()
        if s is None:
            return ""
        r = s.result
        rows = ["| pair {k,l} | P̂(C_kl) | w_kl | Û_kl | λ_kl | case | n_eff |", "|---|---|---|---|---|---|---|"]
        names = pd_.class_names(s.ds)  # the pairs named as the plots name the classes
        for n, (k, l) in enumerate(r.pairs):
            rows.append(f"| ({names[k]}, {names[l]}) | {r.pair_probabilities[n]:.3f} | {r.pair_weights[n]:.3g} | "
                        f"{r.pair_values[n]:.3f} | {r.pair_blend[n]:.3f} | {int(r.pair_case[n])} | "
                        f"{r.pair_effective_size[n]:.1f} |")
        n_pos = int(np.sum(r.near_boundary_weights > 0))
        rows += ["", f"{n_pos} of {len(r.near_boundary_weights)} training samples carry a positive weight.",
                 "", "λ_kl: weight of the near-boundary mean in Û_kl (eq 39; 0 or 1 under the threshold rule); "
                 "case: the dominant separability case of §4.5 (2 where λ_kl ≥ ½, else 1 or 3); "
                 "n_eff = (Σ k̂)² / Σ k̂² over B̂*(k,l)."]
        return "\n".join(rows)

    def __panel__(self):
        pairs = self._pane(pn.pane.Markdown(width=340), self.pair_text, (self.store, "snapshot"))
        return pn.FlexBox(
            pn.Column(self._plane_widget(), self.map_pane, export_buttons(self, "weights")),
            pn.Column(pairs, math_markdown(WEIGHTS_MD, width=340)),
            sizing_mode="stretch_width",
        )


class ShiftView(TabView):
    """Tab 3: the distributions of f(T), f(T̃), f(X_te) and their KS statistics (every d), and for
    two features the three maps on one colour scale (Fig 10); a
    :class:`~buviz.plots.displays.CovariateShiftDisplay`."""

    NAMES = pd_.CovariateShiftDisplay.NAMES
    export_size = (10.0, 6.5)
    _MAP = dict(width=380, height=340, tools=["hover"], toolbar="above")
    _HIST = dict(width=560, height=300, legend_position="right")

    def __init__(self, **params):
        super().__init__(**params)
        self.display: pd_.CovariateShiftDisplay | None = None
        self._key = None
        self.map_panes = [pn.pane.HoloViews(None, linked_axes=False) for _ in self.NAMES]
        self.maps_row = pn.FlexBox(*self.map_panes, visible=False, sizing_mode="stretch_width")
        self.hist_pane = pn.pane.HoloViews(None, linked_axes=False)
        self._follow_when_open(self._follow, "snapshot")

    def _follow(self) -> None:
        s = self._snap()
        if s is None:
            return
        args = dict(f_test=s.status.f_test if len(s.status.f_test) else None, grid=s.status if s.is_2d else None)
        if id(s.ds) != self._key or self.display is None:
            self.display = d = pd_.CovariateShiftDisplay.from_result(s.result, s.ds, **args)
            self._key = id(s.ds)
            for pane, name in zip(self.map_panes, d.map_names or [None] * 3, strict=True):
                pane.object = d.plot(panel=name, **self._MAP) if name is not None else None
            self.maps_row.visible = bool(d.map_names)
            self.hist_pane.object = d.plot(panel="hist", **self._HIST)
        else:
            self.display.update(result=s.result, dataset=s.ds, **args)

    def figure(self):
        if self.display is None:
            return hv.Layout([pb.shift_histograms({n: np.empty(0) for n in self.NAMES})])
        d = self.display
        return d.element(hist=self._HIST, **dict.fromkeys(d.map_names, self._MAP))

    def ks_text(self) -> str:
        s = self._snap()
        if s is None or not s.ks:
            return "*No test set: KS statistics unavailable.*"
        lines = ["| sample | KS vs f(X_te) |", "|---|---|"]
        lines += [f"| {k} | {v:.4f} |" for k, v in s.ks.items()]
        if "f(T̃)" in s.ks and "f(T)" in s.ks:
            better = "closer" if s.ks["f(T̃)"] < s.ks["f(T)"] else "not closer"
            lines += ["", f"f(T̃) is **{better}** to f(X_te) than f(T) at this status."]
        if not s.settings.get("tilde", True):
            lines += ["", "*T̃ is off: f(T̃) = f(T).*"]
        return "\n".join(lines)

    def __panel__(self):
        return pn.Column(self.maps_row,
                         pn.FlexBox(self.hist_pane,
                                    pn.Column(self._pane(pn.pane.Markdown(width=320), self.ks_text,
                                                         (self.store, "snapshot")),
                                              math_markdown(SHIFT_MD, width=340)), sizing_mode="stretch_width"),
                         export_buttons(self, "covariate_shift"))
