"""The Bokeh and Panel internals of buviz.app._panel_compat: each behaviour the explorer relies on, on the
installed releases. A failure here means a release changed one: revisit buviz/app/_panel_compat.py."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import bokeh
import panel as pn
import pytest
from bokeh.document import Document
from bokeh.models import ImportedStyleSheet

from buviz.app import _panel_compat as compat

REVISIT = f"(checked with {compat.CHECKED}): revisit buviz/app/_panel_compat.py"


# -- 1. Bokeh's close after a failed keep-alive ping -------------------------------------------------
class _Session:
    """The part of a Bokeh ``ServerSession`` that a connection and its close use."""

    def __init__(self):
        self.subscribed, self.notified = set(), False

    def subscribe(self, c):
        self.subscribed.add(c)

    def unsubscribe(self, c):
        self.subscribed.discard(c)

    def notify_connection_lost(self):
        self.notified = True


def _handler(failed_ping: bool):
    """A Bokeh ``WSHandler`` whose connection's session was (or was not) detached by the keep-alive."""
    from bokeh.server.connection import ServerConnection
    from bokeh.server.views.ws import WSHandler

    session = _Session()
    try:
        conn = ServerConnection(None, None, None, session)
        lost = []
        app = SimpleNamespace(client_lost=lambda c: (lost.append(c), c.detach_session()))
        if failed_ping:
            app.client_lost(conn)  # what Bokeh's _keep_alive does when a ping fails
            assert conn._session is None, "detach_session no longer clears ServerConnection._session"
        h = WSHandler.__new__(WSHandler)
        h.connection, h.application, h.close_code, h.close_reason = conn, app, None, None
    except Exception as e:  # a changed constructor or attribute: the guard's assumptions are gone
        pytest.fail(f"Bokeh {bokeh.__version__}'s WSHandler/ServerConnection changed ({e!r}) {REVISIT}")
    return h, lost, session


def test_the_bokeh_close_race_is_guarded_exactly_on_the_releases_that_have_it():
    """On the installed Bokeh, the close that follows a failed keep-alive ping raises in Bokeh's own
    ``on_close`` exactly when the release is one of ``BOKEH_CLOSE_RACE``, where the guard goes in."""
    from bokeh.server.views.ws import WSHandler

    bokeh_on_close = getattr(WSHandler.on_close, "__wrapped__", WSHandler.on_close)
    h, _, _ = _handler(failed_ping=True)
    try:
        bokeh_on_close(h)
        race = False
    except AssertionError:
        race = True
    expected = compat.bokeh_has_close_race()
    assert race == expected, (
        f"Bokeh {bokeh.__version__} {'has' if race else 'no longer has'} the close race after a failed "
        f"keep-alive ping, but BOKEH_CLOSE_RACE = {compat.BOKEH_CLOSE_RACE} {REVISIT}")
    assert compat.guard_close_after_failed_ping() is expected
    assert compat.guard_close_after_failed_ping() is expected  # idempotent
    if not expected:
        assert not getattr(WSHandler.on_close, "_buviz_guard", False)
        return
    h, lost, session = _handler(failed_ping=True)
    h.on_close()  # the guarded close finishes the clean-up quietly
    assert len(lost) == 2 and session.subscribed == set()
    # an ordinary close still goes through Bokeh's own code (the document hears of the lost connection)
    h, lost, session = _handler(failed_ping=False)
    h.on_close()
    assert session.notified and session.subscribed == set() and len(lost) == 1


def test_the_release_window_of_the_guard():
    assert compat.bokeh_has_close_race("3.4.0") and compat.bokeh_has_close_race("3.9.2")
    assert compat.bokeh_has_close_race("3.9.0rc1")
    assert not compat.bokeh_has_close_race("3.3.4") and not compat.bokeh_has_close_race("3.10.0")


# -- 2. Panel's dist_url template variable -----------------------------------------------------------
def _stylesheet_urls(root) -> set[str]:
    return {str(s.url) for s in root.select({"type": ImportedStyleSheet})}


