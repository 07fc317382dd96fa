"""Load and memory of the served explorer: one ``panel serve`` on 127.0.0.1, many sessions.

- ``test_concurrent_sessions``: 20 browser contexts of one headless Chromium load the page at once,
  then move γ, M, K and switch tabs for ``BUVIZ_LOAD_SECONDS`` (default 15), while a hostile
  student (``BUVIZ_LOAD_HOSTILE=0`` leaves it out) uploads a 200 000-row table, a 16 MB
  file and malformed files, each from a tab closed abruptly; then no console error in the other
  sessions, no failed request, no server exception, and every session shows the Û of its final settings as
  computed through the API. Printed (min / median / p90 / max): the server-side time of every applied
  change (from the server's ``BUVIZ_TIMING_LOG``), the browser-side latency from a γ key press until
  the page shows the new status, the page-load times, and the server's share of one core. The 20
  browser pages run on the same cores as the server, so the browser-side figures are mostly the
  browsers' own rendering (measured: the server process used about half of one core).
- ``test_memory_does_not_grow_with_sessions``: sessions opened and discarded, first enough to fill the
  shared caches, then a second batch; the second batch grows the server's resident memory by at most
  ``LEAK_BOUND_MB``, and the server discarded every session (which runs the state's
  ``on_session_destroyed`` clean-up).

Both run in their own xdist group (``--dist loadgroup``); ``scripts/test.sh`` runs the concurrency test
after the rest of the suite, alone, since its 20 Chromium pages need the cores to themselves. The
concurrency test needs Debian's ``/usr/bin/chromium`` and serves with the README's classroom flags.
"""

from __future__ import annotations

import asyncio
import collections
import functools
import os
import random
import re
import statistics
import threading
import time
import urllib.request
from pathlib import Path

import numpy as np
import pytest

from .conftest import CHROMIUM, ExplorerServer, process_tree_cpu, require_browser, server_errors

pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.xdist_group("load")]

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run", "--disable-dev-shm-usage"]
N_SESSIONS = int(os.environ.get("BUVIZ_LOAD_SESSIONS", "20"))
LOAD_SECONDS = float(os.environ.get("BUVIZ_LOAD_SECONDS", "15"))
#: Allowed RSS growth while the shared caches fill (measured: +41 to +52 MB over 100 sessions; see the test).
RSS_BOUND_MB = 200
#: Allowed RSS growth over a batch of sessions once the caches are full (measured: +0 MB over 28).
LEAK_BOUND_MB = 40
QUERY = "?n_train=200&M=30&cv=2"
N_MEMORY_SESSIONS = int(os.environ.get("BUVIZ_MEMORY_SESSIONS", "28"))
#: The README's flags for serving a class (a session waits 2 min for its browser to connect; no
#: keep-alive pings, whose race with closing sockets raises in Bokeh: see buviz.app.serve).
CLASSROOM_FLAGS = ("--unused-session-lifetime", "120000", "--keep-alive", "0")
#: Whether one more student, beside the others, uploads a 200 000-row table, a 16 MB file and malformed
#: files, each in a tab closed abruptly (on by default; ``BUVIZ_LOAD_HOSTILE=0`` leaves the student out).
#: It was off in the suite while the other sessions' changes waited behind the student's γ row computed
#: ahead (22 uninterruptible jobs of up to 7 s at N = 4 999) in the snapshots' lane: two runs of three
#: ended on a γ step not shown within 300 s. With the prefetch in its own lane, three runs of three ended
#: with every session on the API's Û (docs/deployment.md).
HOSTILE = os.environ.get("BUVIZ_LOAD_HOSTILE", "1") == "1"
#: The issue's goal for the other sessions' γ step (p90, browser side), reported by the test and by
#: ``benchmarks/bench_lecture_hall.py``; the test asserts correctness, not this time.
STEP_P90_GOAL_S = 1.5
#: Allowed growth of the server's memory during the load test (a 200 000-row upload is read into
#: about 10 MB; the caches are bounded).
LOAD_RSS_BOUND_MB = 400
#: How long a session waits, once its activity ended, for its page to show the Û of its last settings
#: (with the hostile student, whose 200 000-row upload the others' pages share the cores with, longer).
FINAL_WAIT_S = 300.0 if HOSTILE else 60.0
#: Longest wait for one page update: 20 Chromium pages share the machine's cores with the server.
WAIT_MS = 300_000
#: A student's pause between two actions, seconds (``BUVIZ_LOAD_THINK_S``; each pause drawn uniformly
#: from 0.5 to 1.5 times it). 0, the suite's default: every session acts back to back, which saturates the
#: machine's cores with the browsers' own rendering; ``benchmarks/bench_lecture_hall.py --think`` measures
#: a class that pauses as people do.
THINK_S = float(os.environ.get("BUVIZ_LOAD_THINK_S", "0"))


