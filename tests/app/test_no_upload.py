"""The lecturer's switch ``buviz serve --no-upload``: the explorer offers no CSV upload (issue 40)."""

from __future__ import annotations

import panel as pn

from buviz.app.layout import NO_UPLOAD_TEXT, ExplorerApp
from buviz.app.store import SessionStore
from buviz.cli import build_parser


def _inputs(layout) -> list:
    kinds = (pn.widgets.FileInput, pn.widgets.FileDropper)
    return [w for w in layout.select(pn.widgets.Widget) if isinstance(w, kinds)]


def test_without_uploads_the_card_says_so_and_holds_no_file_input():
    store = SessionStore(n_train=200, auto_sweep=False)
    try:
        on = ExplorerApp(store=store)
        off = ExplorerApp(store=store, uploads=False)
        assert len(_inputs(on.control_groups["upload"])) == 1
        card = off.control_groups["upload"]
        assert _inputs(card) == []
        assert any(NO_UPLOAD_TEXT == getattr(o, "object", None) for o in card.objects)
    finally:
        store.close()


def test_buviz_serve_takes_no_upload():
    parser = build_parser()
    assert parser.parse_args(["serve", "--no-upload"]).no_upload is True
    assert parser.parse_args(["serve"]).no_upload is False


def test_buviz_serve_passes_its_switches_and_a_websocket_limit_above_an_uploads_chunks(monkeypatch):
    """``buviz serve --no-upload --session-budget 20`` reaches the server: uploads off, the fair share
    on at 20 s, and the websocket limit set explicitly above the largest message an upload sends (a
    chunk and its JSON wrapping), so no file can close a page's socket."""
    import os

    import panel as pn

    from buviz.app import layout
    from buviz.app.runner import RUNNER
    from buviz.cli import main

    seen = {}
    monkeypatch.setattr(pn, "serve", lambda apps, **kw: seen.update(kw))
    monkeypatch.setattr(RUNNER, "budget", None)
    monkeypatch.delenv("BUVIZ_NO_UPLOAD", raising=False)
    assert main(["serve", "--no-upload", "--session-budget", "20", "--port", "5011"]) == 0
    assert os.environ.pop("BUVIZ_NO_UPLOAD") == "1"
    assert RUNNER.budget is not None and RUNNER.budget.seconds == 20
    assert seen["port"] == 5011 and seen["websocket_max_message_size"] == layout.WEBSOCKET_MAX_MESSAGE_BYTES
    assert layout.WEBSOCKET_MAX_MESSAGE_BYTES >= 2 * layout.UPLOAD_CHUNK_BYTES
