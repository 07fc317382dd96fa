"""Panel views of the boundary-uncertainty explorer: one :class:`pn.viewable.Viewer` per tab.

Each view reads the shared :class:`~buviz.app.state.ExplorerState` (its ``snapshot``, ``sweep_table``,
``selected`` ...) and turns it into HoloViews elements with the builders of
:mod:`buviz.plots.uncertainty`. Plots are ``hv.DynamicMap`` objects driven by ``hv.streams.Params``, so
a γ step updates the Bokeh data sources in place instead of rebuilding figures, and tap streams stay
attached. Nothing here fits a model or recomputes what a result already holds.
"""

from __future__ import annotations

from collections.abc import Callable

import holoviews as hv
import numpy as np
import panel as pn
import param

from buviz.app.export import export_buttons, sweep_download
from buviz.app.mathmd import math_markdown
from buviz.app.proposal1 import proposal1_for
from buviz.app.state import ExplorerState
from buviz.plots import uncertainty as pb

__all__ = ["SampleSpaceView", "WeightsView", "ShiftView", "CurvesView", "SampleView", "SensitivityView",
           "NOT_2D_MESSAGE"]

NOT_2D_MESSAGE = ("This dataset has more than two features: the sample-space maps need 2-D data. "
                  "The curves (tab *Error vs −Û*) and the numbers still work.")


def _math(text: str) -> str:
    """Inline LaTeX: Panel's Markdown pane renders $$...$$ spans with MathJax."""
    return text.replace("$", "$$")


_MAP_OPTS = dict(width=640, height=480, tools=["tap", "hover"], active_tools=["wheel_zoom"],
                 toolbar="above", legend_position="right")

SAMPLE_SPACE_MD = _math(r"""
**B(Λ)** is the zero contour of the near-boundary-ness $f(x;\Lambda) = g_{i}(x;\Lambda) - g_{j}(x;\Lambda)$
of the top-2 classes $i \lt j$ at $x$ (eq 12), drawn on a 160 × 160 grid; **B\*** (dashed) is where the two
largest exact posteriors are equal. Shading: the predicted class.

Proposal 2 (eq 40): $\hat U^{(3)} = \sum_{\{k,l\}\in\hat{\mathcal I}^{\ast}} \hat P(C_{kl})\,\hat U_{kl}^{(3)}$,
$\hat U_{kl}^{(3)} = \sum_{x\in \hat B^{\ast}(k,l)} \frac{\hat k(x)}{w_{kl}}\,\hat U(x)$; plots show $-\hat U$
(best $-1$). *Tap a sample to see it up close.*
""")

WEIGHTS_MD = _math(r"""
**Probability weights** (Fig 14) $\hat k(x;\Lambda)/w_{kl}(\Lambda)$ with
$\hat k = \hat k^i + \hat k^j$, $\hat k^m(x) = \sum_{x'\in\mathcal N^M(x),\,y(x')=m}
\varphi\!\left(\frac{0 - f(\tilde x';\Lambda)}{h_x}\right)$ (eq 27-28) and
$w_{kl} = \sum_{x\in\hat B^{\ast}(k,l)} \hat k(x)$ (eq 29).
Cyan → pink: further from → closer to B(Λ); samples with zero weight keep their class colour.
A boundary through an empty band leaves every weight at zero (eq 39's first branch).
""")

SHIFT_MD = _math(r"""
**Covariate shift in $f$** (Fig 10): $f(\mathcal T;\Lambda)$ on the training samples is biased by
training (the classifier has seen them), $f(\tilde{\mathcal T};\Lambda)$ on the perturbed set
$\tilde x = x + r_x \odot \lVert x - x^{(1)}\rVert$ (Alg 1) should look like $f(\mathcal X^{te};\Lambda)$.
One colour scale: cyan $f \lt 0$ (class $i$), pink $f \gt 0$ (class $j$). KS = two-sample
Kolmogorov–Smirnov statistic against $f(\mathcal X^{te};\Lambda)$ (smaller = closer).
""")

