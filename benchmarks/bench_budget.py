"""Performance budget of buviz: measured figures beside their targets, checked against stored ratios.

    python benchmarks/bench_budget.py              # measure, print the table, compare with budget.json
    python benchmarks/bench_budget.py --update     # measure and (re)write benchmarks/budget.json
    python benchmarks/bench_budget.py --no-browser # skip the page-load figure

Every figure is also divided by a *baseline* measured in the same run -- a fixed numpy workload of
known size (sorting, a matrix product, a KD-tree query) -- so the ratio figure / baseline is about
machine-independent. The ratios are compared with the reference ratios in ``budget.json``; a ratio
more than ``--tolerance`` (default 2) times its reference prints ``REGRESSION`` and the script exits
with status 1. The targets (seconds) are the interactive budget of the explorer on a laptop-class CPU;
a figure over its target is flagged ``over`` but does not fail the run (the ratio check does).

Figures:
- ``latency:<control>``: one control change in :class:`~buviz.app.store.SessionStore` (N = 1000,
  uncached value: classifier fit + 200 × 200 grid + Proposal 2 evaluate + KS), median of 3;
- ``sweep:svm``: the 11-γ SVM sweep with 5-fold CV at N = 1000, two workers, no cache;
- ``U:fit/eval N=1e4, 1e5``: Proposal 2 ``fit`` and ``evaluate`` (Bayes discriminant) at N = 10⁴, 10⁵;
- ``page load``: ``panel serve`` in the background, headless Chromium until the first status shows.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
BUDGET = Path(__file__).with_name("budget.json")
CHROMIUM = "/usr/bin/chromium"

#: Target seconds per figure (the interactive budget).
TARGETS = {
    "latency:log2_gamma": 1.0, "latency:log2_C": 1.0, "latency:M": 1.0, "latency:K": 1.5,
    "latency:perturbation": 1.0, "latency:tilde": 1.0, "latency:seed": 2.0, "latency:n_train": 2.0,
    "sweep:svm 11γ×5cv N=1000": 30.0, "U:fit N=1e4": 3.0, "U:eval N=1e4": 1.0, "U:fit N=1e5": 30.0,
    "U:eval N=1e5": 10.0, "page load": 15.0,
}


def baseline() -> float:
    """Seconds of a fixed numpy/scipy workload (median of 5), the yardstick of every ratio."""
    from scipy.spatial import cKDTree

    rng = np.random.default_rng(0)
    a = rng.random(1_000_000)
    m = rng.random((300, 300))
    pts = rng.random((50_000, 2))
    times = []
    for _ in range(5):
        t = time.perf_counter()
        np.sort(a)
        for _ in range(10):
            m @ m
        cKDTree(pts).query(pts[:20_000], k=20)
        np.exp(a).sum()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def _median(fn, n=3) -> float:
    out = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return statistics.median(out)


def interaction_latency() -> dict[str, float]:
    from buviz.app import compute as st
    from buviz.app.controls import Controls
    from buviz.app.store import SessionStore

    st.clear_caches()
    s = SessionStore(n_train=1000, auto_sweep=False)
    changes = {"log2_gamma": [1, 2, 3], "log2_C": [1, 2, 3], "M": [30, 50, 60], "K": ["3", "10", "20"],
               "perturbation": [0.3, 0.4, 0.6], "tilde": [False, True, False], "seed": [1, 2, 3],
               "n_train": [900, 800, 700]}
    out = {}
    for name, values in changes.items():
        times = []
        for v in values:
            t = time.perf_counter()
            setattr(s, name, v)
            times.append(time.perf_counter() - t)
            if s.message:
                raise RuntimeError(f"{name} = {v!r}: {s.message}")
        out[f"latency:{name}"] = statistics.median(times)
        s.controls.param.update(**{name: Controls.param[name].default})
    return out


def sweep_time() -> dict[str, float]:
    from buviz import datasets, sweep

    ds = datasets.load("gmm", n_train=1000, n_test=2000, random_state=0)
    t = time.perf_counter()
    sweep.svm_gamma_sweep(ds, 2.0 ** np.arange(-10, 11, 2.0), cv=5, M=40, cache=False, n_jobs=2)
    return {"sweep:svm 11γ×5cv N=1000": time.perf_counter() - t}


def u_scaling() -> dict[str, float]:
    from buviz import datasets
    from buviz.classifiers import as_discriminant
    from buviz.uncertainty import BoundaryUncertainty

    mix = datasets.paper_mixture("gmm")
    disc = as_discriminant(mix.log_joint, n_classes=2, name="Bayes")
    out = {}
    for label, n in (("1e4", 10_000), ("1e5", 100_000)):
        X, y = mix.sample(n, random_state=0)
        est = BoundaryUncertainty(M=40, random_state=0)
        t = time.perf_counter()
        est.fit(X, y)
        out[f"U:fit N={label}"] = time.perf_counter() - t
        out[f"U:eval N={label}"] = _median(lambda est=est: est.evaluate(disc), n=1 if n > 50_000 else 3)
    return out


def page_load() -> dict[str, float]:
    from playwright.sync_api import sync_playwright

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    tmp = tempfile.mkdtemp(prefix="buviz-bench-")
    log = open(Path(tmp) / "server.log", "wb")  # noqa: SIM115
    proc = subprocess.Popen([sys.executable, "-m", "panel", "serve", "apps/explorer.py", "--address", "127.0.0.1",
                             "--port", str(port), "--allow-websocket-origin", f"127.0.0.1:{port}"],
                            cwd=ROOT, env={**os.environ, "BUVIZ_CACHE_DIR": tmp}, stdout=log, stderr=log)
    url = f"http://127.0.0.1:{port}/explorer"
    try:
        deadline = time.time() + 120
        while True:  # the server is up and the default settings are computed (first request)
            try:
                with urllib.request.urlopen(url, timeout=120) as r:
                    if r.status == 200:
                        break
            except OSError:
                if proc.poll() is not None or time.time() > deadline:
                    raise RuntimeError("panel serve did not start") from None
                time.sleep(0.5)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
            times = []
            for _ in range(3):
                page = browser.new_page(viewport={"width": 1600, "height": 1000})
                t = time.perf_counter()
                page.goto(url)
                page.get_by_text("SVM γ = 2^0, C = 2^0").first.wait_for(timeout=120_000)
                page.wait_for_selector("canvas", timeout=120_000)
                times.append(time.perf_counter() - t)
                page.close()
            browser.close()
        return {"page load": statistics.median(times)}
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--update", action="store_true", help="write the measured ratios to budget.json")
    parser.add_argument("--no-browser", action="store_true", help="skip the page-load figure")
    parser.add_argument("--tolerance", type=float, default=2.0, help="fail when a ratio > tolerance × reference")
    args = parser.parse_args(argv)
    os.environ.setdefault("BUVIZ_CACHE_DIR", tempfile.mkdtemp(prefix="buviz-bench-cache-"))

    base0 = baseline()
    figures: dict[str, float] = {}
    figures.update(interaction_latency())
    figures.update(sweep_time())
    figures.update(u_scaling())
    if not args.no_browser and os.path.exists(CHROMIUM):
        try:
            figures.update(page_load())
        except Exception as exc:  # a missing browser must not hide the other figures
            print(f"page load skipped: {exc}", file=sys.stderr)
    base = statistics.median([base0, baseline()])  # before and after: the machine's load may drift

    ref = json.loads(BUDGET.read_text()).get("ratios", {}) if BUDGET.exists() and not args.update else {}
    print(f"baseline workload: {base:.3f} s (median of the runs before and after the figures)\n")
    print(f"{'figure':<28}{'measured':>11}{'target':>9}{'':>6}{'ratio':>9}{'reference':>11}  check")
    failed = []
    for name, value in figures.items():
        ratio = value / base
        target = TARGETS.get(name)
        over = "over" if target is not None and value > target else ""
        r = ref.get(name)
        if r is None:
            check = "new" if not args.update else "stored"
        elif ratio > args.tolerance * r:
            check = f"REGRESSION ({ratio / r:.1f}× reference)"
            failed.append(name)
        else:
            check = f"ok ({ratio / r:.2f}×)"
        print(f"{name:<28}{value:>10.3f}s{target or float('nan'):>8.1f}s{over:>6}{ratio:>9.2f}"
              f"{r if r is not None else float('nan'):>11.2f}  {check}")
    if args.update:
        BUDGET.write_text(json.dumps({
            "about": "figure / baseline ratios measured by benchmarks/bench_budget.py --update; a run fails "
                     "when a ratio exceeds tolerance (2) times the stored one",
            "baseline_s": round(base, 4), "machine": f"{os.cpu_count()} CPUs",
            "ratios": {k: round(v / base, 3) for k, v in figures.items()},
            "targets_s": TARGETS}, indent=2, ensure_ascii=False) + "\n")
        print(f"\nwrote {BUDGET}")
    if failed:
        print(f"\nREGRESSION: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