class Server(ExplorerServer):
    """The explorer's server, with its resident memory, CPU time, timing log and error lines."""

    def __init__(self, tmp: Path, *flags: str):
        self.timing_log = tmp / "apply_times.log"
        super().__init__(tmp, *flags, query=QUERY, env={"BUVIZ_TIMING_LOG": str(self.timing_log)})

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        raise RuntimeError("no VmRSS")

    def cpu_seconds(self) -> float:
        """User + system CPU time of the server process so far."""
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def apply_times(self, since: float = 0.0) -> list[float]:
        """Server-side seconds of every control change applied after unix time ``since``."""
        if not self.timing_log.exists():
            return []
        rows = [ln.split() for ln in self.timing_log.read_text().splitlines()]
        return [float(r[1]) for r in rows if float(r[0]) >= since]

    def errors(self) -> list[str]:
        """Error lines of the server log, each with its traceback (see conftest.server_errors)."""
        return server_errors(self.text().splitlines())



@functools.lru_cache(maxsize=64)
def _api_u(log2_gamma: int, M: int, K: str) -> str:
    """Û of the explorer's settings computed through the public API (not through the app)."""
    from buviz import datasets
    from buviz.classifiers import svm_status
    from buviz.uncertainty import BoundaryUncertainty

    ds = datasets.load("gmm", n_train=200, n_test=5000, random_state=0)
    est = BoundaryUncertainty(M=M, K=K if K == "aic" else int(K), perturbation=0.5, perturbation_mode="features",
                              random_state=0).fit(ds.X_train, ds.y_train)
    return f"{est.evaluate(svm_status(ds.X_train, ds.y_train, 2.0 ** log2_gamma, 1.0)).value:.4f}"


def _label(g: int) -> str:
    return f"SVM γ = 2^{g}, C = 2^0"


async def _wait_for_status(page, idx: int, gamma: int) -> None:
    """Wait until the page shows the status at log₂ γ = ``gamma``; if it never does, fail saying what the
    page shows instead (its status line, its message bar, the slider's value)."""
    from playwright.async_api import TimeoutError as PlaywrightTimeout

    try:
        await page.get_by_text(_label(gamma)).first.wait_for(timeout=WAIT_MS)
    except PlaywrightTimeout:
        status = await page.get_by_text("SVM γ = 2^").all_inner_texts()
        bar = await page.locator(".buviz-message").all_inner_texts()
        slider = await page.locator(".bk-input-group", has_text="log₂ γ").first.inner_text()
        raise AssertionError(f"session {idx}: log₂ γ = {gamma} not shown after {WAIT_MS / 1000:.0f} s; the page "
                             f"shows {status[:2]}, message {bar}, slider {slider!r}") from None


async def _u_shown(page) -> str:
    """The Û_tr the page shows ('' while its table is being redrawn: on the saturated machine with the
    hostile student, the table was once absent for more than 30 s after the status line showed)."""
    from playwright.async_api import TimeoutError as PlaywrightTimeout

    try:
        text = await page.locator("table", has_text="Û_tr (Proposal 2)").first.inner_text(timeout=10_000)
    except PlaywrightTimeout:
        return ""
    m = re.search(r"Û_tr \(Proposal 2\)\s+(-?[0-9.]+)", text)
    return m.group(1) if m else ""


async def _press_gamma(page, handle, step: int, target: int, out: dict) -> float:
    """Press an arrow key on the γ slider until the slider itself shows ``target``; returns the time
    of the press that took. A press the busy page dropped (focus lost to a re-render) is pressed
    again and counted: that is the browser harness, whereas a slider that moved but a status that never
    follows would be the app's fault and times out below."""
    for _ in range(5):
        await handle.focus()
        t = time.perf_counter()
        await page.keyboard.press("ArrowRight" if step > 0 else "ArrowLeft")
        deadline = time.perf_counter() + 60
        while time.perf_counter() < deadline:
            now = await handle.get_attribute("aria-valuenow")
            if now is not None and float(now) == target:
                return t
            await page.wait_for_timeout(250)
        out["repressed"] += 1
    raise AssertionError(f"the γ slider did not take 5 key presses towards {target}")


