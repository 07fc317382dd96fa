"""The explorer's template: sidebar controls, tabs of views, URL sync, reset, sweep polling.

``build_app()`` returns a ``pn.template.BootstrapTemplate``; ``apps/explorer.py`` calls it and
``.servable()``. Every control is a widget on :class:`~buviz.app.state.ExplorerState`; sliders are
throttled (the state sees ``value_throttled``, i.e. the value when the mouse is released).
"""

from __future__ import annotations

import holoviews as hv
import panel as pn
import param

from buviz.app._bokeh_fixes import guard_close_after_failed_ping
from buviz.app.boundary import tab_views
from buviz.app.code import CodePanel
from buviz.app.mathmd import fix_math
from buviz.app.state import CONTROL_PARAMS, ExplorerState

__all__ = ["ExplorerApp", "build_app", "URL_PARAMS"]

#: Controls mirrored in the URL query string (name in the URL = parameter name).
URL_PARAMS = (*CONTROL_PARAMS, "sweep_proposal1")

_TITLE = "buviz · boundary-uncertainty explorer"
_ABOUT = """
Explore how a classifier status Λ is judged by **boundary uncertainty** (Proposal 2 of the seed paper)
next to the usual error estimates. Pick a dataset and a classifier on the left; every view follows the
current status. The γ sweep (CV and hold-out errors, Û_te) starts when you first open *Error vs −Û*
(or *Sensitivity*), runs in the background and fills the curves as rows arrive.
"""

_MIXTURE_HELP = """Classes → components `{"weight", "mean": [x, y], "cov"}`; `cov` is a number, two
numbers (diagonal) or a 2×2 matrix. Press *Apply mixture*."""


def _throttled(widget_type, **kw):
    return {"type": widget_type, "throttled": True, **kw}


def _extrapolation_tab():
    try:
        from buviz.app.extrapolation import ExtrapolationView

        return fix_math(pn.panel(ExtrapolationView()))
    except Exception as exc:  # another tab must never take the explorer down
        return pn.pane.Alert(f"Extrapolation view unavailable: {exc}", alert_type="warning")


def _discrete_tab():
    try:
        from buviz.app.discrete import DiscreteEstimatorsView

        return fix_math(pn.panel(DiscreteEstimatorsView()))
    except Exception as exc:
        return pn.pane.Alert(f"Discrete-case view unavailable: {exc}", alert_type="warning")


