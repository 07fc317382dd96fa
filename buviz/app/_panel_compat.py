"""The Bokeh and Panel internals that the explorer relies on, in one place.

Checked with panel 1.9.4 and bokeh 3.9.2 (holoviews 1.23.2; its internals are in
:mod:`buviz.plots._hv_compat`). ``tests/app/test_panel_compat.py`` checks each behaviour named here and
fails, naming this module, when a release changes it. No public API serves these needs in those
releases (Panel's API reference and how-to guides were searched for each).

1. **Bokeh's close after a failed keep-alive ping** (:func:`guard_close_after_failed_ping`). Since
   Bokeh 3.4 (bokeh#13655), the keep-alive job calls ``client_lost`` for a socket whose ping fails,
   which detaches the connection from its session. When Tornado then delivers the close,
   ``WSHandler.on_close`` reads ``connection.session``, which asserts the session is still attached:
   an ``AssertionError`` traceback in the server log for a session already cleaned up (many browsers
   closing at once on a busy server: the 20-session load test). The guard finishes the clean-up
   without that read, from ``ServerConnection._session``; everything else is Bokeh's own code. It is
   installed only on the Bokeh releases of :data:`BOKEH_CLOSE_RACE`.
2. **Panel's ``dist_url`` template variable** (:func:`set_dist_url`, :func:`server_dist_url`,
   :func:`jupyter_dist_url`). Panel rewrites the stylesheet links of every model it builds or updates
   to the document's ``template_variables["dist_url"]`` (``reactive.py``), else to its CDN. It sets
   the variable itself only when it renders a served HTML page; a session rebuilt without that page,
   and a notebook's document, have none.
3. **A document as the current one** (:func:`session_document`): ``panel.io.state.set_curdoc``,
   the context manager Panel's own callbacks use, not in Panel's API reference.
4. **Periodic callbacks** (:func:`background_callback`, :func:`is_background`,
   :func:`periodic_callbacks`): ``PeriodicCallback``'s undocumented ``background`` keyword (not
   counted as a busy event, so the busy indicator rests; stored as ``_background``) and the per-document
   registry ``pn.state._periodic`` of the callbacks that ``pn.state.add_periodic_callback`` started.
5. **A model-graph walk only when the graph may have changed** (:func:`recompute_models_only_when_changed`).
   Bokeh's ``DocumentModelManager`` walks every model reachable from the document's roots when the
   outermost ``doc.models.freeze()`` ends, whatever happened inside it. HoloViews wraps every plot
   update in such a freeze, so each cached γ step paid a walk of the whole page (191 models, 13 ms of
   the 60 ms a step costs the server) for changes of data only. Inside a freeze, Bokeh itself calls
   ``invalidate()`` for every property change that adds or drops a model reference, and only roots
   are added without one; the patch walks when either happened, else keeps the graph it has.
6. **A row that wraps** (:class:`WrappingRow`). Panel gives a stretching ``Row`` the sum of its
   children's fixed widths as ``min_width`` (``ListPanel._compute_sizing_mode``), which Bokeh turns
   into the row's CSS ``min-width`` and which the enclosing column and tabs inherit: a row of two
   fixed-size plots can then never wrap, and on a 1280 px screen it widened the whole main area
   beyond the window. :class:`WrappingRow` replaces that inferred ``min_width`` by its own (none unless
   given) and lets the row's children wrap (``flex-wrap: wrap``). A ``FlexBox`` is no substitute:
   its HoloViews panes, sized before their plots arrive, drew empty frames.
7. **URL values read as Panel reads them** (:func:`parse_url_query`): ``panel.util.parse_query``,
   the parser Panel's own ``location.sync`` applies to a page's query (numbers as numbers, the rest as
   text), not in Panel's API reference; the explorer checks a URL's controls with it before the
   session's store exists.
8. **Whether Panel's notebook extension is loaded** (:func:`extension_loaded`): ``pn.extension._loaded``,
   set once ``pn.extension()`` has run in a kernel; :func:`buviz.app.notebook.explore` loads the
   extension (with MathJax, inline) only where the notebook has not, so as not to load it twice.
9. **A served session discarded once its page goes** (:func:`expire_when_disconnected`): the session's
   ``ServerSession.unsubscribe``, which Bokeh calls when a connection closes, is wrapped to call the
   session's ``request_expiration`` when the last connection has gone; Bokeh has no public hook for
   "the last connection closed" (``pn.state.on_session_destroyed`` fires only once Bokeh destroys it).
10. **A file dropper that refuses an oversized file on the server too** (:class:`CappedFileDropper`):
    ``FileDropper``'s browser-side ``max_file_size`` stops an honest browser; a client that skips it
    would still send every chunk, which Panel gathers in ``FileDropper._file_buffer`` from
    ``_process_event``. The subclass counts the bytes of each file's chunks there and drops the file
    (its buffer included) once they pass the cap.
11. **Stylesheets of a model out of the page** (:func:`resolve_detached_models_in_the_session`). A pane
    of a dynamic ``Tabs`` keeps its Bokeh model while its tab is closed, but the model is out of the
    document (``model.document`` is None). A markup pane (``Markdown``, ``HTML``, ``DataFrame``,
    ``Alert``) updated then rebuilds its properties with ``_get_properties(model.document)``
    (``pane/markup.py``), which takes the ``dist_url`` of no document, i.e. Panel's CDN: it rewrites
    the model's stylesheet links (loading, markdown, theme) to ``cdn.holoviz.org``, and the browser
    asks the CDN for them when the tab opens again (offline: failed requests, unstyled panes). The
    gate passes the session's current document instead of None.
12. **A control's change handled at the next tick** (:func:`without_change_debounce`). Panel
    gathers the property changes a browser sends for a widget and handles them 50 ms later
    (``Syncable._debounce``, a timeout callback), except those its class lists in
    ``_priority_changes``, which go to the next tick of the event loop (``reactive.py``,
    ``_server_change``). For the explorer's controls those 50 ms were a third of a cached γ step
    (keydown to the new status painted: about 200 ms, 150 ms without them). The store coalesces
    rapid changes itself (latest wins), so the debounce bought nothing there. The gate adds the
    Bokeh property names of the widget's value (``active`` for a ``Checkbox`` or
    ``RadioButtonGroup``; a slider's ``value_throttled`` too) to its own ``_priority_changes`` (an
    instance attribute: other widgets keep Panel's debounce); :func:`change_debounced` reads it.
13. **FilePond's frame loop only while someone acts** (:class:`FilePondFramePainter`). FilePond, the
    library of Panel's ``FileDropper``, starts one global loop when its script loads: a
    ``requestAnimationFrame`` callback, 60 a second, for as long as the page is open, whether or not a
    dropper is shown (FilePond 4.32, ``createPainter``). Every idle explorer page kept its renderer at
    4-9 % of a core (30 idle pages: 1.3 of this machine's 2 cores; a student's laptop, its battery).
    FilePond joins a painter it finds at ``window.__framePainter`` instead of starting its own; the gate
    puts one there before FilePond's script runs. It paints on every animation frame for 5 s after an
    input event (pointer, key, drag and drop, wheel, focus) and while a dropper is busy (FilePond's
    public ``status``, of the droppers ``FilePond.create`` made), else four times a second. The
    script is the ``__javascript__`` of a Bokeh model class that is never instantiated; Bokeh lists
    the scripts of model classes sorted by their qualified names (``buviz...`` before ``panel...``),
    so it loads before FilePond's.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Callable, Iterator

import bokeh
import bokeh.model
import panel as pn

__all__ = [
    "BOKEH_CLOSE_RACE", "CHECKED", "background_callback", "bokeh_has_close_race",
    "guard_close_after_failed_ping", "is_background", "jupyter_dist_url", "periodic_callbacks",
    "recompute_models_only_when_changed", "server_dist_url", "session_document", "set_dist_url",
    "WrappingRow", "parse_url_query", "extension_loaded", "expire_when_disconnected",
    "CappedFileDropper", "resolve_detached_models_in_the_session", "without_change_debounce", "change_debounced",
    "FRAME_PAINTER_JS", "FilePondFramePainter",
]

log = logging.getLogger(__name__)

#: The releases whose internals this module was checked against.
CHECKED = {"panel": "1.9.4", "bokeh": "3.9.2"}

#: Bokeh releases ``(major, minor)`` with the close race, first and last: from 3.4 (bokeh#13655,
#: where a failed ping first detaches the session) to the last release checked.
BOKEH_CLOSE_RACE = ((3, 4), (3, 9))

#: Where a Jupyter server with Panel's server extension (installed and enabled with Panel) serves
#: Panel's CSS: the path Panel itself uses for its "server" resources in a notebook.
PANEL_PREVIEW_DIST = "panel-preview/static/extensions/panel/"


def _release(version: str) -> tuple[int, int]:
    parts = [int("".join(c for c in p if c.isdigit()) or 0) for p in version.split(".")[:2]]
    return (parts + [0, 0])[0], (parts + [0, 0])[1]


def bokeh_has_close_race(version: str | None = None) -> bool:
    """Whether the Bokeh release ``version`` (default: the installed one) is one of
    :data:`BOKEH_CLOSE_RACE`, where :func:`guard_close_after_failed_ping` is installed."""
    first, last = BOKEH_CLOSE_RACE
    return first <= _release(version or bokeh.__version__) <= last


# -- 1. Bokeh's close after a failed keep-alive ping -------------------------------------------------
def guard_close_after_failed_ping() -> bool:
    """Make ``WSHandler.on_close`` tolerate a connection already detached by the keep-alive job, on the
    Bokeh releases that need it (idempotent); whether the guard is installed. Bokeh's method stays
    reachable as ``WSHandler.on_close.__wrapped__``."""
    from bokeh.server.views.ws import WSHandler

    if getattr(WSHandler.on_close, "_buviz_guard", False):
        return True
    if not bokeh_has_close_race():
        return False
    original = WSHandler.on_close

    def on_close(self) -> None:
        connection = getattr(self, "connection", None)
        if connection is not None and getattr(connection, "_session", True) is None:
            log.info("WebSocket connection closed after its session was detached by a failed keep-alive ping")
            self.application.client_lost(connection)
            return
        original(self)

    on_close._buviz_guard = True
    on_close.__wrapped__ = original
    on_close.__doc__ = original.__doc__
    WSHandler.on_close = on_close
    return True


# -- 2. Panel's dist_url template variable -----------------------------------------------------------
def set_dist_url(doc, url: str) -> None:
    """Take the stylesheets of the models Panel builds or updates in ``doc`` from ``url`` (Panel's
    ``static/extensions/panel/`` folder), unless ``doc`` already names one."""
    doc.template_variables.setdefault("dist_url", url)


def server_dist_url() -> str | None:
    """Where this Panel server serves Panel's files for the current session (relative to the page),
    or None when Panel is set to take them from its CDN."""
    from panel.io.resources import LOCAL_DIST, use_cdn

    if use_cdn():
        return None
    rel = pn.state.rel_path
    return f"{rel}/{LOCAL_DIST}" if rel else LOCAL_DIST


def jupyter_dist_url() -> str:
    """Where the Jupyter server of this kernel serves Panel's files (its server extension's path,
    under ``JUPYTERHUB_SERVICE_PREFIX`` on a JupyterHub)."""
    prefix = os.environ.get("JUPYTERHUB_SERVICE_PREFIX", "/")
    return prefix.rstrip("/") + "/" + PANEL_PREVIEW_DIST


# -- 3. A document as the current one ----------------------------------------------------------------
@contextlib.contextmanager
def session_document(doc) -> Iterator[None]:
    """Run the block with ``doc`` as ``pn.state.curdoc`` (restored afterwards), as Panel runs its own
    callbacks of a session."""
    from panel.io.state import set_curdoc

    with set_curdoc(doc):
        yield


# -- 4. Periodic callbacks ---------------------------------------------------------------------------
def background_callback(callback: Callable[[], object], period: int):
    """A (not started) Panel ``PeriodicCallback`` that Panel does not count as a busy event: the busy
    indicator rests while it runs."""
    from panel.io.callbacks import PeriodicCallback

    return PeriodicCallback(callback=callback, period=int(period), background=True)


def is_background(callback) -> bool:
    """Whether a Panel ``PeriodicCallback`` is a background one (see :func:`background_callback`)."""
    return bool(callback._background)


def periodic_callbacks(doc) -> list:
    """The periodic callbacks ``pn.state.add_periodic_callback`` started for the document ``doc``."""
    return list(pn.state._periodic.get(doc, []))


# -- 5. the model-graph walk at the end of a freeze --------------------------------------------------
def recompute_models_only_when_changed() -> bool:
    """Make the end of the outermost ``doc.models.freeze()`` walk the model graph only when, inside the
    freeze, a property change invalidated it or the roots changed (idempotent; returns True). Bokeh's
    methods stay reachable as ``__wrapped__``."""
    from bokeh.document.models import DocumentModelManager as Manager

    if getattr(Manager._pop_freeze, "_buviz_lazy", False):
        return True
    push, pop, invalidate = Manager._push_freeze, Manager._pop_freeze, Manager.invalidate

    def roots(self) -> tuple:
        doc = self._document()
        return () if doc is None else tuple(doc.roots)

    def _push_freeze(self) -> None:
        if self._freeze_count == 0:
            self._buviz_changed, self._buviz_roots = False, roots(self)
        push(self)

    def _invalidate(self) -> None:
        if self._freeze_count:
            self._buviz_changed = True
        invalidate(self)

    def _pop_freeze(self) -> None:
        if self._freeze_count == 1 and not getattr(self, "_buviz_changed", True) \
                and getattr(self, "_buviz_roots", None) == roots(self):
            self._freeze_count = 0  # nothing can have added or dropped a model: keep the graph
            return
        pop(self)

    for name, fn, original in (("_push_freeze", _push_freeze, push), ("invalidate", _invalidate, invalidate),
                               ("_pop_freeze", _pop_freeze, pop)):
        fn.__wrapped__, fn.__doc__ = original, original.__doc__
        setattr(Manager, name, fn)
    _pop_freeze._buviz_lazy = True
    return True


# -- 6. a row whose children wrap ----------------------------------------------------------------------
class WrappingRow(pn.Row):
    """A stretching :class:`panel.Row` whose children wrap onto the next line where the row is narrower
    than they are (its ``min_width`` is not the sum of theirs; ``flex-wrap: wrap``)."""

    def __init__(self, *objects, **params):
        params.setdefault("sizing_mode", "stretch_width")
        params["styles"] = {"flex-wrap": "wrap", **(params.get("styles") or {})}
        super().__init__(*objects, **params)

    def _compute_sizing_mode(self, children, props):
        out = super()._compute_sizing_mode(children, props)
        out.pop("min_width", None)  # the children's summed widths: the row could never wrap
        if self.min_width is not None:
            out["min_width"] = self.min_width  # one asked for is kept
        return out


# -- 7. URL values ------------------------------------------------------------------------------------
def parse_url_query(query: dict[str, str]) -> dict:
    """``query`` (name → the text of the URL) read as Panel's URL sync reads it: numbers as numbers."""
    from urllib.parse import urlencode

    from panel.util import parse_query

    return parse_query("?" + urlencode(query))


