"""Server-side cost of a cached γ step of the explorer (a script printing figures, not a test).

    python benchmarks/bench_step.py [--n 1000] [--against DIR] [--rounds 2] [--dataset gmm]

Builds the whole explorer (``ExplorerApp``, the Sample space tab open) in a live Bokeh document and
times ``log2_gamma`` steps over statuses already computed: the snapshot, every view that follows it,
HoloViews' update of the map and the Bokeh models changed, in process (no browser, no websocket).
``--against DIR`` runs the same measurement on another checkout of buviz (e.g. a ``git worktree`` of
an older commit), alternating with this one in separate processes, and prints the ratio: the machine
may be shared, so only figures of the same run compare.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def measure(n: int, dataset: str, repeats: int = 4) -> dict:
    """Median and p90 (ms) of cached γ steps in this process (the buviz on ``sys.path``)."""
    import holoviews as hv
    import panel as pn
    from bokeh.document import Document

    from buviz.app import layout

    pn.extension(sizing_mode="fixed")
    hv.renderer("bokeh").webgl = False
    app = layout.ExplorerApp(store=layout.build_store(n_train=n, dataset=dataset))
    doc = Document()
    doc.add_root(pn.panel(app).get_root(doc))
    s = app.store
    walk = [0, 1, 2, 3, 2, 1]
    for _ in range(2):  # every status computed, every plot built
        for g in walk:
            s.controls.log2_gamma = g
    ms = []
    for _ in range(repeats):
        for g in walk:
            t = time.perf_counter()
            s.controls.log2_gamma = g
            ms.append(1000 * (time.perf_counter() - t))
    ms.sort()
    return {"median": statistics.median(ms), "p90": ms[int(0.9 * (len(ms) - 1))], "n": len(ms)}


def run(tree: Path, n: int, dataset: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(tree), "BUVIZ_PREFETCH": "0"}
    out = subprocess.run([sys.executable, __file__, "--child", "--n", str(n), "--dataset", dataset],
                         cwd=tree, env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--dataset", default="gmm")
    ap.add_argument("--against", type=Path, default=None, help="another buviz checkout to compare with")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        print(json.dumps(measure(a.n, a.dataset)))
        return
    trees = {"this": ROOT} if a.against is None else {"this": ROOT, "against": a.against.resolve()}
    got = {k: [] for k in trees}
    for _ in range(a.rounds):
        for k, tree in trees.items():
            r = run(tree, a.n, a.dataset)
            got[k].append(r["median"])
            print(f"{k:8s} {tree}: cached γ step median {r['median']:6.1f} ms, p90 {r['p90']:6.1f} ms (n={r['n']})")
    if a.against is not None:
        ratio = statistics.median(got["this"]) / statistics.median(got["against"])
        print(f"this / against: {ratio:.2f} (median of {a.rounds} rounds each; load {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
