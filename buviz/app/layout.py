"""The explorer's template: sidebar controls, tabs of views, URL sync, reset, sweep polling.

``build_app()`` returns a ``pn.template.BootstrapTemplate``; ``apps/explorer.py`` calls it and
``.servable()``. The roles are Panel's: every control is a widget on the session's
:class:`~buviz.app.controls.Controls`, the :class:`~buviz.app.store.SessionStore` derives and publishes
the data, and the views (one per tab) draw the store's parameters. The γ, C, epoch and T̃ sliders
follow the hand (the store sees every ``value`` while a slider is dragged and coalesces them, latest
wins); N is throttled (each N is a new dataset).
"""

from __future__ import annotations

import os

import holoviews as hv
import panel as pn
import param

from buviz import datasets
from buviz.app._panel_compat import (
    CappedFileDropper,
    expire_when_disconnected,
    guard_close_after_failed_ping,
    recompute_models_only_when_changed,
    resolve_detached_models_in_the_session,
    server_dist_url,
    set_dist_url,
    without_change_debounce,
)
from buviz.app.controls import CONTROL_PARAMS, URL_PARAMS, Controls, dataset_options, url_settings
from buviz.app.mathmd import fix_math
from buviz.app.meta import TITLE
from buviz.app.notes import dataset_size_text
from buviz.app.runner import one_blas_thread_when_served
from buviz.app.snippets import CodePanel
from buviz.app.store import SessionStore
from buviz.app.upload import CSV_HELP
from buviz.app.viewbase import TabView, bound_pane

__all__ = ["ExplorerApp", "build_app", "build_store", "tab_views", "URL_PARAMS", "TITLE"]


_ABOUT = """
Explore how a classifier with parameters Λ (a *status*) is judged by **boundary uncertainty**
(Proposal 2 of Ha et al., 2021) next to the usual error estimates. Pick a dataset and a classifier on
the left; every view follows the current status. The γ sweep (CV and hold-out errors, Û_te) starts
when you first open *Error vs −Û* (or *Sensitivity*), runs in the background and fills the curves as
rows arrive.
"""

_MIXTURE_HELP = """Classes → components `{"weight", "mean": [x, y], "cov"}`; `cov` is a number, two
numbers (diagonal) or a 2×2 matrix. Press *Apply mixture*."""


#: The tab headers wrap onto a second line where the page is narrow (1024 px) instead of hiding the
#: last tabs behind a horizontal scroll.
_WRAPPING_TABS = ".bk-headers-wrapper { flex-wrap: wrap; overflow-x: visible; }"


def tab_views(store: SessionStore, on_select=None) -> dict[str, TabView]:
    """The seven boundary-uncertainty views, keyed by tab title (the app shell assembles them; no
    view module imports another)."""
    from buviz.app.amplitude import AmplitudeView
    from buviz.app.curves import CurvesView, SensitivityView
    from buviz.app.sample import SampleView
    from buviz.app.uncertainty import SampleSpaceView, ShiftView, WeightsView

    sample = SampleView(store=store)

    def select(index: int) -> None:  # a tap on a map: the One sample tab shows that sample
        sample.select(index)
        if on_select is not None:
            on_select(index)

    return {
        "Sample space": SampleSpaceView(store=store, on_select=select),
        "Weights k̂/w": WeightsView(store=store, on_select=select),
        "Covariate shift": ShiftView(store=store),
        "Error vs −Û": CurvesView(store=store),
        "One sample": sample,
        "Sensitivity M, K": SensitivityView(store=store),
        "T̃ amplitude": AmplitudeView(store=store),
    }


#: Bytes per websocket message of an upload (the file dropper sends a file in chunks of this size):
#: far below the server's websocket limit (:data:`WEBSOCKET_MAX_MESSAGE_BYTES`), so no file can drop a
#: session.
UPLOAD_CHUNK_BYTES = 1_000_000
#: The websocket message limit of the explorer's server (Tornado's ``websocket_max_message_size``;
#: :func:`buviz.app.serve`, that is ``buviz serve``, passes it to the server explicitly). A message over it closes the
#: session's socket: the page then stops answering. It must stay above the largest message an upload
#: sends (:data:`UPLOAD_CHUNK_BYTES` and the event's wrapping).
WEBSOCKET_MAX_MESSAGE_BYTES = 20 * 1024 * 1024
#: What the browser accepts before sending (filepond counts 1 KB = 1000 bytes): the largest whole number
#: of KB within :data:`buviz.datasets.MAX_CSV_BYTES`, so the server never refuses for size what the
#: browser let through.
UPLOAD_MAX_FILE_SIZE = f"{datasets.MAX_CSV_BYTES // 1000}KB"