CURVES_MD = _math(r"""
**Selection curves** (Figs 6-9): errors on the left axis ($\hat L_{te}$ test, $\hat L_{val}$ CV
validation, $L_{HO}$ hold-out, $\hat L_{tr}$ CV training), $-\hat U_{tr}$ (Proposal 2 on $\mathcal T$)
and $-\hat U_{te}$ (on the test set) on the right axis. A good status has low error **and** $-\hat U$
near $-1$. *Click a point to select that status.* Right: the same sweep as a parametric curve.
""")

SAMPLE_MD = _math(r"""
**One sample up close** (Fig 4): the cluster $\mathcal N^M(x)$ (x and its $M-1$ nearest neighbours)
projected on the $f$ axis through the perturbed members $\tilde x'$; Parzen kernels of width
$h_x = 0.9\min(\hat\sigma_x, \mathrm{IQR}_x/1.34)\,M^{-1/5}$ (eq 32) counted at $f = 0$ give
$\hat k^i, \hat k^j$; $\hat P(C_i\mid x) = \hat k^i/\hat k$ (eq 38) and
$\hat U(x) = 1 - |2\hat P - 1|$ (eq 37).
""")

SENS_MD = _math(r"""
**Sensitivity** of $-\hat U_{tr}$ to $M$ (Fig 12: $M$ = 20 … 160) and to the number $K$ of prototypes
per class used for $\hat{\mathcal I}^{\ast}$ (Fig 13: $K$ = 3 … 40 and AIC). For two classes $\hat{\mathcal I}^{\ast}
= \{\{1,2\}\}$ and $K$ has no influence. The sweeps run on demand in the background (2-fold CV, cached).
""")


def _with_tap(dmap: hv.DynamicMap, kdims, callback, **opts) -> tuple[hv.DynamicMap, hv.streams.Tap]:
    """``dmap`` overlaid with an empty layer that carries a Tap stream.

    HoloViews attaches no tap callback when the source is a DynamicMap returning an Overlay; a
    separate one-layer DynamicMap as the source works, and Bokeh tap events are figure-wide, so
    taps anywhere in the plot arrive with data coordinates.
    """
    layer = hv.DynamicMap(lambda: hv.Points([], kdims=kdims).opts(tools=["tap"], show_legend=False))
    tap = hv.streams.Tap(source=layer)
    tap.add_subscriber(callback)
    shown = dmap * layer
    return (shown.opts(**opts) if opts else shown), tap


_XY = ["x1", "x2"]


def _empty_xy() -> tuple[np.ndarray, np.ndarray]:
    return np.empty((0, 2)), np.empty(0, dtype=int)


def _names(ds) -> list[str]:
    """Class names for legends: C1, C2, ... for the exact mixtures, the CSV / real labels otherwise."""
    if ds.model is not None:
        return [f"C{j + 1}" for j in range(ds.n_classes)]
    return [str(c) for c in ds.classes]


def bound_pane(pane, render: Callable[[], object], *deps: tuple[param.Parameterized, str],
               shown: tuple[param.Parameterized, str] | None = None):
    """``pane`` (created once) whose ``object`` is ``render()``, set again whenever one of ``deps``
    ((object, parameter name) pairs) changes. The pane is updated in place, never replaced, so the
    browser patches one model instead of building a new one (and laying out the page again).

    ``shown``: an (object, Boolean parameter name) pair saying whether the pane is on screen (its tab
    is open); while it is False the pane is left alone and it catches up when it turns True. A pane
    of a closed tab has no model in the page, and Panel re-resolves the stylesheets of an update to
    such a pane against its CDN (offline: every style of the page breaks).
    """

    def update(*events):
        if shown is not None and not getattr(*shown):
            return
        new = render()
        if new != pane.object:
            pane.object = new

    pane.object = render()
    for obj, name in deps:
        obj.param.watch(update, name)
    if shown is not None:
        shown[0].param.watch(update, shown[1])
    return pane