class ExplorerApp(pn.viewable.Viewer):
    """State + views + controls; ``template()`` builds the served page."""

    state = param.ClassSelector(class_=ExplorerState)
    poll_period = param.Integer(default=400, doc="ms between polls of the background sweep")

    def __init__(self, **params):
        if "state" not in params:
            params["state"] = ExplorerState()
        super().__init__(**params)
        self.views = tab_views(self.state, on_select=self._show_sample)
        self.tabs = pn.Tabs(*[(name, view) for name, view in self.views.items()], dynamic=True,
                            sizing_mode="stretch_width")
        self._add_other_tabs()
        self.tabs.param.watch(self._on_tab, "active")
        self._controls = self._build_controls()
        self.code_panel = CodePanel(state=self.state)
        self._periodic = None

    # ------------------------------------------------------------------ tabs
    def _add_other_tabs(self):
        """Extrapolation and Discrete tabs, built only when first shown (they compute eagerly)."""
        self.tabs.append(("Extrapolation", pn.param.ParamFunction(_extrapolation_tab, lazy=True)))
        self.tabs.append(("Discrete", pn.param.ParamFunction(_discrete_tab, lazy=True)))

    #: Tabs whose views need the sweep: opening one starts it (and later settings changes restart it).
    SWEEP_TABS = ("Error vs −Û", "Sensitivity M, K")

    def _on_tab(self, event):
        names = list(self.tabs._names)
        if 0 <= event.new < len(names) and names[event.new] in self.SWEEP_TABS:
            self.state.auto_sweep = True

    def _show_sample(self, index: int):
        names = list(self.views)
        self.tabs.active = names.index("One sample")

    # ------------------------------------------------------------------ controls
    def _build_controls(self):
        s = self.state
        data = pn.Param(s, parameters=["dataset", "n_train", "seed"], show_name=False, widgets={
            "dataset": {"type": pn.widgets.Select, "name": "Dataset"},
            "n_train": _throttled(pn.widgets.IntSlider, name="N (training samples)", step=10),
            "seed": {"type": pn.widgets.IntInput, "name": "Random seed"},
        })
        clf = pn.Param(s, parameters=["classifier", "log2_gamma", "log2_C", "epoch"], show_name=False,
                       widgets={
                           "classifier": {"type": pn.widgets.RadioButtonGroup, "name": "Classifier"},
                           "log2_gamma": _throttled(pn.widgets.IntSlider, name="log₂ γ (RBF kernel)"),
                           "log2_C": _throttled(pn.widgets.IntSlider, name="log₂ C"),
                           "epoch": _throttled(pn.widgets.IntSlider, name="MLP epoch"),
                       })
        est = pn.Param(s, parameters=["M", "K", "perturbation", "perturbation_mode", "tilde", "cv", "sweep_proposal1"],
                       show_name=False, widgets={
                           "M": {"type": pn.widgets.IntInput, "name": "M (neighbourhood size)"},
                           "K": {"type": pn.widgets.Select, "name": "K prototypes per class"},
                           "perturbation": _throttled(pn.widgets.FloatSlider, name="T̃ amplitude a"),
                           "perturbation_mode": {"type": pn.widgets.Select, "name": "T̃ mode"},
                           "tilde": {"type": pn.widgets.Checkbox, "name": "Use T̃ (off: f on T)"},
                           "cv": {"type": pn.widgets.IntInput, "name": "CV folds (sweep)"},
                           "sweep_proposal1": {"type": pn.widgets.Checkbox, "name": "Proposal 1 in the sweep (slower)"},
                       })
        self.widgets = {**data._widgets, **clf._widgets, **est._widgets}
        is_svm = s.param.classifier.rx() == "SVM"
        self.widgets["log2_gamma"].visible = is_svm
        self.widgets["log2_C"].visible = is_svm
        self.widgets["epoch"].visible = s.param.classifier.rx() == "MLP"

        self.mixture_text = pn.widgets.TextAreaInput(value=s.mixture_json, height=160, label="Mixture (JSON)",
                                                     sizing_mode="stretch_width")
        apply_mix = pn.widgets.Button(label="Apply mixture", color="primary")
        apply_mix.on_click(lambda e: s.set_mixture(self.mixture_text.value))
        s.param.watch(lambda e: setattr(self.mixture_text, "value", e.new), "mixture_json")
        mixture = pn.Card(pn.pane.Markdown(_MIXTURE_HELP), self.mixture_text, apply_mix,
                          title="Custom mixture editor", collapsed=True, sizing_mode="stretch_width")

        self.file_input = pn.widgets.FileInput(accept=".csv", multiple=False, sizing_mode="stretch_width")
        self.file_input.param.watch(self._on_upload, "value")
        upload = pn.Card(pn.pane.Markdown("Two numeric feature columns and a label column (last), "
                                          "header row, at most 5 MB."), self.file_input,
                         title="Upload a CSV", collapsed=False, sizing_mode="stretch_width")

        reset = pn.widgets.Button(label="Reset all controls", color="warning", sizing_mode="stretch_width")
        reset.on_click(lambda e: s.reset())
        return [pn.pane.Markdown("### Data"), data, mixture, upload,
                pn.pane.Markdown("### Classifier status Λ"), clf,
                pn.pane.Markdown("### Proposal 2 estimator"), est, reset]

    def _on_upload(self, event):
        if event.new:
            self.state.upload_csv(event.new, self.file_input.filename or "upload.csv")

    # ------------------------------------------------------------------ messages
    @param.depends("state.message")
    def message_pane(self):
        msg = self.state.message
        if msg and pn.state.notifications is not None:
            pn.state.notifications.error(msg, duration=6000)
        return pn.pane.Alert(msg, alert_type="danger", visible=bool(msg), sizing_mode="stretch_width",
                             css_classes=["buviz-message"])

    # ------------------------------------------------------------------ page
    def main(self):
        return pn.Column(self.message_pane, self.tabs, self.code_panel, sizing_mode="stretch_width")

    def __panel__(self):
        return pn.Row(pn.Column(*self._controls, width=330), self.main())

    def start_server_hooks(self):
        """URL sync and the periodic sweep poll; only inside a served session."""
        if pn.state.location is not None:
            pn.state.location.sync(self.state, {p: p for p in URL_PARAMS})
        doc = pn.state.curdoc
        if doc is not None:
            self.state._freeze = doc.models.freeze
        if pn.state.curdoc is not None and self._periodic is None:
            self._periodic = pn.state.add_periodic_callback(self.state.poll_sweep, period=self.poll_period)

    def template(self):
        # Bootstrap rather than Fast: the Fast theme always links Google Fonts, which an offline
        # server cannot serve (a console error and a slower first paint).
        tmpl = pn.template.BootstrapTemplate(
            title=_TITLE, sidebar=[pn.pane.Markdown(_ABOUT), *self._controls], main=[self.main()],
            header_background="#1f3f7f", sidebar_width=350,
        )
        self.start_server_hooks()
        return tmpl