class CsvDropper(CappedFileDropper):
    """Panel's file dropper for one CSV: the browser refuses a file over
    :data:`buviz.datasets.MAX_CSV_BYTES` before sending any of it (with filepond's "File is too large"
    message), sends the others in chunks of :data:`UPLOAD_CHUNK_BYTES`, and the server drops a file
    whose chunks add up to more than the cap (a client that skipped the browser's check) and calls
    ``on_refused(filename, reason)`` (:class:`~buviz.app._panel_compat.CappedFileDropper`)."""

    def __init__(self, on_refused=None, **params):
        params = {"max_file_size": UPLOAD_MAX_FILE_SIZE, "chunk_size": UPLOAD_CHUNK_BYTES, "multiple": False,
                  "accepted_filetypes": [".csv", ".txt", ".tsv", ".gz", "text/*", "application/gzip",
                                         "application/x-gzip"], "previews": [], **params}
        super().__init__(datasets.MAX_CSV_BYTES, on_refused=on_refused, **params)


def _other_view(kind: str, store: SessionStore):
    """The Extrapolation, Discrete or Figures view object, or an Alert saying why it is unavailable."""
    try:
        if kind == "Figures":
            from buviz.app.gallery import FigureGallery

            return FigureGallery(bus=store.bus)
        if kind == "Extrapolation":
            from buviz.app.extrapolation import ExtrapolationView

            return ExtrapolationView(bus=store.bus)
        from buviz.app.discrete import DiscreteEstimatorsView

        return DiscreteEstimatorsView(bus=store.bus)
    except Exception as exc:  # another tab must never take the explorer down
        return pn.pane.Alert(f"{kind} view unavailable: {exc}", alert_type="warning")