class _View(pn.viewable.Viewer):
    state = param.ClassSelector(class_=ExplorerState)
    tab_open = param.Boolean(default=True, doc="Whether the view's tab is open (its text panes follow the state)")

    def _pane(self, pane, render, *deps):
        """A text pane of this view, following ``deps`` while the view is shown (:func:`bound_pane`)."""
        return bound_pane(pane, render, *deps, shown=(self, "tab_open"))

    def _snap(self):
        return self.state.snapshot

    def _not_2d_alert(self):
        return pn.pane.Alert(NOT_2D_MESSAGE, alert_type="info",
                             visible=self.state.param.snapshot.rx().rx.pipe(lambda s: s is not None and not s.is_2d))

    def _visible_if_2d(self):
        return self.state.param.snapshot.rx().rx.pipe(lambda s: s is None or s.is_2d)

    def _map_column(self, *below):
        """The view's tappable sample-space map (hidden, with a note, for data that is not 2-D)."""
        return pn.Column(self._not_2d_alert(),
                         pn.pane.HoloViews(self.shown, visible=self._visible_if_2d(), linked_axes=False), *below)

    def _select_sample_at(self, x=None, y=None):
        """Tap on a sample-space map: select the nearest training sample (views with ``on_select``)."""
        if x is None or y is None:
            return
        idx = self.state.select_at(x, y)
        if idx >= 0 and getattr(self, "on_select", None) is not None:
            self.on_select(idx)


