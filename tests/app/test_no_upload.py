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
