"""Explorer export (SVG/PNG through Matplotlib, sweep CSV), the code panel, Proposal 1's overlay, the
LaTeX of the notes and ``buviz serve`` -- all without a browser."""

import io
import os
import socket
import subprocess
import sys
import time
import urllib.request
import xml.etree.ElementTree as ET
from pathlib import Path

import holoviews as hv
import numpy as np
import pandas as pd
import param
import pytest

from buviz.app import compute as st
from buviz.app.curves import CurvesView
from buviz.app.export import sweep_csv, sweep_download, view_bytes
from buviz.app.layout import tab_views
from buviz.app.mathmd import double_dollars, math_markdown
from buviz.app.snippets import CodePanel, snippet
from buviz.app.store import SessionStore
from buviz.app.uncertainty import SAMPLE_SPACE_MD, SampleSpaceView

hv.extension("bokeh")

ROOT = Path(__file__).resolve().parents[2]
SMALL = dict(n_train=150, cv=2, auto_sweep=False)


@pytest.fixture
def state():
    return SessionStore(**SMALL)


def _run(src: str) -> dict:
    ns: dict = {"__name__": "__snippet__"}
    exec(compile(src, "<snippet>", "exec"), ns)
    return ns


# -- export ------------------------------------------------------------------------------------------
def _check_svg(data: bytes):
    root = ET.fromstring(data)
    assert root.tag.endswith("svg")
    assert float(root.get("width").rstrip("pt")) > 100


def _check_png(data: bytes, min_px=(500, 300)):
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    w, h = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert w >= min_px[0] and h >= min_px[1]
    assert len(data) > 5000


def test_every_view_exports_valid_svg_and_png(state):
    views = tab_views(state)
    for name in ("Weights k̂/w", "One sample"):
        _check_svg(view_bytes(views[name], "svg"))
    png = view_bytes(views["Sample space"], "png")
    _check_png(png, (7 * 150 - 2, 5 * 150 - 2))


def test_export_button_callbacks_return_bytes(state):
    from buviz.app.export import export_buttons

    view = SampleSpaceView(store=state)
    row = export_buttons(view, "sample space")
    svg_btn, png_btn = row.objects
    assert svg_btn.filename == "buviz_sample_space.svg" and png_btn.filename.endswith(".png")
    _check_svg(svg_btn.callback().getvalue())
    _check_png(png_btn.callback().getvalue())


def test_export_uses_okabe_ito_and_right_axis_for_u(state):
    from buviz import figures

    t = pd.DataFrame({"log2_gamma": [-1.0, 0.0, 1.0], "L_te": [0.3, 0.2, 0.25], "U_tr": [0.5, 0.8, 0.6]})
    with param.edit_constant(state.cv_sweep):  # the store's output, set here as the sweep would
        state.cv_sweep.table = t
    svg = view_bytes(CurvesView(store=state), "svg").decode()
    assert figures.OKABE_ITO[5].lower() in svg.lower()  # L_te vermillion
    assert svg.count("−Û (best −1)") >= 1  # the right-hand −Û axis label


def test_sweep_csv_download(state):
    assert sweep_csv(None) == b"\n" or sweep_csv(None).strip() == b""
    t = pd.DataFrame({"log2_gamma": [0.0, 1.0], "L_te": [0.2, 0.3], "U_tr": [0.8, 0.7]})
    with param.edit_constant(state.cv_sweep):  # the store's output, set here as the sweep would
        state.cv_sweep.table = t
    fd = sweep_download(state)
    back = pd.read_csv(io.BytesIO(fd.callback().getvalue()))
    pd.testing.assert_frame_equal(back, t)
    assert fd.filename.startswith("buviz_sweep_gmm_N150_svm") and fd.filename.endswith(".csv")


# -- code panel ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("params", [
    dict(log2_gamma=2, M=30, K="3"),
    dict(classifier="MLP", epoch=5, tilde=False),
    dict(dataset="gmm3", log2_gamma=-1, log2_C=2, perturbation=0.3, perturbation_mode="features"),
])
def test_snippet_reproduces_the_numbers_shown(params):
    s = SessionStore(**SMALL, **params)
    assert s.message == ""
    ns = _run(snippet(s.snapshot.settings, sweep=False))
    assert ns["U_tr"] == pytest.approx(s.snapshot.result.value, abs=1e-12)
    assert ns["L_te"] == pytest.approx(s.snapshot.status.L_te, abs=1e-12)
    np.testing.assert_allclose(ns["result"].near_boundary_weights, s.snapshot.result.near_boundary_weights)
    if s.snapshot.bayes_error is not None:
        assert ns["bayes_error"] == pytest.approx(s.snapshot.bayes_error)