class SampleSpaceView(_View):
    """Tab 1: training points, B(Λ), B*, predicted regions, and the key numbers."""

    on_select = param.Callable(default=None, doc="Called with the index of a tapped training sample")
    proposal1 = param.Boolean(default=False, doc="Overlay Proposal 1's anchors, N_B and TDC clusters")

    def __init__(self, **params):
        super().__init__(**params)
        # The map is rendered from the HoloViews overlay of :meth:`plot` (one style with the export)
        # when the dataset or the overlay changes; a status step then replaces the data of its two
        # status layers in place (predicted regions, B(Λ)) and the title -- a few kilobytes and no
        # HoloViews pass, so a cached γ step costs the server milliseconds.
        self.map_pane = pn.pane.Bokeh(None)
        self._live: dict | None = None
        self.p1_toggle = pn.widgets.Checkbox.from_param(self.param.proposal1,
                                                        name="Proposal 1 (anchors, N_B, clusters)")
        self.numbers_pane = self._pane(pn.pane.Markdown(width=300), self.numbers_text,
                                       (self.state, "snapshot"), (self.state, "sweep_table"),
                                       (self.state, "sweep_state"), (self, "proposal1"))
        self.state.param.watch(self._follow, "snapshot")
        self.param.watch(self._follow, ["proposal1", "tab_open"])
        self._follow()

    # ------------------------------------------------------------------ the live map
    def _render(self, s) -> None:
        """Render the whole map of snapshot ``s`` and find the glyphs a status step replaces."""
        from bokeh.events import Tap
        from bokeh.models import GlyphRenderer, Image, MultiLine

        fig = hv.render(self.plot(s, layers=("regions", "points", "boundary", "bayes",
                                             *(("proposal1",) if self.proposal1 else ()))), backend="bokeh")
        fig.output_backend = "canvas"
        fig.on_event(Tap, lambda event: self._select_sample_at(event.x, event.y))
        live = {"fig": fig, "key": self._render_key(s), "image": None, "boundary": None, "flip": False}
        for r in fig.renderers:
            if not isinstance(r, GlyphRenderer):
                continue
            if isinstance(r.glyph, Image) and live["image"] is None:
                live["image"] = r.data_source
            elif (isinstance(r.glyph, MultiLine) and r.glyph.line_color == pb.BOUNDARY_COLOR
                  and live["boundary"] is None):
                live["boundary"] = r.data_source
        if live["image"] is not None and s is not None and s.status.grid_predicted is not None:
            shown = np.asarray(live["image"].data["image"][0])
            live["flip"] = not np.array_equal(shown, s.status.grid_predicted)
        self._live = live
        self.map_pane.object = fig

    def _render_key(self, s) -> tuple:
        """What a full render depends on beyond the status: the dataset and the overlay."""
        if s is None:
            return (None,)
        return (id(s.ds), s.is_2d, bool(self.proposal1))

    def _follow(self, *events) -> None:
        if not self.tab_open:
            return
        s = self._snap()
        live = self._live
        if (live is None or live["key"] != self._render_key(s) or s is None or not s.is_2d
                or self.proposal1 or live["image"] is None or live["boundary"] is None):
            self._render(s)
            return
        st = s.status
        if st.grid_predicted is None:
            self._render(s)
            return
        image = np.flipud(st.grid_predicted) if live["flip"] else st.grid_predicted
        lines = [ln for f in (st.fields or {}).values() for ln in pb.zero_contours(f)]
        src = live["boundary"]
        if set(src.data) - {"xs", "ys"}:  # columns this update would leave stale: render again
            self._render(s)
            return
        live["image"].data.update(image=[image])
        src.data = {"xs": [ln[:, 0] for ln in lines], "ys": [ln[:, 1] for ln in lines]}
        live["fig"].title.text = self._title(s)

    @staticmethod
    def _title(s) -> str:
        return f"{s.ds.name}: {s.status.label}" if s is not None else "Sample space"

    def proposal1_result(self, snapshot=None):
        """Proposal 1's result for the shown status when the overlay is on (cached), else None."""
        s = snapshot if snapshot is not None else self._snap()
        if not self.proposal1 or s is None or not s.is_2d:
            return None
        return proposal1_for(s)

    def _layers(self, s, proposal1: bool = True) -> dict:
        """The sample-space layers of snapshot ``s`` (:func:`buviz.plots.uncertainty.sample_space_layers`)."""
        if s is None or not s.is_2d:
            X, y = _empty_xy()
            layers = pb.sample_space_layers(X, y, None)
            layers["proposal1"] = pb.proposal1_layers(show_legend=False)
            return layers
        st = s.status
        layers = pb.sample_space_layers(s.ds.X_train, s.ds.y_train, st.fields, bayes_fields=s.bayes_fields,
                                        grid_predicted=st.grid_predicted, grid_xs=st.grid_xs, grid_ys=st.grid_ys,
                                        classes=_names(s.ds), feature_names=s.ds.feature_names)
        r = self.proposal1_result(s) if proposal1 else None
        if r is None:
            layers["proposal1"] = pb.proposal1_layers(feature_names=s.ds.feature_names, show_legend=False)
        else:
            layers["proposal1"] = pb.proposal1_layers(r.anchors[r.anchor_valid], r.near_boundary_X,
                                                      r.cluster_labels[0], feature_names=s.ds.feature_names)
        return layers

    def plot(self, snapshot=None, proposal1=None, layers=("regions", "points", "boundary", "bayes", "proposal1")):
        """The map of ``snapshot`` as one overlay of the named ``layers`` (export, tests, the live map)."""
        s = snapshot if snapshot is not None else self._snap()
        built = self._layers(s, proposal1="proposal1" in layers)
        return hv.Overlay([built[name] for name in layers]).opts(title=self._title(s), **_MAP_OPTS)

    def figure(self):
        """What the map shows now, for the static export."""
        return self.plot(self._snap())

    def numbers_text(self) -> str:
        text = numbers_markdown(self.state)
        r = self.proposal1_result()
        if r is not None:
            n_cl = len(r.cluster_sizes[0])
            text += (f"\n\n**Proposal 1** (overlay): Û⁽¹⁾ = {r.value:.4f}, {int(r.anchor_valid.sum())} anchors, "
                     f"|N_B| = {len(r.near_boundary)}, {n_cl} TDC clusters in run 1 "
                     f"({1000 * r.evaluate_time:.0f} ms)")
        return text

    def __panel__(self):
        return pn.Row(
            pn.Column(self._not_2d_alert(), pn.Column(self.map_pane, visible=self._visible_if_2d()),
                      pn.Row(self.p1_toggle, export_buttons(self, "sample_space"))),
            pn.Column(self.numbers_pane, math_markdown(SAMPLE_SPACE_MD, width=320)),
        )


def _fmt(v, digits: int = 4) -> str:
    if v is None or (isinstance(v, float) and not np.isfinite(v)):
        return "—"
    return f"{v:.{digits}f}"