async def _session(browser, url: str, idx: int, out: dict, all_loaded: asyncio.Event):
    rng = random.Random(idx)
    ctx = await browser.new_context(viewport={"width": 1400, "height": 900})
    page = await ctx.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("requestfailed", lambda r: errors.append(f"request failed: {r.url} ({r.failure})"))
    await asyncio.sleep(0.3 * idx)  # a staggered arrival (all 20 are open together within ~6 s)
    t0 = time.perf_counter()
    await page.goto(url + QUERY, timeout=WAIT_MS)
    await page.get_by_text(_label(0)).first.wait_for(timeout=WAIT_MS)
    out["load"].append(time.perf_counter() - t0)
    print(f"session {idx} loaded after {out['load'][-1]:.1f} s", flush=True)
    if len(out["load"]) == N_SESSIONS:
        all_loaded.set()
    await all_loaded.wait()  # the activity starts when all 20 sessions are open
    stop_at = time.perf_counter() + LOAD_SECONDS
    gamma, M, K = 0, 30, "aic"
    handle = page.locator(".bk-input-group", has_text="log₂ γ").locator(".noUi-handle").first
    tabs = ["Weights k̂/w", "Covariate shift", "Error vs −Û", "Sample space"]
    m_input = page.locator(".bk-input-group", has_text="M (neighbourhood size)").locator("input").first
    k_select = page.locator(".bk-input-group", has_text="K prototypes per class").locator("select").first
    tab = "Sample space"
    await page.locator(".bk-tab", has_text=tab).first.click()
    first = True
    while time.perf_counter() < stop_at:
        # the first action a γ step: on a saturated machine one action can outlast the activity, and every
        # session must time at least one step (a hostile run once had a session whose only action was M)
        action, first = (0.0 if first else rng.random()), False
        if action < 0.55:  # γ by one step, timed until the page shows the new status
            if tab != "Sample space":  # the status line is on the sample-space tab
                tab = "Sample space"
                await page.locator(".bk-tab", has_text=tab).first.click()
                await page.get_by_text(_label(gamma)).first.wait_for(timeout=WAIT_MS)
            step = 1 if gamma < 3 and (gamma <= -3 or rng.random() < 0.5) else -1
            t = await _press_gamma(page, handle, step, gamma + step, out)
            gamma += step
            await _wait_for_status(page, idx, gamma)
            out["latency"].append(time.perf_counter() - t)
        elif action < 0.75:
            tab = rng.choice(tabs)
            await page.locator(".bk-tab", has_text=tab).first.click()
            await page.wait_for_timeout(300)
        elif action < 0.9:
            M = rng.choice([20, 30, 40])
            await m_input.fill(str(M))
            await m_input.press("Enter")
            await page.wait_for_timeout(300)
        else:
            K = rng.choice(["aic", "3"])
            await k_select.select_option(K)
            await page.wait_for_timeout(300)
        if THINK_S > 0:
            await page.wait_for_timeout(1000 * THINK_S * rng.uniform(0.5, 1.5))
    # the final state: back on the sample space, wait for every change to land, then compare Û with the API
    await page.locator(".bk-tab", has_text="Sample space").first.click()
    await page.get_by_text(_label(gamma)).first.wait_for(timeout=WAIT_MS)
    expected = _api_u(gamma, M, K)
    shown = ""
    t_final = time.perf_counter()
    end = t_final + FINAL_WAIT_S
    while time.perf_counter() < end:
        shown = await _u_shown(page)
        if shown == expected:
            out["final_wait"].append(time.perf_counter() - t_final)
            break
        await page.wait_for_timeout(250)
    else:  # what the page shows instead: its M box and its message bar
        m_box = await m_input.input_value()
        bar = await page.locator(".buviz-message").all_inner_texts()
        print(f"session {idx}: after {FINAL_WAIT_S:.0f} s Û {shown} (expected {expected} at M = {M}, K = {K}); "
              f"the page's M box: {m_box}; message: {bar}", flush=True)
    out["final"].append((idx, gamma, M, K, shown, expected))
    out["console"].extend(f"session {idx}: {e}" for e in errors)
    # leave with a close handshake (see conftest.close_page): the busy server may still be writing
    await page.goto("about:blank", timeout=WAIT_MS)
    await page.wait_for_timeout(300)
    await ctx.close()