def test_snippet_for_a_custom_mixture(state):
    assert state.set_mixture(st.DEFAULT_MIXTURE_JSON.replace("0.6}", "0.7}", 1))
    ns = _run(snippet(state.snapshot.settings, sweep=False))
    assert ns["U_tr"] == pytest.approx(state.snapshot.result.value, abs=1e-12)
    assert ns["L_te"] == pytest.approx(state.snapshot.status.L_te, abs=1e-12)


def test_code_panel_follows_the_state(state):
    panel = CodePanel(store=state)
    assert "gamma=2.0 ** 0" in panel.code()
    state.controls.log2_gamma = 3
    md = panel.code()
    assert "gamma=2.0 ** 3" in md and md.startswith("```python")


@pytest.mark.slow
def test_snippet_sweep_matches_the_app_sweep(tmp_path, monkeypatch):
    s = SessionStore(**SMALL, log2_gamma=1)
    s.cv_sweep.start()
    assert s.cv_sweep.wait(timeout=240) and s.cv_sweep.state == "done"
    monkeypatch.setenv("BUVIZ_CACHE_DIR", str(tmp_path / "other"))  # recompute, no shared rows
    ns = _run(snippet(s.snapshot.settings))
    cols = [c for c in s.cv_sweep.table.columns if not c.startswith("time") and c != "retries"]
    pd.testing.assert_frame_equal(ns["table"][cols].reset_index(drop=True), s.cv_sweep.table[cols])
    assert ns["U_tr"] == pytest.approx(s.cv_sweep.current_row()["U_tr"])


# -- Proposal 1 overlay ----------------------------------------------------------------------------------
def test_proposal1_overlay(state):
    view = SampleSpaceView(store=state)
    off = view.plot(state.snapshot)
    layers = {e.label: e for e in off}
    assert len(layers["P1 anchors"]) == 0 and len(layers["P1 N_B (near-boundary)"]) == 0
    view.proposal1 = True
    state.wait()  # the store computes the overlay in the background
    on = {e.label: e for e in view.plot(state.snapshot)}
    r = view.proposal1_result()
    assert r is not None and len(on["P1 anchors"]) == int(r.anchor_valid.sum()) > 0
    assert len(on["P1 N_B (near-boundary)"]) == len(r.near_boundary)
    assert len(on["P1 clusters"]) == int((r.cluster_labels[0] >= 0).sum())
    assert view.proposal1_result() is r  # cached
    assert "Proposal 1" in view.numbers_text() and f"{r.value:.4f}" in view.numbers_text()
    assert len(off) == len(view.plot(state.snapshot))  # same layers on and off (DynamicMap structure)


def test_proposal1_overlay_is_computed_by_the_store_through_the_one_cache(state):
    """The overlay's result is the store's output ``proposal1`` (a request of the store, in the one
    cache); the view only reads it."""
    from buviz.app import tasks
    from buviz.app.compute import ResultKey

    st.clear_caches()
    view = SampleSpaceView(store=state)
    state.controls.log2_gamma = 3  # a status nobody asked Proposal 1 for yet
    key = ResultKey.of(state.snapshot.settings).status
    assert not tasks.proposal1_result.has(key) and state.proposal1.for_snapshot(state.snapshot) == (False, None)
    view.proposal1 = True  # the store requests it, in the background
    state.wait()  # no server here: the caller waits
    assert state.proposal1.wanted and tasks.proposal1_result.has(key)
    answered, r = state.proposal1.for_snapshot(state.snapshot)
    assert answered and r is tasks.proposal1_result(key) and len(r.near_boundary) > 0
    assert view.proposal1_result() is r
    with pytest.raises(TypeError):
        state.proposal1.result = None  # read-only for views


