"""How the explorer feels in a real browser (a script printing figures, not a test).

    python benchmarks/bench_browser.py [--n 1000] [--steps 20] [--browsers 1 5] [--trace FILE]

Serves ``apps/explorer.py`` and drives headless Chromium (Debian's ``/usr/bin/chromium``) through
Playwright. Every latency is measured inside the page: from the ``keydown`` (or ``change``, or
``pointerup``) event to the first animation frame at which the new status is on screen, i.e. the
numbers pane and the sample-space plot's title both name it (Bokeh models, then one more frame for
the canvas to paint). Figures:

- cached γ step: key presses over γ positions already computed (median, p90), first while the page's
  own background work runs (its first CV sweep in niced worker processes, the γ row's prefetch: what a
  user who starts at once meets), then again once the server and its workers are idle (under 5 % of a
  core over a second; the wait is printed);
- uncached γ step: the first visit of a γ, with the server's prefetch off (``BUVIZ_PREFETCH=0``);
- live drag: the γ handle dragged across 6 cached positions in about 3 s, mouse button held; the
  distinct statuses shown while held, and the time from release to the released position shown;
- M, K and T̃-amplitude changes (median);
- first render (page open to the status shown);
- the cached-step and drag figures again with ``--browsers`` pages driven at once;
- Letter Recognition (d = 16, 26 classes) with N = ``--letter`` (2000) subsampled live: first render
  and cached γ steps (the numbers pane naming the status; no 2-D map).

``--trace FILE`` records a Chrome performance trace (Playwright's CDP session) of 6 cached γ steps,
and prints where the renderer's main thread spent that time (top trace events by total duration).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.ui.conftest import (  # noqa: E402
    ARGS,
    CHROMIUM,
    PROBE_JS,
    RECORD_JS,
    WAIT_JS,
    ExplorerServer,
    process_tree_cpu,
)


def label(g: int) -> str:
    return f"γ = 2^{g},"


def pct(values, q):
    v = sorted(values)
    return v[min(len(v) - 1, int(round(q / 100 * (len(v) - 1))))]


def summary(ms) -> str:
    ms = [m for m in ms if m is not None]
    if not ms:
        return "no data"
    return (f"median {statistics.median(ms):6.0f} ms   p90 {pct(ms, 90):6.0f} ms   max {max(ms):6.0f} ms   "
            f"(n={len(ms)})")


class Page:
    """One explorer page: open, press keys on the γ slider, wait for statuses."""

    def __init__(self, page, url, moved: bool = True):
        # moved: a status change also redraws B(Λ) on the sample-space map (2-D data); for d > 2
        # only the numbers pane names the new status
        self.page, self.url, self.moved = page, url, moved

    async def open(self) -> float:
        t0 = time.perf_counter()
        await self.page.goto(self.url)
        if self.moved:
            await self.page.wait_for_selector("canvas", timeout=120_000)
        await self.page.get_by_text("Status Λ").first.wait_for(timeout=120_000)
        await self.page.evaluate(PROBE_JS)
        return time.perf_counter() - t0

    def handle(self, name="log₂ γ"):
        return self.page.locator(".bk-input-group", has_text=name).locator(".noUi-handle").first

    async def gamma(self) -> int:
        txt = await self.page.evaluate("() => window.__bzShown().numbers")
        import re

        return int(re.search(r"γ = 2\^(-?\d+)", txt).group(1))

    async def step(self, key: str, want: str, extra: str = "", timeout=60_000):
        await self.handle().focus()
        await self.page.keyboard.press(key)
        return await self.page.evaluate(WAIT_JS, [want, extra, timeout, self.moved])

    async def walk(self, positions):
        """Key presses from the current γ through ``positions``; the latency of each (ms)."""
        out = []
        g = await self.gamma()
        for target in positions:
            key = "ArrowRight" if target > g else "ArrowLeft"
            while g != target:
                g += 1 if key == "ArrowRight" else -1
                out.append(await self.step(key, label(g)))
        return out

    async def drag(self, positions, seconds=3.0):
        """Drag the γ handle over ``positions`` (button held, ~``seconds``); returns (statuses seen
        while held, ms from release to the released position shown)."""
        page = self.page
        handle = self.handle()
        box = await handle.bounding_box()
        track = await self.page.locator(".bk-input-group", has_text="log₂ γ").locator(".noUi-base").first.bounding_box()
        lo, hi = -15, 15  # the slider's bounds
        y = box["y"] + box["height"] / 2

        def x_of(g):
            return track["x"] + (g - lo) / (hi - lo) * track["width"]

        await page.mouse.move(box["x"] + box["width"] / 2, y)
        await page.evaluate(RECORD_JS)
        await page.mouse.down()
        pause = seconds / len(positions)
        for g in positions:
            await page.mouse.move(x_of(g), y, steps=4)
            await page.wait_for_timeout(pause * 1000)
        seen_held = await page.evaluate("() => window.__bzSeen.map(s => s[0])")
        await page.mouse.up()
        ms = await page.evaluate(WAIT_JS, [label(positions[-1]), "", 30_000, False])
        await page.evaluate("() => { window.__bzRec = false; }")
        return [int(s) for s in seen_held], ms

    async def change_select(self, name, value, extra):
        sel = self.page.locator(".bk-input-group", has_text=name).locator("select").first
        await self.page.evaluate("() => { window.__bz.t0 = performance.now(); }")
        await sel.select_option(value)
        return await self.page.evaluate(WAIT_JS, ["Status Λ", extra, 60_000, False])

    async def change_input(self, name, value, extra):
        inp = self.page.locator(".bk-input-group", has_text=name).locator("input").first
        await inp.fill(str(value))
        await self.page.evaluate("() => { window.__bz.t0 = performance.now(); }")
        await inp.press("Enter")
        return await self.page.evaluate(WAIT_JS, ["Status Λ", extra, 60_000, False])

    async def step_slider(self, name, key, extra):
        await self.handle(name).focus()
        await self.page.keyboard.press(key)
        return await self.page.evaluate(WAIT_JS, ["Status Λ", extra, 60_000, False])


async def trace_steps(cdp_page, path: Path):
    """A Chrome performance trace of 6 cached γ steps; prints the main thread's top events."""
    page = cdp_page.page
    client = await page.context.new_cdp_session(page)
    chunks = []
    done = asyncio.Event()
    client.on("Tracing.dataCollected", lambda e: chunks.extend(e["value"]))
    client.on("Tracing.tracingComplete", lambda e: done.set())
    categories = "devtools.timeline,blink,v8,disabled-by-default-devtools.timeline"
    await client.send("Tracing.start", {"categories": categories, "transferMode": "ReportEvents"})
    ms = await cdp_page.walk([3, 0])
    await client.send("Tracing.end")
    await done.wait()
    path.write_text(json.dumps({"traceEvents": chunks}))
    totals = collections.Counter()
    for e in chunks:
        if e.get("ph") == "X" and "dur" in e:
            totals[e["name"]] += e["dur"] / 1000
    print(f"trace of {len(ms)} cached steps ({summary(ms)}) -> {path}")
    for name, t in totals.most_common(14):
        print(f"   {t:8.0f} ms  {name}")