def _hostile_files() -> list[tuple[str, bytes]]:
    """What the hostile student uploads: a 200 000-row table (3 MB, under the byte cap), a 16 MB file
    (over it: the browser must refuse it unsent) and malformed files."""
    rng = np.random.default_rng(7)
    X = rng.normal(size=(200_000, 2))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, "a", "b")
    big = "x1,x2,label\n" + "".join(f"{a:.3f},{b:.3f},{c}\n" for (a, b), c in zip(X, y, strict=True))
    return [("rows200k.csv", big.encode()),
            ("huge.csv", b"x1,x2,label\n" + b"1.0,2.0,a\n3.0,4.0,b\n" * 800_000),
            ("latin1.csv", "x1,x2,label\n1,2,\u00e9\n3,4,\u00fc\n".encode("latin-1")),
            ("garbage.csv", bytes(rng.integers(0, 256, 50_000, dtype=np.uint8))),
            ("one_column.csv", b"label\na\nb\na\n"),
            ("empty.csv", b"")]


async def _hostile(browser, url: str, out: dict, all_loaded: asyncio.Event, stop_at: list[float]):
    """One student who uploads every file of :func:`_hostile_files`, each in a new tab, and closes each
    tab abruptly (no navigation away: the socket drops while the server may be working for it): each
    file once, and on until the others' activity ends."""
    files = _hostile_files()
    await all_loaded.wait()
    i = 0
    while i < len(files) or not stop_at or time.perf_counter() < stop_at[0]:
        name, data = files[i % len(files)]
        ctx = await browser.new_context(viewport={"width": 1400, "height": 900})
        page = await ctx.new_page()
        try:
            await page.goto(url + QUERY, timeout=WAIT_MS)
            await page.get_by_text(_label(0)).first.wait_for(timeout=WAIT_MS)
            await page.get_by_text("Upload a CSV").first.click()
            await page.locator("input[type=file]").set_input_files(
                files=[{"name": name, "mimeType": "text/csv", "buffer": data}])
            await page.wait_for_timeout(2000)
            out["hostile"].append(name)
        finally:
            await ctx.close()  # abruptly
        i += 1


def cpu_by_group(server_pid: int) -> dict[str, float]:
    """CPU seconds so far of the server (with its worker processes), of every Chromium process, and of
    the whole machine (all cores, busy time only)."""
    import psutil

    chromium = 0.0
    for proc in psutil.process_iter(["name", "cpu_times"]):
        times = proc.info["cpu_times"]
        if times is not None and "chrom" in (proc.info["name"] or "").lower():
            chromium += times.user + times.system
    t = psutil.cpu_times()
    busy = t.user + t.nice + t.system + getattr(t, "irq", 0) + getattr(t, "softirq", 0) + getattr(t, "steal", 0)
    return {"server": sum(process_tree_cpu(server_pid).values()), "Chromium": chromium, "machine": busy}


async def _run_load(url: str, hostile: bool = False, cpu=None) -> dict:
    """The sessions (and the hostile student); ``cpu()``, if given, is read when every page is open and
    when the activity ends: ``out["cpu"]`` holds each group's CPU seconds over that window and its length."""
    from playwright.async_api import async_playwright

    out = {"load": [], "latency": [], "final": [], "final_wait": [], "console": [], "repressed": 0, "hostile": [],
           "cpu": {}}
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        all_loaded = asyncio.Event()
        stop_at: list[float] = []  # when the others' activity ends (set once they are all open)

        async def started():
            await all_loaded.wait()
            stop_at.append(time.perf_counter() + LOAD_SECONDS)
            if cpu is not None:
                before, t = cpu(), time.perf_counter()
                await asyncio.sleep(LOAD_SECONDS)
                after = cpu()
                out["cpu"] = {k: after[k] - before[k] for k in before} | {"wall": time.perf_counter() - t}

        await asyncio.gather(*[_session(browser, url, i, out, all_loaded) for i in range(N_SESSIONS)], started(),
                             *([_hostile(browser, url, out, all_loaded, stop_at)] if hostile else []))
        await browser.close()
    return out