class ExplorerApp(pn.viewable.Viewer):
    """Controls + store + views; ``template()`` builds the served page.

    The sidebar follows the open tab: the boundary-uncertainty controls for the seven boundary tabs,
    the Extrapolation or Discrete view's own controls for those tabs (built when first opened).
    """

    store = param.ClassSelector(class_=SessionStore, doc="The session's store (its controls: ``store.controls``)")
    uploads = param.Boolean(default=True, doc=(
        "Offer the CSV upload (``buviz serve --no-upload`` turns it off: the card says so instead)"))

    #: Tabs whose views need the sweep: opening one starts it (and later settings changes restart it).
    SWEEP_TABS = ("Error vs −Û", "Sensitivity M, K")
    OTHER_TABS = ("Extrapolation", "Discrete", "Figures")

    def __init__(self, **params):
        if "store" not in params:
            params["store"] = SessionStore()
        super().__init__(**params)
        self.controls = self.store.controls
        self.views = tab_views(self.store, on_select=self._show_sample)
        self.tab_names = [*self.views, *self.OTHER_TABS]
        self.other_views: dict[str, object] = {}
        self._other_main = {name: pn.Column(sizing_mode="stretch_width") for name in self.OTHER_TABS}
        self._other_controls = {name: pn.Column(sizing_mode="stretch_width", visible=False)
                                for name in self.OTHER_TABS}
        self.tabs = pn.Tabs(*[(name, view) for name, view in self.views.items()],
                            *[(name, self._other_main[name]) for name in self.OTHER_TABS], dynamic=True,
                            sizing_mode="stretch_width", stylesheets=[_WRAPPING_TABS])
        self.tabs.param.watch(self._on_tab, "active")
        for view_name, view in self.views.items():
            view.tab_open = view_name == self.tab_names[self.tabs.active]
        self.boundary_controls = pn.Column(*self._build_controls(), sizing_mode="stretch_width")
        self.code_panel = CodePanel(store=self.store)
        self.message = bound_pane(pn.pane.Alert(alert_type="danger", sizing_mode="stretch_width",
                                                css_classes=["buviz-message"]),
                                  lambda: self.store.message, (self.store, "message"))
        self.message.visible = bool(self.store.message)
        self.store.param.watch(self._on_message, "message")
        self.notice = bound_pane(pn.pane.Alert(alert_type="info", sizing_mode="stretch_width",
                                               css_classes=["buviz-notice"]),
                                 lambda: self.store.notice, (self.store, "notice"))
        self.notice.visible = self.store.param.notice.rx().rx.pipe(bool)
        self.computing = bound_pane(pn.pane.Markdown(height=24, margin=(0, 10), css_classes=["buviz-computing"]),
                                    self._computing_text, (self.store, "computing"))

    # ------------------------------------------------------------------ tabs and sidebar
    @property
    def sidebar(self) -> list:
        """The sidebar's contents: every group of controls, only the open tab's visible."""
        return [self.boundary_controls, *self._other_controls.values()]

    def _on_tab(self, event):
        name = self.tab_names[event.new] if 0 <= event.new < len(self.tab_names) else ""
        failed = None
        for view_name, view in self.views.items():  # a closed tab's text panes wait until it opens
            try:
                view.tab_open = view_name == name
            except Exception as exc:  # the opened view cannot draw the state shown: back to the last good one
                failed = exc
        if failed is not None:
            self.store.view_failed(failed, drop_current=True)
        if name in self.SWEEP_TABS:
            self.store.auto_sweep = True
        if name in self.OTHER_TABS and name not in self.other_views:
            view = self.other_views[name] = _other_view(name, self.store)
            if hasattr(view, "sidebar"):
                self._other_controls[name][:] = [view.sidebar()]
                self._other_main[name][:] = [fix_math(view.main())]
            else:
                self._other_main[name][:] = [view]
        # Only what changes: setting a layout's ``visible`` to its current value still makes Panel
        # send it again, and its stylesheets are then re-resolved (from the CDN, offline: broken).
        shown = {"boundary": name not in self.OTHER_TABS, **{o: o == name for o in self.OTHER_TABS}}
        for key, col in (("boundary", self.boundary_controls), *self._other_controls.items()):
            if col.visible != shown[key]:
                col.visible = shown[key]

    def _show_sample(self, index: int):
        self.tabs.active = self.tab_names.index("One sample")

    # ------------------------------------------------------------------ controls
    def _build_controls(self):
        s, store = self.controls, self.store
        # The status and estimator sliders follow the hand (value, not value_throttled): the store
        # coalesces the changes, latest wins. N stays throttled: each N is a new dataset.
        w = pn.widgets
        spec = {
            "dataset": (w.Select, "Dataset", {"options": dataset_options()}),
            # N's end follows what the data allow (the controls' own dependencies): the slider never offers
            # an N beyond a UCI dataset's rows
            "n_train": (w.IntSlider, "N (training samples)",
                        {"step": 10, "throttled": True, "end": s.param.n_train_max}),
            "seed": (w.IntInput, "Random seed", {}),
            "classifier": (w.RadioButtonGroup, "Classifier", {}),
            "log2_gamma": (w.IntSlider, "log₂ γ (RBF kernel)", {}),
            "log2_C": (w.IntSlider, "log₂ C", {}),
            "epoch": (w.IntSlider, "MLP epoch", {}),
            "M": (w.IntInput, "M (neighbourhood size)", {}),
            "K": (w.Select, "K prototypes per class", {}),
            "perturbation": (w.FloatSlider, "T̃ amplitude a", {}),
            "perturbation_mode": (w.Select, "T̃ mode", {}),
            "tilde": (w.Checkbox, "Use T̃ (off: f on T)", {}),
            "cv": (w.IntInput, "CV folds (sweep)", {}),
            "sweep_proposal1": (w.Checkbox, "Proposal 1 in the sweep (slower)", {}),
        }
        # a change goes to the store at the next tick, not after Panel's 50 ms debounce (the store
        # coalesces changes itself): a third of a cached γ step
        self.widgets = {p: without_change_debounce(kind.from_param(s.param[p], name=label,
                                                                   sizing_mode="stretch_width", **kw))
                        for p, (kind, label, kw) in spec.items()}
        # M's range in its label, not as the input's end: the browser's spinner keeps a typed number beyond
        # its end in the box without sending it (a silent refusal), while the store says why it refuses it
        self.widgets["M"].param.update(name=s.param.M_max.rx().rx.pipe(lambda m: f"M (neighbourhood size), 2 to {m}"))
        # datasets of fixed size: no N slider (it would read 1000 over 398 samples); the sizes instead
        fixed = s.param.dataset.rx().rx.pipe(lambda d: d in datasets.REAL_NAMES or d == "csv")  # not UCI
        self.widgets["n_train"].visible = fixed.rx.not_()
        self.size_pane = bound_pane(pn.pane.Markdown(margin=(0, 10), css_classes=["buviz-sizes"]),
                                    lambda: dataset_size_text(store.snapshot), (store, "snapshot"))
        data = pn.Column(*[self.widgets[p] for p in ("dataset", "n_train")], self.size_pane, self.widgets["seed"],
                         sizing_mode="stretch_width")
        clf = pn.Column(*[self.widgets[p] for p in ("classifier", "log2_gamma", "log2_C", "epoch")],
                        sizing_mode="stretch_width")
        est = pn.Column(*[self.widgets[p] for p in ("M", "K", "perturbation", "perturbation_mode", "tilde", "cv",
                                                    "sweep_proposal1")], sizing_mode="stretch_width")
        is_svm = s.param.classifier.rx() == "SVM"
        self.widgets["log2_gamma"].visible = is_svm
        self.widgets["log2_C"].visible = is_svm
        self.widgets["epoch"].visible = s.param.classifier.rx() == "MLP"

        self.mixture_text = pn.widgets.TextAreaInput(value=s.mixture_json, height=160, label="Mixture (JSON)",
                                                     sizing_mode="stretch_width")
        apply_mix = pn.widgets.Button(label="Apply mixture", color="primary")
        apply_mix.on_click(lambda e: store.set_mixture(self.mixture_text.value))
        s.param.watch(lambda e: setattr(self.mixture_text, "value", e.new), "mixture_json")
        mixture = pn.Card(pn.pane.Markdown(_MIXTURE_HELP), self.mixture_text, apply_mix,
                          title="Custom mixture editor", collapsed=True, sizing_mode="stretch_width")

        doc = pn.state.curdoc
        if doc is not None and doc.session_context is not None:  # served: bounded, chunked, refused early
            self.file_input = CsvDropper(on_refused=self._on_refused_upload, sizing_mode="stretch_width",
                                         layout="compact")
        else:  # a notebook's kernel: Panel's plain file input (no extension to load, no server to protect)
            self.file_input = pn.widgets.FileInput(accept=".csv,.txt,.tsv,.gz", multiple=False,
                                                   sizing_mode="stretch_width")
        self.file_input.param.watch(self._on_upload, "value")
        # collapsed, as the mixture editor: open, it pushed the γ slider below a 720-px screen
        upload_items = [pn.pane.Markdown(CSV_HELP), self.file_input] if self.uploads else [pn.pane.Markdown(
            NO_UPLOAD_TEXT, css_classes=["buviz-no-upload"])]
        upload = pn.Card(*upload_items,
                         title="Upload a CSV", collapsed=True, sizing_mode="stretch_width")

        reset = pn.widgets.Button(label="Reset all controls", color="warning", sizing_mode="stretch_width")
        reset.on_click(lambda e: store.reset())
        #: the groups of controls by name (laid out differently by the notebook explorer)
        self.control_groups = {"data": data, "mixture": mixture, "upload": upload, "classifier": clf,
                               "estimator": est, "reset": reset}
        # the introduction folded (one line): open, it pushed the γ slider below a 720-px screen. (Its
        # text never says "status Λ": a hidden first match would stall the pages that wait for the numbers.)
        about = pn.Card(pn.pane.Markdown(_ABOUT), title="About this explorer", collapsed=True,
                        sizing_mode="stretch_width")
        return [about, pn.pane.Markdown("### Data"), data, mixture, upload,
                pn.pane.Markdown("### Classifier status Λ"), clf,
                pn.pane.Markdown("### Proposal 2 estimator"), est, reset]

    def _on_upload(self, event):
        if not isinstance(self.file_input, CsvDropper):
            if event.new:
                self.store.upload_csv(event.new, self.file_input.filename or "upload.csv")
            return
        # the dropper's value is {filename: content}, changed in place; a removed file: nothing to do
        name, self.file_input.completed = self.file_input.completed, None
        if name is not None and name in (event.new or {}):
            self.store.upload_csv(event.new[name], name or "upload.csv")

    def _on_refused_upload(self, filename: str, reason: str) -> None:
        self.store.report(f"CSV {filename!r} rejected: {reason}")

    # ------------------------------------------------------------------ messages
    def _on_message(self, event):
        self.message.visible = bool(event.new)
        if event.new and pn.state.notifications is not None:
            pn.state.notifications.error(event.new, duration=6000)

    def _computing_text(self) -> str:
        c = self.store.computing
        if not c:
            return ""
        return f"<span style='color:#666'>⏳ computing {c} … (the views show the last status meanwhile)</span>"

    # ------------------------------------------------------------------ page
    def main(self):
        return pn.Column(self.message, self.notice, self.computing, self.tabs, self.code_panel,
                         sizing_mode="stretch_width")

    def __panel__(self):
        return pn.Row(pn.Column(*self.sidebar, width=330), self.main())

    def start_server_hooks(self):
        """URL sync and background results delivered to this session; served only.

        No periodic callback: background results (sweep rows, finished jobs) are pushed to the
        session's event loop by its :class:`~buviz.app.session.SessionLink` as they arrive, so an
        idle page does no work and Panel's busy indicator rests.
        """
        if pn.state.location is not None:
            self.controls.sync_url(pn.state.location)
            # the open tab (its index) too; not with location.sync, which would open it while the page
            # is being built (an Extrapolation, Discrete or Figures tab built then keeps the page blank)
            self._open_tab_from_url()
            location = pn.state.location
            self.tabs.param.watch(lambda e: location.update_query(tab=e.new), "active")
        doc = pn.state.curdoc
        if doc is not None and doc.session_context is not None:
            self.store.attach(doc)
            # the page's work ends with the page: its session is discarded (and the store's jobs
            # cancelled) at Bokeh's next check after its websocket closes
            pn.state.onload(lambda: expire_when_disconnected(doc))

    def _open_tab_from_url(self) -> None:
        """Open the tab the URL names (``?tab=8``, its index), if it names one; a value that names no
        tab is named in the message bar as the URL's other bad values are (``Ignored in the URL: tab=42``)."""
        args = getattr(pn.state, "session_args", None) or {}
        raw = (args.get("tab") or [b""])[-1].decode("utf-8", "replace")
        if raw and not (raw.isdigit() and int(raw) < len(self.tab_names)):
            bad, msg = f"tab={raw[:40]}", self.store.message
            # build_store's list of ignored values, when there is one, ends the message
            self.store.report(f"{msg}, {bad}" if _IGNORED in msg else "; ".join(m for m in (msg, _IGNORED + bad) if m))
            return
        if raw.isdigit() and 0 < int(raw) < len(self.tab_names):
            # once the page is up: a tab built while the page is (Figures, Discrete) would hold it back
            pn.state.onload(lambda: pn.state.add_periodic_callback(
                lambda: setattr(self.tabs, "active", int(raw)), period=200, count=1))

    def template(self):
        # Bootstrap rather than Fast: the Fast theme always links Google Fonts, which an offline
        # server cannot serve (a console error and a slower first paint).
        tmpl = pn.template.BootstrapTemplate(
            title=TITLE, sidebar=self.sidebar, main=[self.main()], header_background="#1f3f7f",
            sidebar_width=350,
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
    url = server_dist_url()
    if url is not None:
        set_dist_url(doc, url)


#: How the message bar starts the list of the URL's values that were not applied.
_IGNORED = "Ignored in the URL: "


def build_store(**params) -> SessionStore:
    """A session's store: the URL's valid controls over ``params`` (controls and store options).
    Rejected URL values, or valid ones that cannot be computed together (K larger than a class), leave
    the defaults (over ``params``) and a message."""
    url, rejected = url_settings()
    store = SessionStore(**{**params, **url})
    msg = f"{_IGNORED}{', '.join(rejected)}" if rejected else ""
    if store.snapshot is None and url:
        msg = "; ".join(m for m in (store.message, msg) if m)
        # every control back (γ was fitted and M lowered to the refused data), as given: one recomputation
        defaults = {k: params.get(k, Controls.param[k].default) for k in CONTROL_PARAMS}
        store.controls.update_as_given(**defaults)
    if msg:
        store.report(msg)
    return store


#: What the upload card says where uploads are off.
NO_UPLOAD_TEXT = "Uploads are turned off on this server (`buviz serve --no-upload`)."


def build_app(uploads: bool | None = None, **params):
    """The served page (``panel serve apps/explorer.py``); ``uploads=False`` (or the environment
    variable ``BUVIZ_NO_UPLOAD=1``, which ``buviz serve --no-upload`` sets) leaves out the CSV upload."""
    _use_local_stylesheets()
    guard_close_after_failed_ping()
    recompute_models_only_when_changed()
    resolve_detached_models_in_the_session()
    pn.extension("mathjax", "filedropper", notifications=True, loading_indicator=True, sizing_mode="fixed")
    # Canvas, not WebGL: the plots are small, and without a GPU (class VMs, headless browsers)
    # WebGL runs in software and doubles the browser's time per update.
    hv.renderer("bokeh").webgl = False
    # served: a session's sweep starts when a tab that needs it is opened (see ExplorerApp.SWEEP_TABS)
    params.setdefault("auto_sweep", pn.state.curdoc is None)
    served = pn.state.curdoc is not None and pn.state.curdoc.session_context is not None
    # served: uncached settings are computed in the background (latest wins) and the γ row prefetched
    params.setdefault("asynchronous", served)
    params.setdefault("prefetch", served)
    if served:
        one_blas_thread_when_served()
    if uploads is None:
        uploads = os.environ.get("BUVIZ_NO_UPLOAD", "") not in ("1", "true", "yes")
    return ExplorerApp(store=build_store(**params), uploads=uploads).template()