def numbers_markdown(state: ExplorerState) -> str:
    """The numbers shown beside the sample space (Bayes error, L_te, L_val, Û ...)."""
    s = state.snapshot
    if s is None:
        return "*No valid settings yet.*"
    row = state.current_row() or {}
    pending = {"running": "*(sweep running)*", "idle": "*(open Error vs −Û)*"}.get(state.sweep_state, "—")

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
        f"| L_val ({state.cv}-fold CV) | {from_row('L_val')} |",
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
        f"| N (train), J | {len(s.ds.X_train)}, {s.ds.n_classes} |",
        f"| Î* pairs | {', '.join(f'({k + 1},{l + 1})' for k, l in r.pairs)} |",
        "",
        f"<small>computed in {1000 * s.elapsed:.0f} ms (classifier fit {1000 * s.status.fit_time:.0f} ms)</small>",
    ]
    return "\n".join(lines)


class WeightsView(_View):
    """Tab 2: probability weights k̂/w on the training samples (Fig 14)."""

    on_select = param.Callable(default=None)

    def __init__(self, **params):
        super().__init__(**params)
        self.dmap = hv.DynamicMap(self.plot, streams=[hv.streams.Params(self.state, ["snapshot"])])
        self.shown, self.tap = _with_tap(self.dmap, _XY, self._select_sample_at, width=_MAP_OPTS["width"],
                                         height=_MAP_OPTS["height"], legend_position="right")

    def plot(self, snapshot=None):
        s = snapshot if snapshot is not None else self._snap()
        if s is None or not s.is_2d:
            X, y = _empty_xy()
            return pb.weights_map(X, y, np.empty(0)).opts(**_MAP_OPTS)
        return pb.weights_map(s.ds.X_train, s.ds.y_train, s.result.near_boundary_weights, s.status.fields,
                              classes=_names(s.ds), feature_names=s.ds.feature_names,
                              title=f"Probability weights, {s.status.label}").opts(**_MAP_OPTS)

    def figure(self):
        return self.plot(self._snap())


    def pair_text(self) -> str:
        s = self._snap()
        if s is None:
            return ""
        r = s.result
        rows = ["| pair {k,l} | P̂(C_kl) | w_kl | Û_kl | weighted |", "|---|---|---|---|---|"]
        for n, (k, l) in enumerate(r.pairs):
            rows.append(f"| ({k + 1},{l + 1}) | {r.pair_probabilities[n]:.3f} | {r.pair_weights[n]:.3g} | "
                        f"{r.pair_values[n]:.3f} | {'yes' if r.pair_weighted[n] else 'no (eq 39 branch)'} |")
        n_pos = int(np.sum(r.near_boundary_weights > 0))
        rows += ["", f"{n_pos} of {len(r.near_boundary_weights)} training samples carry a positive weight."]
        return "\n".join(rows)

    def __panel__(self):
        pairs = self._pane(pn.pane.Markdown(width=340), self.pair_text, (self.state, "snapshot"))
        return pn.Row(
            self._map_column(export_buttons(self, "weights")),
            pn.Column(pairs, math_markdown(WEIGHTS_MD, width=340)),
        )