class LoopLag(threading.Thread):
    """Round trip of a small static file every 0.5 s: how long any request waits for the server's
    event loop (Tornado serves the file on the same single thread as every session's updates)."""

    def __init__(self, url: str, rss=None):
        super().__init__(daemon=True)
        self.url, self.times, self.stop = url, [], threading.Event()
        self.rss, self.rss_mb = rss, []  # the server's resident memory, sampled at the same pace

    def run(self):
        while not self.stop.wait(0.5):
            if self.rss is not None:
                self.rss_mb.append(self.rss())
            t = time.perf_counter()
            try:
                with urllib.request.urlopen(self.url, timeout=300) as r:
                    r.read()
            except OSError:
                continue
            self.times.append(time.perf_counter() - t)


def _quantiles(xs: list[float]) -> str:
    xs = sorted(xs)
    if not xs:
        return "n = 0"
    q = statistics.quantiles(xs, n=10) if len(xs) > 1 else [xs[0]] * 9
    return (f"n = {len(xs)}, min {xs[0]:.2f} s, median {statistics.median(xs):.2f} s, p90 {q[8]:.2f} s, "
            f"max {xs[-1]:.2f} s")


@pytest.mark.timeout(2400)  # 20 browsers and the hostile student share two cores: about 4 min, 300 s waits
def test_concurrent_sessions(tmp_path):
    require_browser()
    server = Server(tmp_path, *CLASSROOM_FLAGS)
    try:
        started, cpu0, t0 = time.time(), server.cpu_seconds(), time.perf_counter()
        rss_start = server.rss_mb()
        lag = LoopLag(f"http://127.0.0.1:{server.port}/static/extensions/panel/css/loading.css", server.rss_mb)
        lag.start()
        out = asyncio.run(_run_load(server.url, hostile=HOSTILE, cpu=functools.partial(cpu_by_group, server.proc.pid)))
        lag.stop.set()
        wall, cpu = time.perf_counter() - t0, server.cpu_seconds() - cpu0
        time.sleep(1.0)
        errors = server.errors()
        applied = server.apply_times(since=started)
    finally:
        server.stop()
    print(f"\n{N_SESSIONS} concurrent sessions, {LOAD_SECONDS:.0f} s of activity")
    print(f"page load (first status shown): {_quantiles(out['load'])}")
    print(f"γ change -> new status on the page: {_quantiles(out['latency'])} "
          f"({out['repressed']} key presses dropped by the busy pages and pressed again)")
    print(f"server-side time per applied change (snapshot + view updates): {_quantiles(applied)}")
    print(f"server event-loop wait (static file round trip every 0.5 s): {_quantiles(lag.times)}")
    print(f"server process CPU: {cpu:.0f} s over {wall:.0f} s of wall time ({100 * cpu / wall:.0f} % of one core)")
    if share := out["cpu"]:  # who used the cores while every page was open and acting
        w = share["wall"]
        print(f"while every page acted ({w:.0f} s), share of one core: server and its workers "
              f"{100 * share['server'] / w:.0f} %, Chromium {100 * share['Chromium'] / w:.0f} %, "
              f"the whole machine {100 * share['machine'] / w:.0f} % of {100 * (os.cpu_count() or 1)} %")
    rss_peak = max(lag.rss_mb, default=rss_start)
    print(f"server memory: {rss_start:.0f} MB at the start, peak {rss_peak:.0f} MB "
          f"(+{rss_peak - rss_start:.0f}, bound +{LOAD_RSS_BOUND_MB})")
    if HOSTILE:
        print(f"hostile student: {len(out['hostile'])} tabs opened, each uploading then closed abruptly "
              f"({', '.join(sorted(set(out['hostile'])))})")
        print(f"p90 of the other sessions' γ step: {_p90(out['latency']):.2f} s (goal ≤ {STEP_P90_GOAL_S} s)")
    print(f"console errors: {len(out['console'])}, server error lines: {len(errors)}")
    kinds = collections.Counter(re.sub(r"^session \d+: ", "", e)[:160] for e in out["console"])
    for text, n in kinds.most_common(10):
        print(f"  {n} x {text}")
    wrong = [f for f in out["final"] if f[4] != f[5]]
    print(f"sessions ending with the API's Û: {len(out['final']) - len(wrong)}/{N_SESSIONS}; "
          f"the last change shown after the activity ended: {_quantiles(out['final_wait'])}")
    assert out["console"] == []
    assert errors == [], "\n\n".join(errors[:3])
    assert len(out["final"]) == N_SESSIONS and wrong == [], wrong
    assert len(out["latency"]) >= N_SESSIONS
    assert rss_peak - rss_start <= LOAD_RSS_BOUND_MB
    if HOSTILE:
        assert set(out["hostile"]) == {name for name, _ in _hostile_files()}