def wait_until_idle(pid: int, share: float = 0.05, window: float = 1.0, quiet: int = 3,
                    limit: float = 240.0) -> float | None:
    """Seconds until process ``pid`` and every process below it (the sweeps' joblib workers) use under
    ``share`` of one core in each of ``quiet`` windows of ``window`` seconds in a row (None: not within
    ``limit`` seconds). A process that ends within a window is not counted in that window."""
    t0, calm = time.perf_counter(), 0
    while time.perf_counter() - t0 < limit:
        before = process_tree_cpu(pid)
        time.sleep(window)
        after = process_tree_cpu(pid)
        used = sum(after[p] - before.get(p, 0.0) for p in after)  # new processes from 0; ended ones add 0
        calm = calm + 1 if used / window < share else 0
        if calm >= quiet:
            return time.perf_counter() - t0 - quiet * window
    return None


async def one_browser(url, n, steps, trace, quick=False, server_pid=None):
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        b = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = Page(await b.new_page(viewport={"width": 1600, "height": 1000}), url)
        first = [await page.open()]
        for _ in range(2):
            pg = Page(await b.new_page(viewport={"width": 1600, "height": 1000}), url)
            first.append(await pg.open())
            await pg.page.close()
        print(f"first render (N={n}): " + ", ".join(f"{t:.2f} s" for t in first))
        await page.walk([-3, 3, 0])  # fill the cache for these positions (prefetch may have already)
        cached = []
        while len(cached) < steps:
            cached += await page.walk([3, -3, 0])
        print(f"cached γ step           : {summary(cached)}")
        if server_pid is not None:
            waited = await asyncio.to_thread(wait_until_idle, server_pid)
            idle = []
            while len(idle) < steps:
                idle += await page.walk([3, -3, 0])
            ended = f"background work ended {waited:.0f} s later" if waited is not None else \
                "the server was still busy after 240 s"
            print(f"cached γ step, idle     : {summary(idle)}   ({ended})")
        if trace:
            await trace_steps(page, Path(trace))
        await page.walk([-4])
        seen, ms = await page.drag([-3, -2, -1, 0, 1, 2])
        print(f"live drag over 6 cached γ: {len(set(seen))} distinct statuses shown while held {seen}; "
              f"released position shown {ms:.0f} ms after release" if ms is not None else
              f"live drag: {seen}; released position NOT shown within 30 s")
        if quick:
            await b.close()
            return
        m_ms, k_ms, t_ms = [], [], []
        for v in (30, 50, 40):
            m_ms.append(await page.change_input("M (neighbourhood size)", v, f"M = {v},"))
        for v in ("3", "10", "aic"):
            k_ms.append(await page.change_select("K prototypes per class", v, f"K = {v},"))
        for key, a in (("ArrowRight", 0.55), ("ArrowLeft", 0.5), ("ArrowRight", 0.55), ("ArrowLeft", 0.5)):
            t_ms.append(await page.step_slider("T̃ amplitude", key, f"T̃ a = {a:g} ("))
        print(f"M change                : {summary(m_ms)}")
        print(f"K change                : {summary(k_ms)}")
        print(f"T̃ amplitude step        : {summary(t_ms)}")
        await b.close()