class ShiftView(_View):
    """Tab 3: f(T), f(T̃), f(X_te) maps on one colour scale, their histograms and KS statistics (Fig 10)."""

    NAMES = ("f(T)", "f(T̃)", "f(X_te)")
    export_size = (10.0, 6.5)

    def __init__(self, **params):
        super().__init__(**params)
        stream = [hv.streams.Params(self.state, ["snapshot"])]
        self.maps = [hv.DynamicMap(lambda snapshot=None, k=k: self.map_plot(k, snapshot), streams=stream)
                     for k in range(3)]
        self.hist = hv.DynamicMap(self.hist_plot, streams=stream)

    def _arrays(self, s):
        r = s.result
        return {"f(T)": (s.ds.X_train, r.f_train), "f(T̃)": (r.X_tilde, r.f_tilde),
                "f(X_te)": (s.ds.X_test, s.status.f_test)}

    def map_plot(self, k: int, snapshot=None):
        s = snapshot if snapshot is not None else self._snap()
        name = self.NAMES[k]
        opts = dict(width=380, height=340, tools=["hover"], toolbar="above")
        if s is None or not s.is_2d:
            return pb.shift_map(np.empty((0, 2)), np.empty(0), 1.0, title=name).opts(**opts)
        arrays = self._arrays(s)
        c = pb.symmetric_limit(*[f for _, f in arrays.values()])
        X, f = arrays[name]
        size = 4 if len(X) <= 3000 else 2.5
        return pb.shift_map(X, f, c, fields=s.status.fields, title=name, colorbar=(k == 2),
                            feature_names=s.ds.feature_names, size=size).opts(**opts)

    def hist_plot(self, snapshot=None):
        s = snapshot if snapshot is not None else self._snap()
        if s is None:
            return pb.shift_histograms({n: np.empty(0) for n in self.NAMES})
        return pb.shift_histograms({n: f for n, (_, f) in self._arrays(s).items()}).opts(
            width=560, height=300)

    def figure(self):
        s = self._snap()
        items = [self.map_plot(k, s) for k in range(3)] if s is not None and s.is_2d else []
        return hv.Layout([*items, self.hist_plot(s)]).cols(2)

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
        maps = pn.Row(*[pn.pane.HoloViews(m, linked_axes=False) for m in self.maps], visible=self._visible_if_2d())
        return pn.Column(self._not_2d_alert(), maps,
                         pn.Row(pn.pane.HoloViews(self.hist),
                                pn.Column(self._pane(pn.pane.Markdown(width=320), self.ks_text,
                                                     (self.state, "snapshot")),
                                          math_markdown(SHIFT_MD, width=340))),
                         export_buttons(self, "covariate_shift"))


class CurvesView(_View):
    """Tab 4: errors and −Û over the sweep (twin axes), a marker at the current status, tap to select."""

    twin_y = True  # export: errors on the left axis, −Û on the right
    export_size = (11.0, 4.5)

    def __init__(self, **params):
        super().__init__(**params)
        streams = [hv.streams.Params(self.state, ["sweep_table", "snapshot"])]
        self.dmap = hv.DynamicMap(self.plot, streams=streams)
        self.param_dmap = hv.DynamicMap(self.parametric, streams=streams)
        self.shown, self.tap = _with_tap(self.dmap, ["log2_gamma", "error"], self._on_tap, multi_y=True,
                                         width=640, height=420, legend_position="right")
        self.param_shown, self.tap2 = _with_tap(self.param_dmap, ["neg_U", "error"], self._on_parametric_tap,
                                                width=440, height=420, legend_position="top_right")
        self.restart = pn.widgets.Button(label="Restart sweep", color="default", width=130)
        self.restart.on_click(lambda e: self.state.start_sweep(force=True))
        self.download = sweep_download(self.state)

    def _x(self, s):
        return "log2_gamma" if s is None or s.settings["classifier"] == "SVM" else "epoch"

    def plot(self, sweep_table=None, snapshot=None):
        s = snapshot if snapshot is not None else self._snap()
        x = self._x(s)
        cur = s.status_value if s is not None else None
        return pb.error_curves(sweep_table, x, cur).opts(width=640, height=420, tools=["tap", "hover"],
                                                         toolbar="above")

    def parametric(self, sweep_table=None, snapshot=None):
        s = snapshot if snapshot is not None else self._snap()
        return pb.parametric_curve(sweep_table, self._x(s), s.status_value if s is not None else None).opts(
            width=440, height=420, tools=["tap"], toolbar="above")

    def _on_tap(self, x=None, y=None):
        self.state.set_status_from_tap(x)

    def figure(self):
        s, t = self._snap(), self.state.sweep_table
        return hv.Layout([self.plot(t, s), self.parametric(t, s)]).cols(2)

    def _on_parametric_tap(self, x=None, y=None):
        """Tap on the parametric curve: the sweep point nearest to (−Û, error)."""
        t = self.state.sweep_table
        if x is None or y is None or t is None or not len(t) or "U_tr" not in t:
            return
        col = self.state.status_column()
        d = (-t["U_tr"].to_numpy(float) - x) ** 2 + (t["L_te"].to_numpy(float) - y) ** 2
        self.state.set_status_from_tap(float(t[col].to_numpy(float)[int(np.nanargmin(d))]))

    def progress_text(self) -> str:
        st = self.state.sweep_state
        n = 0 if self.state.sweep_table is None else len(self.state.sweep_table)
        return {"running": f"Sweep running in the background: {n} statuses done",
                "done": f"Sweep done: {n} statuses (cached on disk)",
                "idle": "Sweep not started"}.get(st, st)

    def progress(self):
        """The sweep's progress bar and state (created once, updated in place)."""
        s = self.state
        bar = pn.indicators.Progress(value=int(s.sweep_progress), max=100, width=260, bar_color="primary",
                                     active=s.sweep_state == "running")

        def follow(*events):
            if not self.tab_open:
                return
            # only what changed (Panel re-sends a bar's stylesheets with every bar_color it is given)
            new = {"value": int(s.sweep_progress), "active": s.sweep_state == "running",
                   "bar_color": "success" if s.sweep_state == "done" else "primary"}
            changed = {k: v for k, v in new.items() if getattr(bar, k) != v}
            if changed:
                bar.param.update(**changed)

        s.param.watch(follow, ["sweep_progress", "sweep_state"])
        self.param.watch(follow, "tab_open")
        text = self._pane(pn.pane.Markdown(margin=(0, 10)), self.progress_text, (s, "sweep_state"),
                          (s, "sweep_progress"), (s, "sweep_table"))
        return pn.Row(bar, text, self.restart, self.download)

    def __panel__(self):
        return pn.Column(
            self.progress(),
            pn.Row(pn.pane.HoloViews(self.shown, linked_axes=False),
                   pn.pane.HoloViews(self.param_shown, linked_axes=False)),
            export_buttons(self, "curves"),
            math_markdown(CURVES_MD, sizing_mode="stretch_width"),
        )