# -- 8. the notebook extension ------------------------------------------------------------------------
def extension_loaded() -> bool:
    """Whether ``pn.extension()`` has already run in this Python process (a notebook's kernel)."""
    return bool(pn.extension._loaded)


# -- 9. a served session discarded once its page goes ---------------------------------------------------
def expire_when_disconnected(doc) -> bool:
    """Served: have Bokeh discard the session of ``doc`` soon after its page goes (its last websocket
    closes), not only after the server's unused-session lifetime.

    Bokeh discards a session without connections once it has had none for
    ``--unused-session-lifetime`` (the explorer keeps that at 2 minutes, for browsers slow to connect
    under load: :data:`buviz.app.UNUSED_SESSION_LIFETIME_MS`), or once its expiration was requested,
    at the server's next check (``--check-unused-sessions``, 17 s by default). This wraps the session's
    ``unsubscribe`` (a Bokeh internal, checked with bokeh 3.9.2) to request the expiration when the
    last connection of a page that did connect closes; Bokeh then destroys the session, and
    :meth:`buviz.app.store.SessionStore.close` cancels its work, within that check. A page that
    reconnects in between keeps its session (Bokeh discards only sessions without connections).
    Returns whether the hook is in place (False: no served session, or a Bokeh without these names).
    """
    ctx = getattr(doc, "session_context", None)
    session = getattr(ctx, "session", None)
    if session is None or not all(hasattr(session, a) for a in ("unsubscribe", "request_expiration",
                                                                "connection_count")):
        return False
    original = session.unsubscribe

    def unsubscribe(connection) -> None:
        original(connection)
        if session.connection_count == 0:
            session.request_expiration()

    session.unsubscribe = unsubscribe
    return True