def _p90(xs: list[float]) -> float:
    return statistics.quantiles(sorted(xs), n=10)[8] if len(xs) > 1 else (xs[0] if xs else float("nan"))


def _http_session(url: str) -> None:
    """One full server-side session: the GET builds the session's document (state, views, models)."""
    with urllib.request.urlopen(url, timeout=120) as r:
        assert r.status == 200 and b"bokeh" in r.read().lower()


def _open_sessions(server, urls: list[str], discarded_before: int) -> tuple[float, int]:
    """Open one session per URL (two at a time), wait until the server discarded them all; the time
    taken and the server's count of discarded sessions."""
    from concurrent.futures import ThreadPoolExecutor

    t0 = time.perf_counter()
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(_http_session, urls))
    elapsed = time.perf_counter() - t0
    deadline = time.time() + 30
    while time.time() < deadline and server.text().count("Discarding session") < discarded_before + len(urls):
        time.sleep(0.5)
    time.sleep(1)
    return elapsed, server.text().count("Discarding session")


def test_memory_does_not_grow_with_sessions(tmp_path):
    """Sessions leave nothing behind: after the shared caches are full, another batch of sessions grows
    the server's resident memory by at most ``LEAK_BOUND_MB``, and every session is discarded.

    Each session is a page GET, which builds the session's whole document on the server (the stores,
    every view, the Bokeh models) exactly as for a browser, without the rendering; the server discards
    it after ``--unused-session-lifetime`` (destroying the session runs the state's
    ``on_session_destroyed`` clean-up). The first batch opens every (γ, seed) of the walk once, so the
    shared caches (bounded LRUs, compute.py's docstring) hold what the second batch asks for; the
    second batch, the same settings again in new sessions, then measures only what sessions keep.
    Measured: +41 to +56 MB while the caches fill (bound ``RSS_BOUND_MB``), then +0 MB over the second
    batch of 28 sessions (bound ``LEAK_BOUND_MB``). A leak of one session's document (several MB each)
    exceeds the bound within the batch. ``BUVIZ_MEMORY_SESSIONS`` sets the second batch's size (default
    28; 100 for a longer check).
    """
    server = Server(tmp_path, "--check-unused-sessions", "500", "--unused-session-lifetime", "500",
                    "--log-level", "debug")
    settings = [f"{server.url}{QUERY}&log2_gamma={g}&seed={s}" for g in range(-3, 4) for s in range(4)]
    measured = [settings[i % len(settings)] for i in range(N_MEMORY_SESSIONS)]
    try:
        _http_session(settings[0])
        time.sleep(2)
        rss_first = server.rss_mb()
        t_fill, discarded = _open_sessions(server, settings, 0)
        rss_full = server.rss_mb()
        t_measured, discarded = _open_sessions(server, measured, discarded)
        rss_after = server.rss_mb()
        errors = server.errors()
    finally:
        server.stop()
    print(f"\nserver RSS after the first session {rss_first:.0f} MB; {len(settings)} sessions filling the caches "
          f"in {t_fill:.0f} s: {rss_full:.0f} MB (+{rss_full - rss_first:.0f}, bound +{RSS_BOUND_MB}); "
          f"{len(measured)} more in {t_measured:.0f} s: {rss_after:.0f} MB (+{rss_after - rss_full:.0f}, bound "
          f"+{LEAK_BOUND_MB}); sessions discarded {discarded}")
    assert errors == [], errors[:10]
    assert discarded >= 1 + len(settings) + len(measured)
    assert rss_full - rss_first <= RSS_BOUND_MB
    assert rss_after - rss_full <= LEAK_BOUND_MB