class SampleView(_View):
    """Tab 5: one training sample, its cluster N^M(x) and the locally 1-D count (Fig 4)."""

    export_size = (10.0, 4.5)

    def __init__(self, **params):
        super().__init__(**params)
        streams = [hv.streams.Params(self.state, ["snapshot", "selected"])]
        self.map = hv.DynamicMap(self.cluster_plot, streams=streams)
        self.zoom = hv.DynamicMap(self.zoom_plot, streams=streams)
        self.shown, self.tap = _with_tap(
            self.map, _XY, lambda x=None, y=None: self.state.select_at(x, y) if x is not None else None)

    def view_data(self):
        s = self._snap()
        if s is None:
            return None
        idx = self.state.selected_index()
        return s.result.sample_view(idx) if idx >= 0 else None

    def cluster_plot(self, snapshot=None, selected=None):
        s = snapshot if snapshot is not None else self._snap()
        v = self.view_data()
        if s is None or not s.is_2d or v is None:
            X, y = _empty_xy()
            return pb.cluster_highlight(X, y, None).opts(**{**_MAP_OPTS, "width": 560, "height": 440})
        return pb.cluster_highlight(s.ds.X_train, s.ds.y_train, v["index"], v["neighbours"],
                                    X_tilde=s.result.X_tilde, fields=s.status.fields, classes=_names(s.ds),
                                    feature_names=s.ds.feature_names,
                                    title=f"Sample #{v['index']} and its N^M(x), M = {len(v['neighbours'])}"
                                    ).opts(**{**_MAP_OPTS, "width": 560, "height": 440})

    def zoom_plot(self, snapshot=None, selected=None):
        s = snapshot if snapshot is not None else self._snap()
        v = self.view_data()
        return pb.cluster_zoom(v, classes=_names(s.ds) if s is not None else None).opts(
            width=560, height=320, toolbar="above")

    def figure(self):
        s = self._snap()
        return hv.Layout([self.cluster_plot(s), self.zoom_plot(s)]).cols(2)

    def details(self) -> str:
        v = self.view_data()
        s = self._snap()
        if v is None or s is None:
            return "*Tap a training sample in the Sample space tab.*"
        names = _names(s.ds)
        i, j = v["pair"]
        how = "tapped" if 0 <= self.state.selected < len(s.ds.X_train) else "largest weight (tap to choose)"
        labels = np.bincount(v["labels"], minlength=len(names))
        rows = [
            f"### Sample #{v['index']} ({how})",
            f"label **{names[s.ds.y_train[v['index']]]}**, classifier pair {{{names[i]}, {names[j]}}}",
            "",
            "| quantity | value |", "|---|---|",
            f"| h_x | {v['bandwidth']:.4g} |",
            f"| k̂^i ({names[i]}) | {v['k_i']:.4g} |",
            f"| k̂^j ({names[j]}) | {v['k_j']:.4g} |",
            f"| P̂(C_i given x) | {v['posterior']:.4f} |",
            f"| local Û(x) | {v['local_uncertainty']:.4f} |",
            f"| weight k̂/w | {v['weight']:.4g} |",
            f"| labels in N^M(x) | {', '.join(f'{n}: {c}' for n, c in zip(names, labels, strict=True))} |",
        ]
        return "\n".join(rows)

    def __panel__(self):
        return pn.Row(
            self._map_column(export_buttons(self, "one_sample")),
            pn.Column(pn.pane.HoloViews(self.zoom, linked_axes=False),
                      pn.Row(self._pane(pn.pane.Markdown(width=290), self.details, (self.state, "snapshot"),
                                        (self.state, "selected")),
                             math_markdown(SAMPLE_MD, width=250))),
        )