# -- 10. a file dropper capped on the server too ---------------------------------------------------------
class CappedFileDropper(pn.widgets.FileDropper):
    """Panel's ``FileDropper`` that drops a file whose chunks add up to more than ``max_bytes`` and
    calls ``on_refused(filename, reason)`` (item 10); ``completed`` names the file whose last chunk
    arrived last (what ``value`` just gained)."""

    def __init__(self, max_bytes: int, on_refused: Callable[[str, str], None] | None = None, **params):
        super().__init__(**params)
        self.max_bytes = int(max_bytes)
        self._on_refused = on_refused
        self._received: dict[str, int] = {}
        self._refused: set[str] = set()
        self.completed: str | None = None

    def _process_event(self, event):
        data = event.data
        if event.event_name == "upload_event":
            name = data["name"]
            if data["chunk"] == 1:
                self._received[name] = 0
                self._refused.discard(name)
            if name in self._refused:
                return
            got = self._received.get(name, 0) + len(data["data"] or b"")
            most_chunks = -(-(self.max_bytes + 1) // self.chunk_size)
            if got > self.max_bytes or data["total_chunks"] > most_chunks:
                self._refused.add(name)
                self._file_buffer.pop(name, None)
                self._received.pop(name, None)
                if self._on_refused is not None:
                    self._on_refused(name, f"the file is too large (limit {self.max_bytes} bytes)")
                return
            self._received[name] = got
            if data["chunk"] == data["total_chunks"]:
                self._received.pop(name, None)
                self.completed = name
        super()._process_event(event)


# -- 11. stylesheets of a model out of the page -----------------------------------------------------------
def resolve_detached_models_in_the_session() -> bool:
    """Make Panel resolve the stylesheets of a model that is out of the page (the pane of a closed
    dynamic tab) against the current session's document, not against its CDN (item 11; idempotent;
    returns True). Panel's method stays reachable as ``Reactive._get_properties.__wrapped__``."""
    from panel.reactive import Reactive

    if getattr(Reactive._get_properties, "_buviz_session_doc", False):
        return True
    original = Reactive._get_properties

    def _get_properties(self, doc):
        if doc is None:
            doc = pn.state.curdoc  # the session whose callback runs (None outside one: Panel's behaviour)
        return original(self, doc)

    _get_properties.__wrapped__, _get_properties.__doc__ = original, original.__doc__
    _get_properties._buviz_session_doc = True
    Reactive._get_properties = _get_properties
    return True


# -- 12. a control's change handled at the next tick ------------------------------------------------------
#: The widget parameters whose browser-side changes :func:`without_change_debounce` takes out of Panel's
#: debounce (under the names of their Bokeh properties: a ``Checkbox``'s or ``RadioButtonGroup``'s
#: ``value`` is the model's ``active``).
IMMEDIATE_CHANGES = ("value", "value_throttled")


def _model_names(widget: pn.widgets.Widget) -> list[str]:
    """The Bokeh property names under which ``widget``'s :data:`IMMEDIATE_CHANGES` reach Panel: the
    value's own (mapped by the class), and ``value_throttled``, which a slider links under its own
    name although Panel maps it to none."""
    value = type(widget)._property_mapping.get("value", "value")
    return [n for n in dict.fromkeys((value, "value_throttled")) if n is not None]


def without_change_debounce(widget: pn.widgets.Widget) -> pn.widgets.Widget:
    """Have Panel handle the browser's changes of ``widget``'s value at the next tick of the session's
    event loop instead of after its 50 ms debounce (item 12); returns the widget. Only this widget
    changes; changes that arrive before that tick are still handled together.

    Panel then runs its change handler as it runs a button's click: scheduled, and without Bokeh's
    document lock (``panel.io.server.async_execute``). A watcher of such a widget must therefore change
    Bokeh models only through Panel (parameters, panes) or inside ``pn.io.hold``/``unlocked``; the
    explorer's store hands each change on to a locked next tick (:class:`~buviz.app.session.SessionLink`)."""
    own = [n for n in _model_names(widget) if n not in type(widget)._priority_changes]
    widget._priority_changes = [*type(widget)._priority_changes, *own]
    return widget


def change_debounced(widget: pn.widgets.Widget) -> bool:
    """Whether Panel handles a browser's change of ``widget``'s value after its debounce (not at the
    next tick): False once :func:`without_change_debounce` marked it."""
    return type(widget)._property_mapping.get("value", "value") not in widget._priority_changes


# -- 13. FilePond's frame loop only while someone acts -------------------------------------------------
#: The painter FilePond joins (item 13): every animation frame for ``awakeMs`` after an input event and
#: while a dropper is busy (reading or sending a file), else one tick every ``idleMs`` (and while the
#: page is hidden); from the moment FilePond joins, so that a page without FilePond never ticks.
FRAME_PAINTER_JS = """(function () {
  if (window.__framePainter) return;
  var idleMs = 250, awakeMs = 5000, awakeUntil = 0, timer = null, frame = null, ponds = [], wrapped = false;
  var painter = window.__framePainter = {readers: [], writers: []};
  painter.readers.push = function () {  // FilePond joins: the loop starts (a page without it never ticks)
    var n = Array.prototype.push.apply(this, arguments);
    Promise.resolve().then(watchDroppers);  // once FilePond's script has run to its end
    schedule();
    return n;
  };
  function watchDroppers() {  // the droppers FilePond.create makes, to tell when one is busy
    var filepond = window.FilePond, create = filepond && filepond.create;
    if (wrapped || !create) return;
    wrapped = true;
    filepond.create = function () {
      var pond = create.apply(this, arguments);
      if (pond) ponds.push({pond: pond, shown: false});
      return pond;
    };
  }
  document.addEventListener("FilePond:loaded", watchDroppers);
  painter.watched = function () { busy(); return ponds.length; };  // droppers on the page it watches
  function busy() {
    var status = window.FilePond && window.FilePond.Status;
    ponds = ponds.filter(function (p) {  // a dropper shown once and then taken off the page is forgotten
      try {
        var shown = !!p.pond.element && p.pond.element.isConnected;
        p.shown = p.shown || shown;
        return shown || !p.shown;
      } catch (e) { return false; }
    });
    return !!status && ponds.some(function (p) {
      try { return p.pond.status === status.BUSY; } catch (e) { return false; }
    });
  }
  function tick(ts) {
    timer = frame = null;
    schedule();  // first, so that a callback that throws cannot stop the loop
    painter.readers.forEach(function (read) { read(); });
    painter.writers.forEach(function (write) { write(ts); });
  }
  function schedule() {
    if (timer !== null || frame !== null || !painter.readers.length) return;
    if (!document.hidden && (performance.now() < awakeUntil || busy())) frame = requestAnimationFrame(tick);
    else timer = setTimeout(function () { tick(performance.now()); }, idleMs);
  }
  function wake() {
    awakeUntil = performance.now() + awakeMs;
    if (timer !== null) { clearTimeout(timer); timer = null; }
    schedule();
  }
  ["pointerdown", "pointermove", "keydown", "dragenter", "dragover", "drop", "wheel", "focus"].forEach(
    function (name) { window.addEventListener(name, wake, {capture: true, passive: true}); });
  document.addEventListener("visibilitychange", wake);
  schedule();
})();
"""


def _data_url(script: str) -> str:
    import base64

    return "data:text/javascript;base64," + base64.b64encode(script.encode("utf-8")).decode("ascii")


class FilePondFramePainter(bokeh.model.Model):
    """Carries :data:`FRAME_PAINTER_JS` into every page Panel serves, ahead of FilePond's script (item
    13); never instantiated."""

    __javascript__ = [_data_url(FRAME_PAINTER_JS)]
