"""Screenshots of every tab of the explorer for the docs' tour (``docs/_static/tour/``).

Serves ``apps/explorer.py`` on a free local port, opens it in headless Chromium (Playwright, the
Debian ``/usr/bin/chromium`` unless ``--chromium`` names another), clicks each tab it finds on the
page, waits until the tab has drawn (and, for the tabs that follow the background sweep, until the
sweep is done), and writes ``tab-name.png`` (the tab's title in ASCII). The PNGs are committed; run this again after a
change to the app's look:

    python scripts/screenshots.py [--out docs/_static/tour] [--width 1400 --height 900]
"""

from __future__ import annotations

import argparse
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import unicodedata
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUSY = ("Sweep running", "Sweep not started", "computing", "Computing")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def slug(text: str) -> str:
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "tab"


def serve(port: int, cache: Path, log) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, "-m", "panel", "serve", "apps/explorer.py", "--address", "127.0.0.1", "--port", str(port),
         "--allow-websocket-origin", f"127.0.0.1:{port}"],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
        env={**os.environ, "BUVIZ_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT)})
    deadline = time.time() + 180
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/explorer", timeout=60) as r:
                if r.status == 200:
                    return proc
        except OSError:
            if proc.poll() is not None or time.time() > deadline:
                proc.terminate()
                raise RuntimeError("panel serve did not start") from None
            time.sleep(0.5)


#: Number of drawn things (canvases, tables, images) visible in the open tab's panel.
_DRAWN = """() => {
  const visible = el => { const r = el.getBoundingClientRect();
                          return el.offsetParent !== null && r.width > 100 && r.height > 60 && r.top > 130; };
  const all = [];
  const walk = root => {
    for (const el of root.querySelectorAll('canvas, table, img, svg')) all.push(el);
    for (const el of root.querySelectorAll('*')) if (el.shadowRoot) walk(el.shadowRoot);
  };
  walk(document);
  return all.filter(el => visible(el) && el.getBoundingClientRect().left > 340).length;
}"""


def settle(page, timeout: float) -> None:
    """Wait until the open tab shows something drawn and no busy message (the sweep's progress,
    'computing') for two seconds."""
    deadline = time.time() + timeout
    quiet_since = None
    while time.time() < deadline:
        # (Panel's widgets live in shadow roots, which Playwright's text locators search too)
        busy = (any(page.get_by_text(word).filter(visible=True).count() for word in BUSY)
                or page.evaluate(_DRAWN) == 0)
        if busy:
            quiet_since = None
        elif quiet_since is None:
            quiet_since = time.time()
        elif time.time() - quiet_since > 2.0:
            return
        page.wait_for_timeout(300)
    print("screenshots: the tab did not settle within the timeout", flush=True)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=ROOT / "docs" / "_static" / "tour")
    p.add_argument("--width", type=int, default=1400)
    p.add_argument("--height", type=int, default=900)
    p.add_argument("--chromium", default="/usr/bin/chromium")
    p.add_argument("--only", nargs="*", default=None, metavar="TAB", help="only these tabs (their titles)")
    p.add_argument("--timeout", type=float, default=120, help="seconds to wait for a tab to settle")
    args = p.parse_args(argv)

    from playwright.sync_api import sync_playwright

    args.out.mkdir(parents=True, exist_ok=True)
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        log = open(Path(tmp) / "server.log", "wb")  # noqa: SIM115 -- closed below
        proc = serve(port, Path(tmp) / "cache", log)
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=args.chromium)
                page = browser.new_page(viewport={"width": args.width, "height": args.height})
                page.goto(f"http://127.0.0.1:{port}/explorer", timeout=120_000)
                page.wait_for_selector(".bk-tab", timeout=120_000)
                page.wait_for_selector("canvas", timeout=120_000)
                names = [t.strip() for t in page.locator(".bk-tab").all_inner_texts() if t.strip()]
                for name in names:
                    if args.only and name not in args.only:
                        continue
                    page.locator(".bk-tab", has_text=name).first.click()
                    page.wait_for_timeout(2000)
                    settle(page, args.timeout)
                    # a plot built while its tab was hidden lays itself out on the next resize
                    for _ in range(3):
                        page.set_viewport_size({"width": args.width - 20, "height": args.height})
                        page.wait_for_timeout(1000)
                        page.set_viewport_size({"width": args.width, "height": args.height})
                        page.wait_for_timeout(3000)
                        if page.evaluate(_DRAWN):
                            break
                    path = args.out / f"{slug(name)}.png"
                    page.screenshot(path=str(path))
                    shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
                    print(f"screenshots: {name!r} -> {shown}", flush=True)
                browser.close()
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
            log.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
