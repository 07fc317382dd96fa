"""Server-side latency of the explorer and time to first render (a script printing figures, not a test).

    python benchmarks/bench_app.py [--n 2000] [--repeats 15] [--no-browser]

Drives the param objects directly: a control change -> ``SessionStore.apply`` (snapshot) -> every
view's DynamicMap callback -> Bokeh models updated in a live document (all six boundary tabs
rendered at once, i.e. more than the one tab a user sees). Also: the full 21-γ sweep with 10-fold CV
(background thread, private cold cache), and time to first render of the page in headless Chromium.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def _pct(times):
    t = np.asarray(times) * 1000
    return f"p50 {np.percentile(t, 50):7.1f} ms   p95 {np.percentile(t, 95):7.1f} ms   (n={len(t)})"


def server_side(n: int, repeats: int, tabs: str = "visible"):
    import panel as pn
    from bokeh.document import Document

    from buviz.app import compute as st
    from buviz.app.layout import tab_views
    from buviz.app.store import SessionStore

    state = SessionStore(n_train=n, auto_sweep=False)
    views = tab_views(state)
    doc = Document()
    state.attach(doc)  # as the served app does: one batched update per change
    shown = list(views.values()) if tabs == "all" else [views["Sample space"]]
    for v in shown:
        doc.add_root(pn.panel(v).get_root(doc))
    print(f"-- views in the document: {tabs} ({len(shown)} tab(s))")

    def timed(change):
        t0 = time.perf_counter()
        change()
        return time.perf_counter() - t0

    # γ steps with the status cached: walk a few γ once to fill the cache, then time
    gammas = [-2, -1, 0, 1, 2]
    for g in gammas:
        state.controls.log2_gamma = g
    cached = [timed(lambda g=g: setattr(state, "log2_gamma", g)) for _ in range(max(1, repeats // 5))
              for g in gammas[::-1] + gammas]
    print(f"γ step, status cached        : {_pct(cached)}")

    uncached = []
    for k in range(repeats):
        st.status_eval.clear()
        st.bu_result.clear()
        uncached.append(timed(lambda k=k: setattr(state, "log2_gamma", [3, 4, 5][k % 3])))
    print(f"γ step, uncached             : {_pct(uncached)}")

    m_change = []
    for k in range(repeats):
        st.bu_fitted.clear()
        st.bu_result.clear()
        m_change.append(timed(lambda k=k: setattr(state, "M", [30, 50][k % 2])))
    print(f"M change (refit Proposal 2)  : {_pct(m_change)}")

    ds_change = []
    names = ["gmm_separable", "gmm", "gmm_inclusion"]
    for k in range(max(3, repeats // 2)):
        st.clear_caches()
        ds_change.append(timed(lambda k=k: setattr(state, "dataset", names[k % 3])))
    print(f"dataset change (all uncached): {_pct(ds_change)}")
    return state


def sweep_time(n: int):
    from buviz.app.store import SessionStore

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["BUVIZ_CACHE_DIR"] = tmp
        state = SessionStore(n_train=n, auto_sweep=False, cv=10)
        t0 = time.perf_counter()
        first = None
        state.cv_sweep.start()
        while not state.cv_sweep.shared.finished:
            time.sleep(0.1)
            state.poll_sweep()
            if first is None and state.cv_sweep.table is not None and len(state.cv_sweep.table):
                first = time.perf_counter() - t0
        state.cv_sweep.wait()
        total = time.perf_counter() - t0
        rows = 0 if state.cv_sweep.table is None else len(state.cv_sweep.table)
        p1 = "with Proposal 1" if state.cv_sweep.table is not None and "U1_tr" in state.cv_sweep.table else ""
        print(f"full sweep, 21 γ × 10-fold CV, N={n} {p1}: {total:.1f} s (first row after {first or 0:.1f} s, "
              f"{rows} rows, state {state.cv_sweep.state})")
        t0 = time.perf_counter()
        state.cv_sweep.start(force=True)
        state.cv_sweep.wait()
        print(f"same sweep again (disk cache): {time.perf_counter() - t0:.2f} s")


def first_render(n: int, repeats: int = 3):
    from playwright.sync_api import sync_playwright

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "BUVIZ_CACHE_DIR": tempfile.mkdtemp()}
    proc = subprocess.Popen([sys.executable, "-m", "panel", "serve", "apps/explorer.py", "--port", str(port),
                             "--address", "127.0.0.1"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/explorer?n_train={n}"
    try:
        for _ in range(240):
            try:
                urllib.request.urlopen(url, timeout=120).read()  # warms the caches (first session)
                break
            except OSError:
                time.sleep(0.5)
        args = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--no-first-run"]
        times = []
        with sync_playwright() as p:
            b = p.chromium.launch(executable_path="/usr/bin/chromium", args=args)
            for _ in range(repeats):
                page = b.new_page(viewport={"width": 1600, "height": 1000})
                t0 = time.perf_counter()
                page.goto(url)
                page.wait_for_selector("canvas", timeout=120_000)
                page.get_by_text("Status Λ").first.wait_for(timeout=120_000)
                times.append(time.perf_counter() - t0)
                page.close()
            b.close()
        print(f"first render in Chromium (N={n}, warm server caches): "
              + ", ".join(f"{t:.2f} s" for t in times))
    finally:
        proc.terminate()
        proc.wait(10)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--no-browser", action="store_true")
    ap.add_argument("--no-sweep", action="store_true")
    a = ap.parse_args()
    os.environ.setdefault("BUVIZ_CACHE_DIR", tempfile.mkdtemp())
    print(f"buviz explorer, N = {a.n}, {os.cpu_count()} CPUs")
    server_side(a.n, a.repeats, "visible")
    server_side(a.n, max(5, a.repeats // 3), "all")
    if not a.no_sweep:
        sweep_time(a.n)
    if not a.no_browser:
        first_render(a.n)


if __name__ == "__main__":
    main()