def test_panel_takes_stylesheets_from_the_documents_dist_url():
    """Panel rewrites the stylesheet links of the models it builds (and updates) to the document's
    ``dist_url`` template variable; without one they point at its CDN."""
    from panel.io.resources import CDN_DIST

    plain = _stylesheet_urls(pn.pane.Markdown("a").get_root(Document()))
    assert plain and all(u.startswith(CDN_DIST) for u in plain), f"Panel's default links changed {REVISIT}"

    doc, url = Document(), "/prefix/static/extensions/panel/"
    compat.set_dist_url(doc, url)
    compat.set_dist_url(doc, "/elsewhere/")  # the first one set stays
    md = pn.pane.Markdown("a")
    root = md.get_root(doc)
    urls = _stylesheet_urls(root)
    assert urls and all(u.startswith(url) for u in urls), f"Panel no longer reads dist_url: {urls} {REVISIT}"
    md.stylesheets = [f"{CDN_DIST}css/markdown.css"]  # an update that carries stylesheets
    later = _stylesheet_urls(root)
    assert later and all(u.startswith(url) for u in later), f"updates ignore dist_url: {later} {REVISIT}"


def test_the_server_and_jupyter_dist_urls(monkeypatch):
    from panel.io.resources import LOCAL_DIST

    monkeypatch.setenv("BOKEH_RESOURCES", "cdn")  # Panel's own files from its CDN: nothing to point at
    assert compat.server_dist_url() is None
    monkeypatch.setenv("BOKEH_RESOURCES", "server")
    assert compat.server_dist_url() == LOCAL_DIST  # outside a session: no relative path
    monkeypatch.delenv("JUPYTERHUB_SERVICE_PREFIX", raising=False)
    assert compat.jupyter_dist_url() == "/" + compat.PANEL_PREVIEW_DIST
    monkeypatch.setenv("JUPYTERHUB_SERVICE_PREFIX", "/user/ana/")
    assert compat.jupyter_dist_url() == "/user/ana/" + compat.PANEL_PREVIEW_DIST


# -- 3. A document as the current one ----------------------------------------------------------------
def test_session_document_is_the_current_document_inside_the_block_only():
    doc = Document()
    before = pn.state.curdoc
    with compat.session_document(doc):
        assert pn.state.curdoc is doc, f"panel.io.state.set_curdoc no longer sets pn.state.curdoc {REVISIT}"
    assert pn.state.curdoc is before


# -- 4. Periodic callbacks ---------------------------------------------------------------------------
def test_periodic_callbacks_lists_what_add_periodic_callback_started_for_a_document():
    doc = Document()
    assert compat.periodic_callbacks(doc) == []
    with compat.session_document(doc):
        cb = pn.state.add_periodic_callback(lambda: None, period=1000, start=False)
    assert compat.periodic_callbacks(doc) == [cb], f"pn.state._periodic changed {REVISIT}"
    assert compat.periodic_callbacks(Document()) == []


def test_a_background_callback_keeps_the_busy_indicator_at_rest():
    """A plain periodic callback makes ``pn.state.busy`` true while it runs; a background one does not."""

    async def busy_while_running(cb) -> bool:
        seen = []
        cb.callback = lambda: seen.append(pn.state.busy)
        cb.count = 1
        cb.start()
        for _ in range(200):
            if seen:
                break
            await asyncio.sleep(0.01)
        cb.stop()
        assert seen, "the periodic callback never ran"
        return seen[0]

    from panel.io.callbacks import PeriodicCallback

    background = compat.background_callback(lambda: None, period=10)
    assert compat.is_background(background) and not compat.is_background(PeriodicCallback(period=10))
    assert asyncio.run(busy_while_running(PeriodicCallback(period=10))) is True, f"busy events changed {REVISIT}"
    assert asyncio.run(busy_while_running(background)) is False, f"background= no longer rests {REVISIT}"