class SensitivityView(_View):
    """Tab 6: −Û_tr for several M (Fig 12) and K (Fig 13), computed on demand."""

    twin_y = True
    export_size = (10.0, 4.0)

    def __init__(self, **params):
        super().__init__(**params)
        self.run_M = pn.widgets.Button(label="Run M sensitivity (Fig 12)", color="primary")
        self.run_K = pn.widgets.Button(label="Run K sensitivity (Fig 13)", color="primary")
        self.run_M.on_click(lambda e: self.state.run_sensitivity("M"))
        self.run_K.on_click(lambda e: self.state.run_sensitivity("K"))

    @param.depends("state.sensitivity", "state.sweep_table")
    def plots(self):
        sens = self.state.sensitivity
        if not sens:
            return pn.pane.Markdown("*Press a button: each setting runs a 21-γ sweep (cached).*")
        items = []
        for kind, tables in sens.items():
            el = pb.sensitivity_curves(tables, "log2_gamma", reference=self.state.sweep_table,
                                       title=f"−Û_tr for several {kind}").opts(width=620, height=380)
            items.append(pn.pane.HoloViews(el))
        return pn.Row(*items)

    def figure(self):
        sens = self.state.sensitivity or {}
        items = [pb.sensitivity_curves(tables, "log2_gamma", reference=self.state.sweep_table,
                                       title=f"−Û_tr for several {kind}") for kind, tables in sens.items()]
        if not items:
            items = [pb.sensitivity_curves({}, "log2_gamma", reference=self.state.sweep_table,
                                           title="−Û_tr (no sensitivity sweep run yet)")]
        return hv.Layout(items).cols(2)

    def __panel__(self):
        status = self._pane(pn.pane.Markdown(), lambda: f"Status: {self.state.sensitivity_state}",
                            (self.state, "sensitivity_state"))
        return pn.Column(pn.Row(self.run_M, self.run_K, status), self.plots,
                         export_buttons(self, "sensitivity"), math_markdown(SENS_MD, sizing_mode="stretch_width"))


def tab_views(state: ExplorerState, on_select: Callable[[int], None] | None = None) -> dict[str, _View]:
    """The seven boundary-uncertainty views, keyed by tab title."""
    from buviz.app.amplitude import AmplitudeView  # built on this module's _View: imported here, not at the top

    return {
        "Sample space": SampleSpaceView(state=state, on_select=on_select),
        "Weights k̂/w": WeightsView(state=state, on_select=on_select),
        "Covariate shift": ShiftView(state=state),
        "Error vs −Û": CurvesView(state=state),
        "One sample": SampleView(state=state),
        "Sensitivity M, K": SensitivityView(state=state),
        "T̃ amplitude": AmplitudeView(state=state),
    }