async def uncached_steps(url, n, steps):
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        b = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = Page(await b.new_page(viewport={"width": 1600, "height": 1000}), url)
        await page.open()
        ms = await page.walk(list(range(1, min(10, steps) + 1)))
        print(f"uncached γ step (N={n}) : {summary(ms)}")
        await b.close()


async def many_browsers(url, k, steps):
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        b = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        pages = [Page(await (await b.new_context(viewport={"width": 1600, "height": 1000})).new_page(), url)
                 for _ in range(k)]
        first = await asyncio.gather(*[pg.open() for pg in pages])
        print(f"[{k} browsers] first render: median {statistics.median(first):.2f} s, max {max(first):.2f} s")
        await asyncio.gather(*[pg.walk([-3, 3, 0]) for pg in pages])

        async def cached(pg):
            out = []
            while len(out) < steps:
                out += await pg.walk([3, -3, 0])
            return out

        res = await asyncio.gather(*[cached(pg) for pg in pages])
        print(f"[{k} browsers] cached γ step: {summary([m for r in res for m in r])}")
        await asyncio.gather(*[pg.walk([-4]) for pg in pages])
        drags = []
        for pg in pages:  # one mouse per page; the drags run one after another, the others idle
            drags.append(await pg.drag([-3, -2, -1, 0, 1, 2]))
        print(f"[{k} browsers] live drag: distinct statuses while held "
              f"{[len(set(s)) for s, _ in drags]}; release shown after "
              f"{[round(m) if m is not None else None for _, m in drags]} ms")
        await b.close()


async def letter_steps(url, n, steps):
    """Letter Recognition (d = 16, 26 classes) with N subsampled live: first render and cached γ steps."""
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        b = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = Page(await b.new_page(viewport={"width": 1600, "height": 1000}), url, moved=False)
        first = await page.open()
        await page.walk([-3, 3, 0])
        cached = []
        while len(cached) < steps:
            cached += await page.walk([3, -3, 0])
        print(f"letter (d = 16, J = 26, N = {n} live): first render {first:.2f} s; cached γ step {summary(cached)}")
        await b.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--browsers", type=int, nargs="*", default=[5])
    ap.add_argument("--trace", default=None)
    ap.add_argument("--skip-uncached", action="store_true")
    ap.add_argument("--quick", action="store_true", help="first render, cached steps and the drag only")
    ap.add_argument("--letter", type=int, default=2000, help="N of the Letter run (0: skip it)")
    a = ap.parse_args()
    print(f"buviz explorer in headless Chromium, {os.cpu_count()} CPUs")
    tmp = Path(tempfile.mkdtemp())
    url_q = f"?n_train={a.n}"
    srv = ExplorerServer(tmp, query=url_q, timeout=300)
    try:
        asyncio.run(one_browser(srv.url + url_q, a.n, a.steps, a.trace, a.quick, server_pid=srv.proc.pid))
        for k in a.browsers:
            asyncio.run(many_browsers(srv.url + url_q, k, a.steps // 2))
    finally:
        srv.stop()
    if a.letter:
        q = f"?dataset=letter&n_train={a.letter}"
        srv = ExplorerServer(Path(tempfile.mkdtemp()), query=q, timeout=300)
        try:
            asyncio.run(letter_steps(srv.url + q, a.letter, a.steps // 2))
        finally:
            srv.stop()
    if not a.skip_uncached:
        for n in (a.n, 2 * a.n):
            tmp = Path(tempfile.mkdtemp())
            q = f"?n_train={n}"
            srv = ExplorerServer(tmp, query=q, env={"BUVIZ_PREFETCH": "0"}, timeout=300)
            try:
                asyncio.run(uncached_steps(srv.url + q, n, 6))
            finally:
                srv.stop()


if __name__ == "__main__":
    main()