# -- 5. the model-graph walk at the end of a freeze --------------------------------------------------
def test_the_model_graph_is_walked_after_a_freeze_only_when_a_model_may_have_been_added(monkeypatch):
    from bokeh.document.models import DocumentModelManager
    from bokeh.models import ColumnDataSource, Div
    from bokeh.plotting import figure

    assert compat.recompute_models_only_when_changed() and compat.recompute_models_only_when_changed()
    doc, plot = Document(), figure()
    source = ColumnDataSource({"x": [1.0], "y": [2.0]})
    plot.scatter("x", "y", source=source)
    doc.add_root(plot)
    walks = []
    recompute = DocumentModelManager.recompute
    monkeypatch.setattr(DocumentModelManager, "recompute", lambda self: (walks.append(1), recompute(self))[1])
    with doc.models.freeze(), doc.models.freeze():  # what HoloViews' hold_render does around a plot update
        source.data = {"x": [3.0], "y": [4.0]}  # data only: the graph cannot have changed
    assert walks == [], f"a data-only freeze still walks the model graph {REVISIT}"
    new_source = ColumnDataSource({"x": [5.0], "y": [6.0]})
    with doc.models.freeze():
        plot.renderers[0].data_source = new_source  # a new model, reachable only through this property
    assert walks == [1], f"Bokeh no longer invalidates the graph when a model is referenced {REVISIT}"
    assert doc.models.get_by_id(new_source.id) is new_source, f"a model added in a freeze was lost {REVISIT}"
    div = Div(text="a root")
    with doc.models.freeze():
        doc.add_root(div)
    assert doc.models.get_by_id(div.id) is div, f"a root added in a freeze was lost {REVISIT}"
    with doc.models.freeze():
        plot.renderers[0].data_source = source  # new_source dropped from the graph
    assert doc.models.get_by_id(new_source.id) is None, f"a model dropped in a freeze stays {REVISIT}"


def test_no_other_module_touches_these_internals():
    """The internals named in buviz/app/_panel_compat.py and buviz/plots/_hv_compat.py are used there and
    nowhere else in buviz."""
    import pathlib
    import re

    import buviz

    pattern = re.compile(r"set_curdoc|\._periodic\b|[\"']dist_url[\"']|bokeh\.server|PeriodicCallback\(|\._background\b"
                         r"|WSHandler|LOCAL_DIST|use_cdn\(|DocumentModelManager|_freeze\b|models\.recompute"
                         r"|parse_query|_compute_sizing_mode|Store\.options\(|allowed_keywords|_is_overlay"
                         r"|Store\.custom_options|\._loaded\b|\bid=\w+\.id\b|_get_properties|_priority_changes")
    root = pathlib.Path(buviz.__file__).parent
    gates = {"_panel_compat.py", "_hv_compat.py"}
    found = [f"{p.relative_to(root)}:{i}: {line.strip()}" for p in sorted(root.rglob("*.py")) if p.name not in gates
             for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if pattern.search(line)]
    assert not found, "HoloViews/Bokeh/Panel internals outside the two gate modules:\n" + "\n".join(found)


# -- 7. URL values ------------------------------------------------------------------------------------
def test_url_values_are_read_as_panels_url_sync_reads_them():
    parsed = compat.parse_url_query({"M": "30", "perturbation": "0.25", "dataset": "gmm", "K": "aic"})
    assert parsed == {"M": 30, "perturbation": 0.25, "dataset": "gmm", "K": "aic"}, (
        f"panel.util.parse_query reads a query differently {REVISIT}")


# -- 6. a row whose children wrap ----------------------------------------------------------------------
def test_a_stretching_row_gets_its_childrens_summed_width_and_the_wrapping_row_does_not():
    """Panel infers a stretching Row's min_width as the sum of its children's widths (what stopped the
    Error vs −Û row from wrapping); WrappingRow drops that and only that, and wraps."""
    def children():
        return pn.Spacer(width=640, height=10), pn.Spacer(width=460, height=10)

    plain = pn.Row(*children(), sizing_mode="stretch_width").get_root(Document())
    assert plain.min_width == 1100, f"Panel no longer infers a Row's min_width {REVISIT}"
    wrapping = compat.WrappingRow(*children())
    root = wrapping.get_root(Document())
    assert root.min_width in (None, 0) and root.sizing_mode == "stretch_width"
    assert wrapping.styles["flex-wrap"] == "wrap"
    kept = compat.WrappingRow(*children(), min_width=300).get_root(Document())
    assert kept.min_width == 300  # a min_width asked for is kept