def _use_local_stylesheets() -> None:
    """Point the session's stylesheets at this server's static files before any model is built.

    Panel only records the server's ``dist_url`` on a document when it renders the HTML page. A
    session Bokeh discards as unused (no websocket within ``--unused-session-lifetime``, which
    happens under load) is rebuilt when the websocket finally connects, without that page, and its
    stylesheets would then point at Panel's CDN: a blank, unstyled page offline.
    """
    doc = pn.state.curdoc
    if doc is None or doc.session_context is None:
        return
    from panel.io.resources import LOCAL_DIST, use_cdn

    if not use_cdn():
        rel = pn.state.rel_path
        doc.template_variables.setdefault("dist_url", f"{rel}/{LOCAL_DIST}" if rel else LOCAL_DIST)


def url_settings() -> tuple[dict, list[str]]:
    """The controls given in the served page's URL (``?n_train=200&M=30``), checked one by one:
    ``(valid values, rejected "name=value" strings)``. Read before the state exists, so a new session
    computes one snapshot, for these settings, rather than the defaults' first."""
    args = getattr(pn.state, "session_args", None) or {}
    query = {k: v[-1].decode("utf-8", "replace") for k, v in args.items() if k in URL_PARAMS and v}
    if not query:
        return {}, []
    from urllib.parse import urlencode

    from panel.util import parse_query

    parsed = parse_query("?" + urlencode(query))
    valid, rejected = {}, []
    for k, raw in query.items():
        p = ExplorerState.param[k]
        v = raw if isinstance(p, (param.String, param.Selector)) else parsed.get(k, raw)  # K=3 is a choice
        if isinstance(p, param.Integer) and isinstance(v, float) and v.is_integer():
            v = int(v)  # the URL parser reads "-2" as a float
        elif isinstance(p, param.Boolean) and v in (0, 1) and not isinstance(v, bool):
            v = bool(v)
        try:
            if isinstance(v, bool) and not isinstance(p, param.Boolean):
                raise ValueError("not a number")
            p._validate(v)  # type and bounds, as setting the control would check them
        except Exception:
            rejected.append(f"{k}={raw[:40]}")
        else:
            valid[k] = v
    return valid, rejected


def build_state(**state_params) -> ExplorerState:
    """A session's state: the URL's valid controls over ``state_params``. Rejected URL values, or
    valid ones that cannot be computed together (M > N), leave the defaults and a message."""
    url, rejected = url_settings()
    state = ExplorerState(**{**state_params, **url})
    msg = f"Ignored in the URL: {', '.join(rejected)}" if rejected else ""
    if state.snapshot is None and url:
        msg = "; ".join(m for m in (state.message, msg) if m)
        state.param.update(**{k: state_params.get(k, ExplorerState.param[k].default) for k in url})
    if msg:
        state.message = msg
    return state


def build_app(**state_params):
    """The served page (``panel serve apps/explorer.py``)."""
    _use_local_stylesheets()
    guard_close_after_failed_ping()
    pn.extension("mathjax", notifications=True, loading_indicator=True, sizing_mode="fixed")
    # Canvas, not WebGL: the plots are small, and without a GPU (class VMs, headless browsers)
    # WebGL runs in software and doubles the browser's time per update.
    hv.renderer("bokeh").webgl = False
    # served: a session's sweep starts when a tab that needs it is opened (see ExplorerApp.SWEEP_TABS)
    state_params.setdefault("auto_sweep", pn.state.curdoc is None)
    return ExplorerApp(state=build_state(**state_params)).template()