# -- LaTeX ------------------------------------------------------------------------------------------------
def test_latex_reaches_mathjax_intact():
    html = math_markdown(SAMPLE_SPACE_MD).get_root().text
    assert "<em>{kl}" not in html and "&lt;em&gt;{kl}" not in html
    assert r"$$\hat U^{(3)} = \sum_{\{k,l\}\in\hat{\mathcal I}^{\ast}} \hat P(C_{kl})\,\hat U_{kl}^{(3)}$$" in html
    assert double_dollars(r"a $x_{i}$ and $$y_{j}$$") == r"a $$x_{i}$$ and $$y_{j}$$"


# -- serve ------------------------------------------------------------------------------------------------
def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.slow
def test_buviz_serve_answers_on_localhost(tmp_path):
    port = _free_port()
    env = {**os.environ, "BUVIZ_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.Popen([sys.executable, "-m", "buviz.cli", "serve", "--port", str(port)], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.time() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=30) as r:
                    body = r.read().decode()
                    assert r.status == 200
                    break
            except OSError:
                if proc.poll() is not None or time.time() > deadline:
                    raise AssertionError("buviz serve did not answer") from None
                time.sleep(0.3)
        assert "buviz" in body
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_buviz_serve_accepts_extra_websocket_origins():
    from buviz.app import serve
    from buviz.cli import build_parser

    args = build_parser().parse_args(["serve", "--allow-websocket-origin", "classroom:5006"])
    assert args.allow_websocket_origin == ["classroom:5006"]
    srv = serve(port=_free_port(), start=False, allow_websocket_origin=("classroom:5006",))
    try:
        assert {"classroom:5006", f"127.0.0.1:{srv.port}"} <= set(srv._tornado.websocket_origins)
    finally:
        srv.stop()


def test_buviz_serve_keeps_unconnected_sessions_two_minutes():
    """A class opening the page at once: a session waits 2 min for its browser (Bokeh's default 15 s
    would drop it and build it again on connect, doubling the server's work); callers may override."""
    from buviz.app import UNUSED_SESSION_LIFETIME_MS, serve

    assert UNUSED_SESSION_LIFETIME_MS == 120_000
    for kwargs, expected in (({}, 120_000), ({"unused_session_lifetime_milliseconds": 15_000}, 15_000)):
        srv = serve(port=_free_port(), start=False, **kwargs)
        try:
            assert srv._tornado._unused_session_lifetime_milliseconds == expected
            assert srv._tornado._keep_alive_milliseconds == 0  # no keep-alive pings (see buviz.app.serve)
            assert "127.0.0.1" in str(srv._tornado.websocket_origins)
        finally:
            srv.stop()


#: A served explorer in a process of its own (``buviz serve``'s function, its loop in the main thread):
#: BLAS set to two threads first, then one page fetched (its session built); the BLAS threads before
#: and after.
_SERVED_BLAS = """
import os, sys, threading, time, urllib.request
import numpy, scipy.linalg
from threadpoolctl import threadpool_info, threadpool_limits
from buviz.app import serve

def blas():
    return sorted({i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"})

def fetch_a_page():
    for _ in range(240):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/explorer?n_train=120", timeout=60).read()
            break
        except OSError:
            time.sleep(0.5)
    print("after", blas(), flush=True)
    os._exit(0)

threadpool_limits(limits=2, user_api="blas")
print("before", blas(), flush=True)
port = int(sys.argv[1])
threading.Thread(target=fetch_a_page, daemon=True).start()
serve(port=port)  # as buviz serve does: the server's loop in the main thread
"""


def test_a_served_explorer_gives_blas_one_thread():
    """``buviz serve``: once a page's session is built, the process's BLAS runs one thread
    (``runner.one_blas_thread_when_served``). BLAS's own spinning threads, woken by the γ row's
    prefetch, took the cores from the event loop and the browser (the cached γ step while a row is
    prefetched: about 145 ms with two BLAS threads, 95-115 ms with one; ``benchmarks/bench_browser.py``).
    Two threads are set first, so the test fails without the limit on a machine of any size."""
    from buviz.app.runner import SERVED_BLAS_THREADS

    out = subprocess.run([sys.executable, "-c", _SERVED_BLAS, str(_free_port())], capture_output=True, text=True,
                         timeout=180, cwd=Path(__file__).resolve().parents[2])
    lines = dict(line.split(" ", 1) for line in out.stdout.splitlines() if line.startswith(("before", "after")))
    assert lines.get("before") == "[2]", out.stdout + out.stderr[-2000:]
    assert lines.get("after") == f"[{SERVED_BLAS_THREADS}]", out.stdout + out.stderr[-2000:]