# -- 8. the notebook extension ------------------------------------------------------------------------
def test_extension_loaded_turns_true_once_panels_extension_has_run():
    """Read in a fresh interpreter: this test process has loaded the extension long ago."""
    import subprocess
    import sys

    code = ("import panel as pn; from buviz.app import _panel_compat as c; a = c.extension_loaded(); "
            "pn.extension(); print(a, c.extension_loaded())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[-2:] == ["False", "True"], f"pn.extension._loaded changed {REVISIT}: {out.stdout}"


# -- 9. a served session discarded once its page goes -----------------------------------------------
def test_a_session_requests_its_expiration_when_its_last_connection_closes():
    """``expire_when_disconnected`` on a real Bokeh ``ServerSession``: one of two connections closing
    keeps the session, the last one requests its expiration; a document that is not served is left alone."""
    from bokeh.server.session import ServerSession

    session = ServerSession("buviz-test", Document(), None)
    a, b = object(), object()
    session.subscribe(a)
    session.subscribe(b)
    doc = SimpleNamespace(session_context=SimpleNamespace(session=session))
    assert compat.expire_when_disconnected(doc), f"Bokeh's ServerSession lacks the names the hook wraps {REVISIT}"
    session.unsubscribe(a)
    assert session.connection_count == 1 and not session.expiration_requested, f"expired too early {REVISIT}"
    session.unsubscribe(b)
    assert session.connection_count == 0 and session.expiration_requested, (
        f"the last connection's close no longer requests the expiration {REVISIT}")
    assert compat.expire_when_disconnected(SimpleNamespace(session_context=None)) is False


# -- 10. a file dropper capped on the server too --------------------------------------------------------
def _chunks(name: str, payload: bytes, size: int):
    """The upload events Panel's FileDropper receives for ``payload`` sent in chunks of ``size`` bytes."""
    parts = [payload[i:i + size] for i in range(0, len(payload), size)] or [b""]
    return [SimpleNamespace(event_name="upload_event", data={"name": name, "chunk": i + 1, "total_chunks": len(parts),
                                                             "data": part, "type": "text/csv"})
            for i, part in enumerate(parts)]


def test_a_capped_file_dropper_keeps_a_file_within_the_cap_and_drops_one_beyond_it():
    """``CappedFileDropper`` over Panel's own ``FileDropper._process_event``: a file within the cap
    arrives whole in ``value``; one whose chunks pass the cap is dropped, its buffer freed, and reported."""
    refused = []
    w = compat.CappedFileDropper(10, on_refused=lambda name, why: refused.append((name, why)), chunk_size=4)
    for event in _chunks("ok.csv", b"a,b\n1,2\n", 4):
        w._process_event(event)
    assert w.value == {"ok.csv": "a,b\n1,2\n"} and w.completed == "ok.csv", f"FileDropper changed {REVISIT}"
    big = _chunks("big.csv", b"x" * 16, 4)
    for event in big:
        w._process_event(event)
    assert "big.csv" not in w.value and refused and refused[0][0] == "big.csv" and "10 bytes" in refused[0][1]
    assert "big.csv" not in getattr(w, "_file_buffer", {}), f"the dropped file's chunks are kept {REVISIT}"


# -- 11. stylesheets of a model out of the page ----------------------------------------------------------
def _update_a_closed_tabs_markdown(doc) -> list[str]:
    """The stylesheet links of a Markdown pane's model after an update while its dynamic tab is closed
    (its model out of the document), in ``doc``'s session."""
    from panel.io.state import set_curdoc

    with set_curdoc(doc):
        md = pn.pane.Markdown("a")
        tabs = pn.Tabs(("one", pn.pane.Markdown("x")), ("two", md), dynamic=True)
        root = tabs.get_root(doc)
        doc.add_root(root)
        tabs.active = 1
        model = md._models[root.ref["id"]][0]
        assert model.document is doc
        tabs.active = 0  # closed: Panel keeps the model for the tab's next opening, out of the document
        assert model.document is None, f"Panel's dynamic Tabs no longer detach a closed tab's model {REVISIT}"
        md.object = "b"
        return _stylesheet_urls(model)


def test_a_closed_tabs_pane_keeps_the_servers_stylesheets(monkeypatch):
    """Panel alone rewrites a closed dynamic tab's updated Markdown to its CDN; with the gate its links
    stay on the server's dist_url."""
    from panel.io.resources import CDN_DIST
    from panel.reactive import Reactive

    url = "/static/extensions/panel/"
    compat.resolve_detached_models_in_the_session()
    panels_own = Reactive._get_properties.__wrapped__
    with monkeypatch.context() as m:
        m.setattr(Reactive, "_get_properties", panels_own)
        doc = Document()
        compat.set_dist_url(doc, url)
        before = _update_a_closed_tabs_markdown(doc)
    assert any(u.startswith(CDN_DIST) for u in before), \
        f"Panel no longer points a detached model at its CDN ({before}): item 11 may go {REVISIT}"
    doc = Document()
    compat.set_dist_url(doc, url)
    after = _update_a_closed_tabs_markdown(doc)
    assert after and all(u.startswith(url) for u in after), after
    assert compat.resolve_detached_models_in_the_session() and Reactive._get_properties.__wrapped__ is panels_own


# -- 12. a control's change handled at the next tick -----------------------------------------------------
class _ServedDocument:
    """The part of a served Bokeh ``Document`` that Panel's handling of a browser's change uses: it
    records whether the change is handled after a timeout (the debounce) or at the next tick."""

    session_context = object()

    def __init__(self):
        self.timeouts, self.next_ticks = [], []

    def add_timeout_callback(self, cb, ms):
        self.timeouts.append(ms)

    def add_next_tick_callback(self, cb):
        self.next_ticks.append(cb)


def _browser_changes(widget, prop: str | None = None) -> _ServedDocument:
    """Panel's handling of a browser's change of ``widget``'s Bokeh property ``prop`` (by default the
    one its value is synced to)."""
    from panel.io.state import state

    doc = _ServedDocument()
    prop = prop or type(widget)._property_mapping.get("value", "value")
    try:
        widget._server_change(doc, "ref", None, prop, None, 1)
    finally:
        state._change_callbacks.pop(doc, None)
        widget._events.clear()
    return doc


@pytest.mark.parametrize("kind", [pn.widgets.IntSlider, pn.widgets.Checkbox, pn.widgets.RadioButtonGroup,
                                  pn.widgets.Select, pn.widgets.IntInput])
def test_a_control_without_the_debounce_is_handled_at_the_next_tick_and_others_keep_it(kind):
    """Panel handles a browser's change of a widget 50 ms later (a timeout callback); the gate's widget
    goes to the next tick, also where the value is another Bokeh property (a Checkbox's ``active``), and
    another widget of the same class keeps Panel's debounce."""
    options = {"options": ["a", "b"]} if kind in (pn.widgets.RadioButtonGroup, pn.widgets.Select) else {}
    kept, fast = kind(**options), kind(**options)
    assert compat.change_debounced(kept) and compat.change_debounced(fast)
    assert compat.without_change_debounce(fast) is fast and not compat.change_debounced(fast)
    debounced = _browser_changes(kept)
    assert debounced.timeouts == [50] and not debounced.next_ticks, f"Panel's debounce changed {REVISIT}"
    immediate = _browser_changes(fast)
    assert immediate.next_ticks and not immediate.timeouts, f"Panel's priority changes changed {REVISIT}"
    assert _browser_changes(kept).timeouts == [50] and compat.change_debounced(kind(**options))


def test_a_sliders_release_is_handled_at_the_next_tick_too():
    """A slider's ``value_throttled`` (sent on release) reaches Panel under its own name."""
    doc = _browser_changes(compat.without_change_debounce(pn.widgets.IntSlider(start=0, end=5)), "value_throttled")
    assert doc.next_ticks and not doc.timeouts, f"a slider's release is debounced {REVISIT}"


# -- 13. FilePond's frame loop only while someone acts -------------------------------------------------
def test_filepond_joins_a_painter_it_finds_and_the_painters_script_loads_first():
    """FilePond's script starts no loop of its own where ``window.__framePainter`` exists, and Panel's
    served resources list the painter's script before FilePond's (the idle-page browser test in
    tests/ui/test_upload_ui.py measures the effect)."""
    from pathlib import Path

    from bokeh.model import Model
    from panel.io.resources import set_resource_mode
    from panel.models.file_dropper import FileDropper

    dist = Path(pn.__file__).parent / "dist"
    with set_resource_mode("server"):  # the paths of Panel's own files (another test may have inlined them)
        script = next(u for u in FileDropper.__javascript__ if u.endswith("/filepond.min.js"))
    source = (dist / script.removeprefix("static/extensions/panel/")).read_text(encoding="utf-8")
    assert 'r="__framePainter";if(window[r])return window[r].readers.push(e),void window[r].writers.push(t)' \
        in source, f"FilePond no longer joins window.__framePainter {REVISIT}"
    names = sorted(Model.model_class_reverse_map)
    ours, theirs = compat.FilePondFramePainter.__qualified_model__, FileDropper.__qualified_model__
    assert names.index(ours) < names.index(theirs), f"the painter's script no longer loads first {REVISIT}"
    assert compat.FilePondFramePainter.__javascript__[0].startswith("data:text/javascript;base64,")
